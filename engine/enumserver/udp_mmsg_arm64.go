//go:build linux

package enumserver

// System call numbers of linux/arm64.
const (
	sysRECVMMSG = 243
	sysSENDMMSG = 269
)
