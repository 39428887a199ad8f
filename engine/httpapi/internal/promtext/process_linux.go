package promtext

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of the times in /proc/self/stat (the kernel's
// USER_HZ, 100 on every architecture Go supports).
const userHZ = 100

// RegisterProcess adds the process's metrics, as client_golang's process
// collector names them, read from /proc/self at every write:
// process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_virtual_memory_max_bytes,
// process_start_time_seconds, process_open_fds, process_max_fds and
// process_network_receive_bytes_total / _transmit_ (IpExt's octets of the
// process's network namespace). A value that cannot be read is written as
// NaN. It adds nothing when /proc/self/stat cannot be read (no procfs).
func RegisterProcess(r *Registry) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return
	}
	var p procSnapshot
	r.BeforeWrite(p.read)
	for _, m := range []struct {
		name, help string
		kind       Kind
		v          *float64
	}{
		{"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", KindCounter, &p.cpu},
		{"process_max_fds", "Maximum number of open file descriptors.", KindGauge, &p.maxFDs},
		{"process_network_receive_bytes_total", "Number of bytes received by the process over the network.", KindCounter, &p.netIn},
		{"process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", KindCounter, &p.netOut},
		{"process_open_fds", "Number of open file descriptors.", KindGauge, &p.openFDs},
		{"process_resident_memory_bytes", "Resident memory size in bytes.", KindGauge, &p.rss},
		{"process_start_time_seconds", "Start time of the process since unix epoch in seconds.", KindGauge, &p.start},
		{"process_virtual_memory_bytes", "Virtual memory size in bytes.", KindGauge, &p.vsize},
		{"process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", KindGauge, &p.maxVsize},
	} {
		r.Family(m.name, m.help, m.kind).Func(func() float64 { return *m.v })
	}
}

// procSnapshot is what one write reads from /proc.
type procSnapshot struct {
	cpu, rss, vsize, start, openFDs, maxFDs, maxVsize, netIn, netOut float64
}

func (p *procSnapshot) read() {
	nan := math.NaN()
	*p = procSnapshot{nan, nan, nan, nan, nan, nan, nan, nan, nan}
	if b, err := os.ReadFile("/proc/self/stat"); err == nil {
		if st, ok := parseStat(b); ok {
			p.cpu = float64(st.utime+st.stime) / userHZ
			p.vsize = float64(st.vsize)
			p.rss = float64(st.rss) * float64(os.Getpagesize())
			if b, err := os.ReadFile("/proc/stat"); err == nil {
				if boot, ok := field(b, "btime "); ok {
					p.start = float64(boot) + float64(st.start)/userHZ
				}
			}
		}
	}
	if d, err := os.Open("/proc/self/fd"); err == nil {
		names, err := d.Readdirnames(-1)
		d.Close()
		if err == nil {
			p.openFDs = float64(len(names))
		}
	}
	if b, err := os.ReadFile("/proc/self/limits"); err == nil {
		if n, ok := limit(b, "Max open files"); ok {
			p.maxFDs = n
		}
		if n, ok := limit(b, "Max address space"); ok {
			p.maxVsize = n
		}
	}
	if b, err := os.ReadFile("/proc/self/net/netstat"); err == nil {
		p.netIn, p.netOut = netOctets(b)
	}
}

type procStat struct{ utime, stime, start, vsize, rss uint64 }

// parseStat reads /proc/self/stat: the fields after the command name (in
// parentheses, which may hold anything), state being the third field.
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 22 {
		return procStat{}, false
	}
	var st procStat
	for _, x := range []struct {
		field int // as proc(5) numbers them
		v     *uint64
	}{{14, &st.utime}, {15, &st.stime}, {22, &st.start}, {23, &st.vsize}, {24, &st.rss}} {
		n, err := strconv.ParseUint(f[x.field-3], 10, 64)
		if err != nil {
			return procStat{}, false
		}
		*x.v = n
	}
	return st, true
}

// field returns the number after prefix at the start of a line.
func field(b []byte, prefix string) (uint64, bool) {
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// limit returns the soft limit of a /proc/self/limits line
// ("unlimited" is the largest uint64, as client_golang's procfs reads it).
func limit(b []byte, name string) (float64, bool) {
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			if f[0] == "unlimited" {
				return float64(math.MaxUint64), true
			}
			n, err := strconv.ParseUint(f[0], 10, 64)
			return float64(n), err == nil
		}
	}
	return 0, false
}

// netOctets returns InOctets and OutOctets of the IpExt lines of
// /proc/self/net/netstat (a line of names, then a line of values), NaN
// when absent.
func netOctets(b []byte) (in, out float64) {
	in, out = math.NaN(), math.NaN()
	var names []string
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "IpExt:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if names == nil {
			names = f
			continue
		}
		for i, name := range names {
			if i >= len(f) {
				break
			}
			n, err := strconv.ParseFloat(f[i], 64)
			switch {
			case err != nil:
			case name == "InOctets":
				in = n
			case name == "OutOctets":
				out = n
			}
		}
		break
	}
	return in, out
}
