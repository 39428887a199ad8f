package enumtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Relay passes DNS messages between clients and a server, over UDP and
// TCP on one loopback port, holding each answer back for a delay: a slow
// or distant server, for timeout tests.
type Relay struct {
	addr   string
	target string
	delay  atomic.Int64
	udp    net.PacketConn
	tcp    net.Listener
	wg     sync.WaitGroup
	done   chan struct{}
}

// StartRelay starts a relay to target ("127.0.0.1:PORT", UDP and TCP)
// that delays every answer by delay. Cleanup stops it.
func StartRelay(t testing.TB, target string, delay time.Duration) *Relay {
	t.Helper()
	r := &Relay{target: target, done: make(chan struct{})}
	r.delay.Store(int64(delay))
	var err error
	for range 50 {
		if r.udp, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		r.addr = r.udp.LocalAddr().String()
		if r.tcp, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		r.udp.Close()
	}
	if err != nil {
		t.Fatalf("enumtest: relay: no port free for both UDP and TCP: %v", err)
	}
	r.wg.Add(2)
	go r.serveUDP()
	go r.serveTCP()
	t.Cleanup(r.close)
	return r
}

// Addr returns the relay's address, "127.0.0.1:PORT", UDP and TCP.
func (r *Relay) Addr() string { return r.addr }

// SetDelay changes the delay of answers from now on.
func (r *Relay) SetDelay(d time.Duration) { r.delay.Store(int64(d)) }

func (r *Relay) close() {
	close(r.done)
	r.udp.Close()
	r.tcp.Close()
	r.wg.Wait()
}

func (r *Relay) wait() bool {
	select {
	case <-time.After(time.Duration(r.delay.Load())):
		return true
	case <-r.done:
		return false
	}
}

func (r *Relay) serveUDP() {
	defer r.wg.Done()
	buf := make([]byte, 65535)
	for {
		n, from, err := r.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		query := append([]byte(nil), buf[:n]...)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			up, err := net.Dial("udp", r.target)
			if err != nil {
				return
			}
			defer up.Close()
			if _, err := up.Write(query); err != nil {
				return
			}
			_ = up.SetReadDeadline(time.Now().Add(5 * time.Second))
			answer := make([]byte, 65535)
			n, err := up.Read(answer)
			if err != nil || !r.wait() {
				return
			}
			_, _ = r.udp.WriteTo(answer[:n], from)
		}()
	}
}

func (r *Relay) serveTCP() {
	defer r.wg.Done()
	for {
		c, err := r.tcp.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer c.Close()
			up, err := net.Dial("tcp", r.target)
			if err != nil {
				return
			}
			defer up.Close()
			go func() { _, _ = io.Copy(up, c) }()
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				select {
				case <-r.done:
					c.Close()
					up.Close()
				case <-stop:
				}
			}()
			_ = up.SetReadDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 65535)
			n, err := up.Read(buf)
			if err != nil || !r.wait() {
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
			_, _ = io.Copy(c, up)
		}()
	}
}
