//go:build linux

package enumserver

// System call numbers of linux/amd64.
const (
	sysRECVMMSG = 299
	sysSENDMMSG = 307
)
