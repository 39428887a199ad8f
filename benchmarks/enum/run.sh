#!/usr/bin/env bash
# Answers per second of Numen's ENUM server (numen serve --enum) against
# Knot DNS (knotd) serving the same records from a zone file, on the same
# machine, measured side by side with dnsperf: ROUNDS rounds, each running
# dnsperf for DURATION seconds against Knot and then against Numen (alternately, so
# that the load of a shared machine falls on both alike). Each run also
# reports the CPU time the server process spent per answer (utime + stime
# from /proc, before and after), which the load of others disturbs less
# than the rate.
#
# The records: NUMBERS valid German mobile numbers (a third ported) in a
# portability database, plus a tenth more of invalid numbers; the zone is
# made from Numen's own answers (benchmarks/enum/gen), so that both answer
# the very same records. Queries go over UDP, without EDNS0, in a shuffled
# order, with CLIENTS clients and dnsperf's default of 100 outstanding.
#
# Needs knotd (Debian knot) and dnsperf (Debian dnsperf); .ci/deps installs
# them.
#
# Usage: benchmarks/enum/run.sh   (ROUNDS=3 DURATION=10 NUMBERS=100000 CLIENTS=4)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${DURATION:-10}
NUMBERS=${NUMBERS:-100000}
CLIENTS=${CLIENTS:-4}
for prog in knotd dnsperf; do
	command -v $prog >/dev/null || { echo "$prog is needed: apt-get install $([ $prog = knotd ] && echo knot || echo dnsperf)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/numen-enum-bench.XXXXXX")
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

# free_port prints a loopback port free for UDP and TCP.
free_port() { python3 -c 'import socket
while True:
    t = socket.socket(); t.bind(("127.0.0.1", 0)); p = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try: u.bind(("127.0.0.1", p))
    except OSError: t.close(); continue
    print(p); break'; }
knot_port=$(free_port)
numen_port=$(free_port)
http_port=$(free_port)

go build -o "$work/numen" ./cmd/numen
go run ./benchmarks/enum/gen -o "$work" -n "$NUMBERS" -port-numen "$numen_port" -port-http "$http_port"

cat >"$work/knot.conf" <<CONF
server:
    listen: 127.0.0.1@$knot_port
    rundir: $work
log:
  - target: stderr
    any: warning
database:
    storage: $work/knotdb
zone:
  - domain: e164.arpa.
    file: $work/zone
    storage: $work
    zonefile-sync: -1
    journal-content: none
CONF
knotd -c "$work/knot.conf" 2>"$work/knot.log" &
pids+=($!)
knot_pid=$!
"$work/numen" serve --config "$work/numen.json" >"$work/numen.out" 2>"$work/numen.log" &
pids+=($!)
numen_pid=$!

# wait_answers waits until the server on port $1 answers the SOA.
wait_answers() {
	for _ in $(seq 200); do
		if dnsperf -s 127.0.0.1 -p "$1" -n 1 -t 1 -d <(echo "e164.arpa. SOA") 2>/dev/null | grep -q 'Queries completed: *1 '; then
			return 0
		fi
		sleep 0.1
	done
	echo "the server on port $1 does not answer" >&2
	cat "$work/knot.log" "$work/numen.log" >&2
	exit 1
}
wait_answers "$knot_port"
wait_answers "$numen_port"

# cpu_ticks prints the process's utime + stime, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# Both once, to warm the caches (not counted).
for port in "$knot_port" "$numen_port"; do
	dnsperf -s 127.0.0.1 -p "$port" -d "$work/queries" -l 2 -c "$CLIENTS" >/dev/null
done

echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $NUMBERS numbers, $ROUNDS rounds of ${SECONDS_EACH}s each, $CLIENTS clients"
printf '%-6s %-6s %12s %10s %14s\n' round server answers/s lost 'CPU µs/answer'
declare -A all
for round in $(seq "$ROUNDS"); do
	for server in knot numen; do
		if [ $server = knot ]; then port=$knot_port pid=$knot_pid; else port=$numen_port pid=$numen_pid; fi
		before=$(cpu_ticks "$pid")
		out=$(dnsperf -s 127.0.0.1 -p "$port" -d "$work/queries" -l "$SECONDS_EACH" -c "$CLIENTS")
		after=$(cpu_ticks "$pid")
		qps=$(awk '/Queries per second:/ {printf "%.0f", $4}' <<<"$out")
		completed=$(awk '/Queries completed:/ {print $3}' <<<"$out")
		lost=$(awk '/Queries lost:/ {print $3}' <<<"$out")
		cpu=$(awk -v t=$((after - before)) -v hz="$hz" -v n="$completed" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
		printf '%-6s %-6s %12s %10s %14s\n' "$round" "$server" "$qps" "$lost" "$cpu"
		all[$server]+="$qps "
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo
printf 'median answers/s: knot %s, numen %s\n' "$(median <<<"${all[knot]}")" "$(median <<<"${all[numen]}")"
grep -h 'Response codes' <(dnsperf -s 127.0.0.1 -p "$knot_port" -d "$work/queries" -n 1 -c 1) <(dnsperf -s 127.0.0.1 -p "$numen_port" -d "$work/queries" -n 1 -c 1) | sed 's/^ */response codes (knot, then numen): /'
