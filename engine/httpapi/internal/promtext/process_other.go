//go:build !linux

package promtext

// RegisterProcess adds nothing outside Linux: the process_* metrics are
// read from /proc (see process_linux.go).
func RegisterProcess(r *Registry) {}
