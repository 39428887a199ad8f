// Command measure runs a program many times and reports the median, minimum
// and maximum of its start-to-exit wall time and of its peak resident set
// size (the kernel's ru_maxrss for the child), for benchmarks/startup/run.sh:
//
//	measure [-runs N] [-warmup N] [-stdin FILE] -- PROGRAM [ARG...]
//
// Standard output and standard error of the program go to /dev/null; a run
// that exits with a non-zero status stops the measurement.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	runs := flag.Int("runs", 200, "measured runs")
	warmup := flag.Int("warmup", 10, "unmeasured runs before them")
	stdin := flag.String("stdin", "", "file given as standard input (default: /dev/null)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: measure [-runs N] [-warmup N] [-stdin FILE] -- PROGRAM [ARG...]")
		os.Exit(2)
	}
	var times []time.Duration
	var rss []int64 // KiB
	for i := range *warmup + *runs {
		d, kib, err := once(flag.Args(), *stdin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "measure: run %d: %v\n", i, err)
			os.Exit(1)
		}
		if i >= *warmup {
			times = append(times, d)
			rss = append(rss, kib)
		}
	}
	slices.Sort(times)
	slices.Sort(rss)
	n := len(times)
	label := strings.Join(append([]string{filepath.Base(flag.Arg(0))}, flag.Args()[1:]...), " ")
	fmt.Printf("%-34s %d runs  time median %6.2f ms (min %.2f, max %.2f)  peak RSS median %5.1f MiB (min %.1f, max %.1f)\n",
		label, n,
		ms(times[n/2]), ms(times[0]), ms(times[n-1]),
		mib(rss[n/2]), mib(rss[0]), mib(rss[n-1]))
}

// once runs args once and returns its wall time from start to exit and its
// peak resident set size in KiB.
func once(args []string, stdin string) (time.Duration, int64, error) {
	cmd := exec.Command(args[0], args[1:]...)
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return 0, 0, err
	}
	defer devnull.Close()
	cmd.Stdout, cmd.Stderr = devnull, devnull
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	d := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, fmt.Errorf("no resource usage for %s", args[0])
	}
	return d, ru.Maxrss, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(kib int64) float64 { return float64(kib) / 1024 }
