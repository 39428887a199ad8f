#!/usr/bin/env bash
# HTTP sidecar benchmark (benchmarks/README.md, "HTTP sidecar (numen serve)"):
# wrk on loopback against `numen serve` (POST /api/v2/nt-lookup, basic
# authentication, every result committed to SQLite) and against a bare
# net/http "hello" server, interleaved, several runs each.
#
#   benchmarks/http/run.sh                 # from anywhere in the repository
#   RUNS=5 DURATION=15 CONNS="32 64" TMPFS=1 OUT=/tmp/x benchmarks/http/run.sh
#
# Settings (environment):
#   RUNS      runs per server and connection count (default 5)
#   DURATION  seconds per wrk run (default 15; at most 20: a digest signature
#             is valid for 30 s and is made right before each run)
#   CONNS     wrk connection counts (default "32 64 128"); THREADS wrk threads (2)
#   TMPFS     1: also run a second numen whose database is on /dev/shm, where
#             fsync costs nothing (a measurement of the disk's share, not a
#             deployment)
#   PG        1: also run numen on PostgreSQL ("numen-pg", --database), a
#             server of its own started with .ci/postgres on this machine
#   BASE      a git revision: also run numen built from it ("numen-base"),
#             interleaved with the others, to compare two versions on a
#             machine whose pace drifts; with PG=1 also on PostgreSQL
#             ("numen-base-pg", a database of its own in the same server)
#   NUMEN_LOG where numen's request log (stderr, one slog line per request)
#             goes; default /dev/null
#   OUT       directory of the raw outputs (default benchmarks/results/http)
#
# It installs wrk with apt-get only when it is missing, builds both servers
# into a temporary directory, starts them on free 127.0.0.1 ports, checks a
# signed request with curl, runs wrk, writes every wrk output, the servers'
# metrics and a summary (medians) to OUT, and stops the servers it started.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${RUNS:-5}
DURATION=${DURATION:-15}
CONNS=${CONNS:-"32 64 128"}
THREADS=${THREADS:-2}
TMPFS=${TMPFS:-0}
PG=${PG:-0}
BASE=${BASE:-}
NUMEN_LOG=${NUMEN_LOG:-/dev/null}
OUT=${OUT:-$ROOT/benchmarks/results/http}

KEY=bench-key                   # numen-bench.json
SECRET=bench-secret-0123456789  # numen-bench.json
API_PATH=/nt-lookup
BODY='{"number":"+44 20 7946 0000"}'

if (( DURATION > 20 )); then
	echo "run.sh: DURATION=$DURATION: at most 20 s, or the signature expires during the run" >&2
	exit 2
fi

if ! command -v wrk >/dev/null; then
	echo "run.sh: installing wrk" >&2
	apt-get update -qq && apt-get install -y -qq wrk >/dev/null
