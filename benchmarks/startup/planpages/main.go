// Command planpages counts the pages of the built-in plan file that a
// process has touched (benchmarks/README.md, "Start-up of the command
// line"): after numbering.Load, then after classifying and formatting
// each number of its arguments, by section, and the heap in use. It reads
// the present bits of /proc/self/pagemap (Linux), so the counts include
// the kernel's fault-around, as peak RSS does.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering"
)

// Sections of the plan file: id, offset, length from the directory (see
// numbering/internal/planfmt).
func sections(b []byte) (names []string, spans [][2]int) {
	all := map[uint32]string{1: "strings", 2: "codes", 3: "automata", 4: "national prefixes", 5: "ranges",
		6: "networks", 7: "geocoding", 8: "time zones", 9: "origin", 10: "dialling", 11: "formats", 12: "short numbers"}
	n := int(binary.LittleEndian.Uint16(b[10:]))
	names, spans = append(names, "header"), append(spans, [2]int{0, 64 + 16*n})
	for i := range n {
		e := b[64+16*i:]
		names = append(names, all[binary.LittleEndian.Uint32(e)])
		spans = append(spans, [2]int{int(binary.LittleEndian.Uint32(e[4:])), int(binary.LittleEndian.Uint32(e[8:]))})
	}
	return names, spans
}

func report(stage string, b []byte) {
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer pm.Close()
	const page = 4096
	base := uintptr(unsafe.Pointer(&b[0])) &^ (page - 1)
	end := uintptr(unsafe.Pointer(&b[0])) + uintptr(len(b))
	present := make([]bool, (end-base+page-1)/page)
	buf := make([]byte, 8*len(present))
	if _, err := pm.ReadAt(buf, int64(base/page*8)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := range present {
		present[i] = binary.LittleEndian.Uint64(buf[8*i:])>>63 == 1
	}
	count := func(off, n int) (c, all int) {
		a := (uintptr(unsafe.Pointer(&b[0])) + uintptr(off) - base) / page
		z := (uintptr(unsafe.Pointer(&b[0])) + uintptr(off+n) - 1 - base) / page
		for p := a; p <= z; p++ {
			if present[p] {
				c++
			}
		}
		return c, int(z - a + 1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c, all := count(0, len(b))
	fmt.Printf("%s: %d of %d pages of the plan (%.2f MiB), heap in use %d KiB\n", stage, c, all, float64(c*page)/(1<<20), ms.HeapInuse>>10)
	names, spans := sections(b)
	for i, s := range spans {
		c, all := count(s[0], s[1])
		fmt.Printf("  %-18s %4d of %4d\n", names[i], c, all)
	}
}

func main() {
	b := data.Plan()
	report("before Load", b)
	plan, err := numbering.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	report("after Load", b)
	var out []byte
	for _, arg := range os.Args[1:] {
		r := plan.ClassifyString(arg)
		out = r.AppendJSON(out[:0])
	}
	report("after nt", b)
	for _, arg := range os.Args[1:] {
		if n, err := plan.Parse(arg); err == nil {
			f, _ := plan.Format(n, numbering.International)
			out = append(out, f...)
		}
	}
	report("after format", b)
	runtime.KeepAlive(out)
}
