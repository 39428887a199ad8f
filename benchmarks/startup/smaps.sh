#!/usr/bin/env bash
# What a numbering command holds resident, by mapping (benchmarks/README.md,
# "Issue 33: start-up of the numbering commands"): runs PROGRAM ARG... with
# standard input a pipe, writes NUMBER (default +4915123456789) to it, keeps
# it open while it reads /proc/PID/smaps (the command has answered and
# waits for more), then closes it. Prints KiB resident: code (r-xp), read-only
# data (r--p), the binary's writable data (rw-p, file) and anonymous memory
# (heap, stacks, runtime), and the total (VmRSS).
#
#   benchmarks/startup/smaps.sh /tmp/numen nt
#   NUMBER=112 benchmarks/startup/smaps.sh /tmp/numen short --country DE
set -euo pipefail
NUMBER=${NUMBER:-+4915123456789}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
mkfifo "$DIR/in"
"$@" <"$DIR/in" >"$DIR/out" &
pid=$!
exec 3>"$DIR/in"
echo "$NUMBER" >&3
for _ in $(seq 100); do # until the answer is written (at most 5 s)
	[ -s "$DIR/out" ] && break
	sleep 0.05
done
sleep 0.1
awk -v prog="$(basename "$1")" '
/^[0-9a-f]+-[0-9a-f]+ / { perm = $2; file = ($6 != "" && $6 !~ /^\[/) }
/^Rss:/ {
	if (file && perm == "r-xp") code += $2
	else if (file && perm == "r--p") ro += $2
	else if (file && perm == "rw-p") data += $2
	else anon += $2
	total += $2
}
END { printf "%-10s code %5d  rodata %5d  data %5d  anon %5d  total %5d KiB\n", prog, code, ro, data, anon, total }
' "/proc/$pid/smaps"
exec 3>&-
wait "$pid"