fi
for tool in curl openssl go; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is required" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/numen-http-bench.XXXXXX)
SHM=""
declare -A PID PORT DATA
cleanup() {
	for name in "${!PID[@]}"; do
		local p=${PID[$name]}
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[[ -d $WORK/pg ]] && "$ROOT/.ci/postgres" stop "$WORK/pg/cluster" >/dev/null 2>&1
	rm -rf "$WORK"
	[[ -n $SHM ]] && rm -rf "$SHM"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port sets PORT[$1] to a 127.0.0.1 port nothing listens on, from
# NEXT_PORT up. Each server is started and up before the next port is
# chosen.
NEXT_PORT=18080
free_port() {
	local p
	for p in $(seq "$NEXT_PORT" $((NEXT_PORT + 200))); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			NEXT_PORT=$((p + 1))
			PORT[$1]=$p
			return
		fi
	done
	echo "run.sh: no free port" >&2
	exit 1
}

# wait_up NAME URL: poll until URL answers 200, at most 10 s, while the
# server NAME runs.
wait_up() {
	for _ in $(seq 50); do
		kill -0 "${PID[$1]}" 2>/dev/null || { echo "run.sh: $1 exited (see its output in $WORK)" >&2; exit 1; }
		[[ $(curl -s -o /dev/null -w '%{http_code}' "$2" || true) == 200 ]] && return 0
		sleep 0.2
	done
	echo "run.sh: $1 did not come up at $2" >&2
	exit 1
}

# sign: TS and SIG for one POST of BODY to API_PATH, now (engine/auth).
sign() {
	TS=$(date +%s)
	SIG=$(printf '%s' "${API_PATH}${TS}POST${BODY}" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.* //')
}

echo "run.sh: building into $WORK" >&2
(cd "$ROOT" && go build -o "$WORK/numen" ./cmd/numen && go build -o "$WORK/bare" ./benchmarks/http/bare)
if [[ -n $BASE ]]; then
	mkdir "$WORK/base-src"
	git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/base-src"
	(cd "$WORK/base-src" && go build -o "$WORK/numen-base" ./cmd/numen)
fi

SERIES="bare numen"
free_port bare
"$WORK/bare" --addr "127.0.0.1:${PORT[bare]}" >"$WORK/bare.out" 2>&1 &
PID[bare]=$!
wait_up bare "http://127.0.0.1:${PORT[bare]}/"
free_port numen
DATA[numen]=$WORK/data
"$WORK/numen" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:${PORT[numen]}" \
	--data "${DATA[numen]}" >"$WORK/numen.out" 2>"$NUMEN_LOG" &
PID[numen]=$!
wait_up numen "http://127.0.0.1:${PORT[numen]}/healthz"
if [[ $TMPFS == 1 ]]; then
	SHM=$(mktemp -d /dev/shm/numen-http-bench.XXXXXX)
	SERIES="$SERIES numen-tmpfs"
	free_port numen-tmpfs
	DATA[numen-tmpfs]=$SHM/data
	"$WORK/numen" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:${PORT[numen-tmpfs]}" \
		--data "${DATA[numen-tmpfs]}" >"$WORK/numen-tmpfs.out" 2>"$NUMEN_LOG" &
	PID[numen-tmpfs]=$!
	wait_up numen-tmpfs "http://127.0.0.1:${PORT[numen-tmpfs]}/healthz"
fi

if [[ $PG == 1 ]]; then
	mkdir -p "$WORK/pg" "$WORK/data-pg"
	chmod 755 "$WORK" "$WORK/pg"
	PGURL=$("$ROOT/.ci/postgres" start "$WORK/pg/cluster")
	SERIES="$SERIES numen-pg"
	free_port numen-pg
	DATA[numen-pg]=$WORK/data-pg
	"$WORK/numen" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:${PORT[numen-pg]}" \
		--data "${DATA[numen-pg]}" --database "$PGURL" >"$WORK/numen-pg.out" 2>"$NUMEN_LOG" &
	PID[numen-pg]=$!
	wait_up numen-pg "http://127.0.0.1:${PORT[numen-pg]}/healthz"
fi

if [[ -n $BASE ]]; then
	SERIES="$SERIES numen-base"
	free_port numen-base
	DATA[numen-base]=$WORK/data-base
	"$WORK/numen-base" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:${PORT[numen-base]}" \
		--data "${DATA[numen-base]}" >"$WORK/numen-base.out" 2>"$NUMEN_LOG" &
	PID[numen-base]=$!
	wait_up numen-base "http://127.0.0.1:${PORT[numen-base]}/healthz"
	if [[ $PG == 1 ]]; then
		# The base revision on a database of its own in the same cluster.
		psql "$PGURL" -qc 'CREATE DATABASE numen_base'
		BASEURL=$(printf %s "$PGURL" | sed "s,/numen?,/numen_base?,")
		SERIES="$SERIES numen-base-pg"
		free_port numen-base-pg
		DATA[numen-base-pg]=$WORK/data-base-pg
		mkdir -p "${DATA[numen-base-pg]}"
		"$WORK/numen-base" serve --config "$HERE/numen-bench.json" --addr "127.0.0.1:${PORT[numen-base-pg]}" \
			--data "${DATA[numen-base-pg]}" --database "$BASEURL" >"$WORK/numen-base-pg.out" 2>"$NUMEN_LOG" &
		PID[numen-base-pg]=$!
		wait_up numen-base-pg "http://127.0.0.1:${PORT[numen-base-pg]}/healthz"
	fi
fi

url() { echo "http://127.0.0.1:${PORT[$1]}/api/v2${API_PATH}"; }

mkdir -p "$OUT"
rm -f "$OUT"/wrk-*.txt "$OUT"/summary.tsv "$OUT"/summary.txt "$OUT"/metrics-*.txt "$OUT"/check.txt

# The request, checked with curl: 200 and an NT result; a wrong signature
# is refused (so the runs below do authenticate).
sign
{
	echo "# $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD) $(go version | cut -d' ' -f3-)"
	[[ -z $BASE ]] || echo "# numen-base: commit $(git -C "$ROOT" rev-parse --short "$BASE")"
	echo "# $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2), nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
	echo "# numen stderr (request log) -> $NUMEN_LOG"
	echo "\$ curl $(url bare) (same request)"
	curl -sS -w 'HTTP %{http_code}\n' "$(url bare)" -H "Content-Type: application/json" \
		-H "X-Digest-Key: $KEY" -H "X-Digest-Timestamp: $TS" -H "X-Digest-Signature: $SIG" -d "$BODY"
	for s in $SERIES; do
		[[ $s == bare ]] && continue
		echo "# $s: $(head -1 "$WORK/$s.out"); file system $(df -T "${DATA[$s]}" | awk 'NR==2{print $2}')"
		echo "\$ curl $(url "$s") (signed, X-Digest-Timestamp $TS)"
		curl -sS -w '\nHTTP %{http_code}\n' "$(url "$s")" -H "Content-Type: application/json" \
			-H "X-Digest-Key: $KEY" -H "X-Digest-Timestamp: $TS" -H "X-Digest-Signature: $SIG" -d "$BODY"
		echo "\$ curl $(url "$s") (signature of another body)"
		curl -sS -w '\nHTTP %{http_code}\n' "$(url "$s")" -H "Content-Type: application/json" \
			-H "X-Digest-Key: $KEY" -H "X-Digest-Timestamp: $TS" -H "X-Digest-Signature: $SIG" -d '{"number":"+1"}'
	done
} >"$OUT/check.txt"
for s in $SERIES; do
	[[ $s == bare ]] && continue
	awk -v u="$(url "$s")" '$0 ~ /^\$ curl / {cur = ($3 == u)} cur' "$OUT/check.txt" >"$WORK/check-$s.txt"
	grep -q '"query_status":"OK"' "$WORK/check-$s.txt" && grep -q '^HTTP 200$' "$WORK/check-$s.txt" &&
		grep -q '^HTTP 401$' "$WORK/check-$s.txt" || {
		echo "run.sh: $s: the signed request did not give 200 and an NT result, or a wrong signature was not refused (see $OUT/check.txt)" >&2
		exit 1
	}
done
cat "$OUT/check.txt" >&2

# runwrk SERVER CONNS SECONDS FILE: one wrk run, with basic authentication
# (post.lua: a digest signature is refused when replayed).
runwrk() {
	BENCH_BODY=$BODY BENCH_AUTH="Basic $(printf '%s:%s' "$KEY" "$SECRET" | base64 -w0)" \
		timeout $(($3 + 20)) wrk -t"$THREADS" -c"$2" -d"$3s" --latency -s "$HERE/post.lua" "$(url "$1")" >"$4"
}

# to_ms VALUE: wrk's "455.00us", "3.28ms", "1.02s" in milliseconds.
to_ms() {
	awk -v v="$1" 'BEGIN {
		if (v ~ /us$/) { sub(/us$/, "", v); printf "%.3f", v / 1000 }
		else if (v ~ /ms$/) { sub(/ms$/, "", v); printf "%.3f", v }
		else if (v ~ /m$/) { sub(/m$/, "", v); printf "%.3f", v * 60000 }
		else { sub(/s$/, "", v); printf "%.3f", v * 1000 } }'
}

echo "run.sh: warm-up (5 s per server, not recorded)" >&2
for s in $SERIES; do runwrk "$s" 32 5 "$WORK/warmup-$s.txt"; done

# cpustat: steal and total jiffies of all CPUs so far (/proc/stat). Steal is
# the time the hypervisor gave this VM's CPUs to others: a run with much of
# it measured a slower machine.
cpustat() { awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# proctime SERVER: the CPU time (user and system, clock ticks) the server's
# process has used so far.
proctime() { awk '{ print $14 + $15 }' "/proc/${PID[$1]}/stat"; }
# pgtime: the CPU time of the PostgreSQL server of numen-pg (the postmaster
# and its backends), 0 without one: numen-pg's requests cost it too.
pgtime() {
	local pm
	pm=$(head -1 "$WORK/pg/cluster/data/postmaster.pid" 2>/dev/null) || { echo 0; return; }
	{ echo "$pm"; pgrep -P "$pm"; } | while read -r p; do awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null; done | awk '{ t += $1 } END { print t + 0 }'
}
TICK=$(getconf CLK_TCK)

printf 'server\tconns\trun\trps\tp50_ms\tp99_ms\tnon2xx\tsocket_errors\tload1\tsteal_pct\tcpu_us_per_req\tdb_cpu_us_per_req\n' >"$OUT/summary.tsv"
for c in $CONNS; do
	for i in $(seq "$RUNS"); do
		for s in $SERIES; do
			f="$OUT/wrk-$s-c$c-run$i.txt"
			load=$(cut -d' ' -f1 /proc/loadavg)
			before=$(cpustat) cpu0=$(proctime "$s") db0=$(pgtime)
			runwrk "$s" "$c" "$DURATION" "$f"
			steal=$(echo "$before $(cpustat)" | awk '{ printf "%.1f", 100 * ($3 - $1) / ($4 - $2) }')
			# The server's CPU time per request: what it costs, whatever
			# share of the machine it got.
			cpu=$(awk -v a="$cpu0" -v b="$(proctime "$s")" -v t="$TICK" '/requests in/ { printf "%.0f", 1e6 * (b - a) / t / $1 }' "$f")
			db=0
			if [[ $s == numen-pg || $s == numen-base-pg ]]; then
				db=$(awk -v a="$db0" -v b="$(pgtime)" -v t="$TICK" '/requests in/ { printf "%.0f", 1e6 * (b - a) / t / $1 }' "$f")
			fi
			rps=$(awk '/^Requests\/sec:/ {print $2}' "$f")
			p50=$(to_ms "$(awk '$1 == "50%" {print $2}' "$f")")
			p99=$(to_ms "$(awk '$1 == "99%" {print $2}' "$f")")
			non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$f")
			sockerr=$(awk '/Socket errors:/ {sub(/.*Socket errors: /, ""); print}' "$f")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$c" "$i" "$rps" "$p50" "$p99" \
				"${non2xx:-0}" "${sockerr:-none}" "$load" "$steal" "$cpu" "$db" | tee -a "$OUT/summary.tsv" >&2
		done
	done
done

for s in $SERIES; do
	[[ $s == bare ]] && continue
	curl -s "http://127.0.0.1:${PORT[$s]}/metrics" | grep -E '^numen_(http_requests_total|lookups_total|auth_failures_total)' >"$OUT/metrics-$s.txt"
	if [[ $s == numen-pg || $s == numen-base-pg ]]; then
		url=$PGURL
		[[ $s == numen-pg ]] || url=$BASEURL
		psql "$url" -Atc "SELECT 'database ' || pg_database_size(current_database()) || ' bytes, ' || (SELECT count(*) FROM results) || ' results'" >>"$OUT/metrics-$s.txt"
	else
		(cd "${DATA[$s]}" && du -b numen.db* results-log) >>"$OUT/metrics-$s.txt"
	fi
done

# Medians per server and connection count, and numen's ratio to bare.
awk -F'\t' '
	NR == 1 { next }
	{ k = $1 SUBSEP $2; n[k]++; rps[k, n[k]] = $4; p50[k, n[k]] = $5; p99[k, n[k]] = $6; bad[k] += $7
	  cpu[k, n[k]] = $11; steal[k, n[k]] = $10; dbcpu[k, n[k]] = $12
	  if ($8 != "none") serr[k]++; servers[$1] = 1; conns[$2] = 1 }
	function median(a, k, m,    i, j, t, v) {
		for (i = 1; i <= m; i++) v[i] = a[k, i] + 0
		for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	END {
		printf "%-12s %6s %5s %12s %9s %9s %10s %8s %13s %13s %8s %14s\n", "server", "conns", "runs", "median rps", "p50 ms", "p99 ms", "vs bare", "non-2xx", "socket errs", "CPU us/req", "steal%", "db CPU us/req"
		for (c in conns) for (s in servers) {
			k = s SUBSEP c; if (!(k in n)) continue
			med[k] = median(rps, k, n[k])
		}
		for (c in conns) for (s in servers) {
			k = s SUBSEP c; if (!(k in n)) continue
			b = (("bare" SUBSEP c) in med) ? sprintf("%.1f%%", 100 * med[k] / med["bare" SUBSEP c]) : "-"
			printf "%-12s %6s %5d %12.0f %9.2f %9.2f %10s %8d %13d %13.0f %8.1f %14.0f\n", s, c, n[k], med[k], median(p50, k, n[k]), median(p99, k, n[k]), b, bad[k], serr[k], median(cpu, k, n[k]), median(steal, k, n[k]), median(dbcpu, k, n[k])
		}
	}' "$OUT/summary.tsv" | (read -r h; echo "$h"; sort -k2,2n -k1,1) >"$OUT/summary.txt"
cat "$OUT/summary.txt"
if awk -F'\t' 'NR > 1 && ($7 != 0 || $8 != "none") {bad = 1} END {exit !bad}' "$OUT/summary.tsv"; then
	echo "run.sh: some runs had non-2xx responses or socket errors (summary.tsv)" >&2
	exit 1
fi
