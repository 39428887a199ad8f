#!/usr/bin/env bash
# Idle CPU of numen serve (benchmarks/README.md, "Storage"): starts numen
# serve with benchmarks/http/numen-bench.json on SQLite (a temporary data
# directory) and, with PG=1, on PostgreSQL (a server of its own started with
# .ci/postgres), lets each settle for 10 s with no request, and reads the
# CPU time its process uses over SECONDS (default 60) from /proc/PID/stat.
#
#   benchmarks/http/idle.sh            # SQLite
#   PG=1 SECONDS_IDLE=120 benchmarks/http/idle.sh
#
# It prints one line per store: clock ticks used and the share of one core.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECONDS_IDLE=${SECONDS_IDLE:-60}
PG=${PG:-0}
WORK=$(mktemp -d /tmp/numen-idle.XXXXXX)
chmod 755 "$WORK"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$p" 2>/dev/null || true
	done
	[[ -d $WORK/pg ]] && "$ROOT/.ci/postgres" stop "$WORK/pg/cluster" >/dev/null 2>&1
	rm -rf "$WORK"
	return 0
}
trap cleanup EXIT

(cd "$ROOT" && go build -o "$WORK/numen" ./cmd/numen)
TICK=$(getconf CLK_TCK)

# measure NAME ARGS...: start numen serve with ARGS, wait until it answers,
# settle, and print its CPU over SECONDS_IDLE.
measure() {
	local name=$1 port
	shift
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$WORK/numen" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:$port" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	local pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do
		curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
		sleep 0.1
	done
	sleep 10
	local t0 t1
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	sleep "$SECONDS_IDLE"
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	awk -v n="$name" -v a="$t0" -v b="$t1" -v s="$SECONDS_IDLE" -v t="$TICK" \
		'BEGIN { printf "%-10s %4d ticks in %d s: %.2f%% of a core\n", n, b - a, s, 100 * (b - a) / t / s }'
	kill "$pid"
}

echo "# $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD), nproc $(nproc), CLK_TCK $TICK"
measure sqlite --data "$WORK/data"
if [[ $PG == 1 ]]; then
	mkdir -p "$WORK/pg"
	chmod 755 "$WORK/pg"
	url=$("$ROOT/.ci/postgres" start "$WORK/pg/cluster" 2>/dev/null)
	measure postgres --data "$WORK/data-pg" --database "$url"
fi
