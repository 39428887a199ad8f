#!/usr/bin/env bash
# Where a sidecar request's time goes (benchmarks/README.md, "HTTP sidecar
# (numen serve)"): BenchmarkSidecar's full Numen variant (SQLite store on the
# disk, request log to /dev/null, 32 connections) run in process,
#
#   1. with a CPU profile (80,000 requests, about 10 s): CPU seconds per
#      part of the server, the in-process client left out (its goroutines
#      carry the pprof label side=client);
#   2. with an execution trace (20,000 requests): where a request's time
#      goes besides CPU, per request: blocked in the store's Record (waiting
#      for the writer's group and its flush of the results log), and
#      runnable but waiting for a CPU (every goroutine's wait, summed and
#      divided by the requests); and the time in fdatasync per request.
#
#   benchmarks/http/profile.sh            # writes OUT/profile.txt
#   OUT=/tmp/x benchmarks/http/profile.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$ROOT/benchmarks/results/http}
WORK=$(mktemp -d /tmp/numen-http-profile.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
BENCH='Sidecar/server=numen/store=sqlite/log=text/conns=32$'

mkdir -p "$OUT"
(cd "$ROOT" && go test -c -o "$WORK/httpbench.test" ./benchmarks/http)
cd "$WORK"
./httpbench.test -test.run '^$' -test.bench "$BENCH" -test.benchtime 80000x -test.cpuprofile cpu.out >bench-cpu.txt
./httpbench.test -test.run '^$' -test.bench "$BENCH" -test.benchtime 20000x -test.trace trace.out >bench-trace.txt

pp() { go tool pprof -nodefraction=0 -edgefraction=0 "$@" 2>/dev/null; }
pp -tagignore side=client -top -cum -nodecount=100000 httpbench.test cpu.out >server-cum.txt

# cum SECONDS of the function named exactly $1 (server side), 0 if absent.
cum() {
	local v
	v=$(awk -v f="$1" '$6 == f { print $4; exit }' server-cum.txt)
	secs "${v:-0s}"
}
# secs VALUE: pprof's "950ms", "20.10s", "1.5mins" in seconds.
secs() { awk -v v="$1" 'BEGIN { sub(/,$/, "", v); if (v ~ /us$/) { sub(/us$/, "", v); v /= 1e6 } else if (v ~ /ns$/) { sub(/ns$/, "", v); v /= 1e9 } else if (v ~ /hrs$/) { sub(/hrs$/, "", v); v *= 3600 } else if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else if (v ~ /mins$/) { sub(/mins$/, "", v); v *= 60 } else sub(/s$/, "", v); print v + 0 }'; }
line=$(grep -m1 'Showing nodes accounting for' server-cum.txt)
total=$(secs "$(awk '{print $5}' <<<"$line")")                            # server samples
all=$(secs "$(awk '{for (i = 1; i <= NF; i++) if ($i == "total") print $(i - 1)}' <<<"$line")")
client=$(awk -v a="$all" -v t="$total" 'BEGIN { printf "%.2f", a - t }')

{
	echo "# $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD) $(go version | cut -d' ' -f3-), nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
	grep '^Benchmark' bench-cpu.txt
	echo
	echo "CPU profile: ${all} s of samples in all; client ${client} s; server ${total} s (= 100% below)"
	printf '%-58s %8s %7s\n' "part (cumulative, exact function)" "CPU s" "share"
	row() { printf '%-58s %8.2f %6.1f%%\n' "$1" "$2" "$(awk -v a="$2" -v t="$total" 'BEGIN { print 100 * a / t }')"; }
	row "store writer goroutine: sqlitestore.(*Store).write" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).write')"
	row "  duplicate ids: sqlitestore.(*Store).refuseDuplicates" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).refuseDuplicates')"
	row "  write and flush: sqlitestore.(*resultsLog).append" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*resultsLog).append')"
	row "    fdatasync: syscall.Fdatasync" "$(cum 'syscall.Fdatasync')"
	row "store indexer goroutine: sqlitestore.(*Store).index" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).index')"
	row "  INSERT statements: sqlitestore.(*Store).insertRows" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).insertRows')"
	row "  COMMIT: database/sql.(*Tx).Commit" "$(cum 'database/sql.(*Tx).Commit')"
	row "store checkpointer: sqlitestore.(*Store).checkpointer" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).checkpointer')"
	row "HTTP connections: net/http.(*conn).serve" "$(cum 'net/http.(*conn).serve')"
	row "  reading requests: net/http.(*conn).readRequest" "$(cum 'net/http.(*conn).readRequest')"
	row "  writing responses: net/http.(*response).finishRequest" "$(cum 'net/http.(*response).finishRequest')"
	row "  the API handler: httpapi.(*Handler).api" "$(cum 'github.com/numenhq/numen/engine/httpapi.(*Handler).api')"
	row "    body read: httpapi.(*Handler).readBody" "$(cum 'github.com/numenhq/numen/engine/httpapi.(*Handler).readBody')"
	row "    digest auth: auth.(*Verifier).Authenticate" "$(cum 'github.com/numenhq/numen/engine/auth.(*Verifier).Authenticate')"
	row "    request JSON: httpapi.decodeLookup" "$(cum 'github.com/numenhq/numen/engine/httpapi.decodeLookup')"
	row "    lookup: engine.(*Engine).NTLookup" "$(cum 'github.com/numenhq/numen/engine.(*Engine).NTLookup')"
	row "      classification: numbering.(*Plan).ClassifyString" "$(cum 'github.com/numenhq/numen/numbering.(*Plan).ClassifyString')"
	row "      lookup id: engine.(*idSource).next" "$(cum 'github.com/numenhq/numen/engine.(*idSource).next')"
	row "      result object: apiv2.NewNTResult" "$(cum 'github.com/numenhq/numen/engine/apiv2.NewNTResult')"
	row "      result JSON (once): apiv2.(*NTResult).AppendJSON" "$(cum 'github.com/numenhq/numen/engine/apiv2.(*NTResult).AppendJSON')"
	row "      hand-off to the store: sqlitestore.(*Store).Record" "$(cum 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).Record')"
	row "    request log: log/slog.(*TextHandler).Handle" "$(cum 'log/slog.(*TextHandler).Handle')"
	row "    metrics: httpapi.(*Metrics).observeRequest" "$(cum 'github.com/numenhq/numen/engine/httpapi.(*Metrics).observeRequest')"
	row "garbage collector: runtime.gcBgMarkWorker" "$(cum 'runtime.gcBgMarkWorker')"
	row "allocation (everywhere): runtime.mallocgc" "$(cum 'runtime.mallocgc')"
	row "scheduler: runtime.schedule" "$(cum 'runtime.schedule')"
	echo
	n=$(awk '/^Benchmark/ {print $2; exit}' bench-trace.txt)
	echo "Execution trace: $(grep '^Benchmark' bench-trace.txt | awk '{print $2, "requests,", $3/1000, "us each (1 / throughput)"}'); per request:"
	for kind in sync sched syscall; do
		go tool trace -pprof="$kind" trace.out >"$kind.pprof" 2>/dev/null
	done
	# total KIND: all of a trace profile, in seconds; fn KIND NAME: the cum of function NAME.
	total() { secs "$(pp -top -nodecount=1 httpbench.test "$1.pprof" | awk '/Showing nodes accounting for/ { for (i = 1; i <= NF; i++) if ($i == "total") print $(i - 1) }')"; }
	fn() { secs "$(pp -top -cum -nodecount=100000 httpbench.test "$1.pprof" | awk -v f="$2" '$6 == f { print $4; exit }')"; }
	awk -v n="$n" -v rec="$(fn sync 'github.com/numenhq/numen/engine/store/sqlitestore.(*Store).Record')" \
		-v run="$(total sched)" -v fds="$(fn syscall 'syscall.Fdatasync')" 'BEGIN {
		printf "  blocked in Record (group delay, then the flush)     %7.0f us\n", 1e6 * rec / n
		printf "  runnable, waiting for a CPU (all goroutines)        %7.0f us\n", 1e6 * run / n
		printf "  in fdatasync (the writer; shared by a flush group)  %7.0f us\n", 1e6 * fds / n }'
	echo
	echo "Top of the server's CPU profile (cumulative):"
	sed -n '/flat  flat%/,$p' server-cum.txt | head -60
} >"$OUT/profile.txt"
cat "$OUT/profile.txt"
