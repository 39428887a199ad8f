//go:build !linux || !(amd64 || arm64)

package enumserver

import "net"

// readUDPBatches is for Linux; elsewhere each packet is read and sent
// by itself.
func (s *Server) readUDPBatches(pc net.PacketConn) (handled bool, err error) { return false, nil }
