//go:build linux && (amd64 || arm64)

package enumserver

import (
	"encoding/binary"
	"net"
	"net/netip"
	"syscall"
	"unsafe"
)

// On Linux the UDP readers take and send packets in batches, with
// recvmmsg(2) and sendmmsg(2) (as Knot does): one system call for up to
// udpBatch queries, and one for their answers, where ReadFrom and WriteTo
// make two per query. The batch is what has arrived when a reader wakes:
// one packet under light load, more under heavy load. Nothing is allocated
// per packet: the headers, addresses and buffers belong to the reader.

// udpBatch is the most packets a system call reads or sends.
const udpBatch = 32

// mmsghdr is struct mmsghdr of <sys/socket.h>.
type mmsghdr struct {
	hdr syscall.Msghdr
	len uint32
	_   [4]byte
}

// batchReader is one reader's state.
type batchReader struct {
	s      *Server
	rc     syscall.RawConn
	in     [udpBatch]mmsghdr
	inIov  [udpBatch]syscall.Iovec
	names  [udpBatch]syscall.RawSockaddrAny
	bufs   [udpBatch][maxUDPSize + 1]byte
	out    [udpBatch]mmsghdr
	outIov [udpBatch]syscall.Iovec
	answer [udpBatch][maxUDPSize]byte
	// The system calls' results, and the functions RawConn calls (made
	// once: a closure made per call would be allocated per call).
	n, sent, pending int
	errno            syscall.Errno
	recv, send       func(fd uintptr) bool
}

// readUDPBatches serves pc with recvmmsg and sendmmsg; ok is false when
// pc is not a socket they work on, and the caller reads it otherwise.
func (s *Server) readUDPBatches(pc net.PacketConn) (handled bool, err error) {
	udp, isUDP := pc.(*net.UDPConn)
	if !isUDP {
		return false, nil
	}
	rc, err := udp.SyscallConn()
	if err != nil {
		return false, nil
	}
	b := &batchReader{s: s, rc: rc}
	for i := range udpBatch {
		b.inIov[i].Base = &b.bufs[i][0]
		b.inIov[i].SetLen(len(b.bufs[i]))
		b.in[i].hdr.Iov = &b.inIov[i]
		b.in[i].hdr.Iovlen = 1
		b.in[i].hdr.Name = (*byte)(unsafe.Pointer(&b.names[i]))
		b.out[i].hdr.Iov = &b.outIov[i]
		b.out[i].hdr.Iovlen = 1
	}
	b.recv = func(fd uintptr) bool {
		for i := range udpBatch {
			b.in[i].hdr.Namelen = uint32(unsafe.Sizeof(b.names[i]))
			b.in[i].hdr.Flags = 0
		}
		n, _, e := syscall.Syscall6(sysRECVMMSG, fd, uintptr(unsafe.Pointer(&b.in[0])), udpBatch, 0, 0, 0)
		if e == syscall.EAGAIN || e == syscall.EINTR {
			return false // wait until readable
		}
		b.n, b.errno = int(n), e
		return true
	}
	b.send = func(fd uintptr) bool {
		for b.sent < b.pending {
			n, _, e := syscall.Syscall6(sysSENDMMSG, fd, uintptr(unsafe.Pointer(&b.out[b.sent])), uintptr(b.pending-b.sent), 0, 0, 0)
			switch {
			case e == syscall.EAGAIN || e == syscall.EINTR:
				return false // wait until writable
			case e != 0:
				// The first packet of the rest failed (an unreachable
				// client, say): skip it, send the others.
				b.errno = e
				b.sent++
				continue
			}
			b.sent += int(n)
		}
		return true
	}
	for {
		if err := rc.Read(b.recv); err != nil {
			return true, err
		}
		if b.errno != 0 {
			if b.s.isClosed() {
				return true, net.ErrClosed
			}
			s.stats.errors[errRead].Add(1)
			continue
		}
		b.pending, b.sent = 0, 0
		for i := range b.n {
			from, known := sockaddrAddrPort(&b.names[i])
			q := b.bufs[i][:b.in[i].len]
			resp := s.serveUDPQuery(b.answer[b.pending][:0], q, from, known)
			if resp == nil {
				continue
			}
			o := &b.out[b.pending]
			o.hdr.Name = b.in[i].hdr.Name
			o.hdr.Namelen = b.in[i].hdr.Namelen
			b.outIov[b.pending].Base = &b.answer[b.pending][0]
			b.outIov[b.pending].SetLen(len(resp))
			b.pending++
		}
		if b.pending == 0 {
			continue
		}
		b.errno = 0
		if err := rc.Write(b.send); err != nil {
			return true, err
		}
		if b.errno != 0 && !s.isClosed() {
			s.stats.errors[errWrite].Add(1)
		}
	}
}

// sockaddrAddrPort reads a sender's address.
func sockaddrAddrPort(sa *syscall.RawSockaddrAny) (netip.AddrPort, bool) {
	switch sa.Addr.Family {
	case syscall.AF_INET:
		in := (*syscall.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(in.Addr), portOf(in.Port)), true
	case syscall.AF_INET6:
		in := (*syscall.RawSockaddrInet6)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom16(in.Addr), portOf(in.Port)), true
	}
	return netip.AddrPort{}, false
}

// portOf reads a port stored in network byte order.
func portOf(p uint16) uint16 {
	var b [2]byte
	*(*uint16)(unsafe.Pointer(&b[0])) = p
	return binary.BigEndian.Uint16(b[:])
}
