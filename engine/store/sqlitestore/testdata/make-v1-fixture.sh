#!/usr/bin/env bash
# Makes the upgrade fixture: a data directory written by numen at commit
# f3e6795 (River v0.31.0, the results log beside SQLite), the version before
# the storage rework. Run from the repository root:
#   engine/store/sqlitestore/testdata/make-v1-fixture.sh engine/store/sqlitestore/testdata/v1-datadir.tgz
# It packs the directory as the killed process left it, the WAL included
# (the results log preallocates 16 MiB segments: sparse, they pack small).
set -euo pipefail
tgz=$(realpath -m "${1:?usage: make-v1-fixture.sh OUT.tgz}")
commit=f3e6795
work=$(mktemp -d)
out=$work/data
trap 'kill $pid 2>/dev/null || true; git worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/src" "$commit"
(cd "$work/src" && go build -o "$work/numen" ./cmd/numen)
port=$((20000 + RANDOM % 20000))
mkdir -p "$out"
cat > "$work/numen.json" <<JSON
{
  "addr": "127.0.0.1:$port",
  "data": "$out",
  "routes": [
    {"route": "GT1", "backends": [{"type": "simnet", "name": "simulator", "seed": 1}]},
    {"route": "GT2", "backends": [{"type": "simnet", "name": "simulator", "seed": 2}]},
    {"route": "DS7", "backends": [{"type": "simnet", "name": "simulator", "seed": 3}]},
    {"route": "MP1", "backends": [{"type": "simnet", "name": "simulator", "seed": 4}]}
  ],
  "bulk": {"rescue_after": "3s", "poll_interval": "POLL"},
  "accounts": [{"key": "fixture", "secrets": ["fixture-secret-0123456789"],
                "webhook_urls": ["http://127.0.0.1:9/results"],
                "routing_map": {"defaultRoute": "GT1"}}]
}
JSON
export NUMEN_URL=http://127.0.0.1:$port/api/v2 NUMEN_KEY=fixture NUMEN_SECRET=fixture-secret-0123456789
serve() { # $1: poll interval
	sed "s/POLL/$1/" "$work/numen.json" > "$work/run.json"
	"$work/numen" serve --config "$work/run.json" > "$work/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do curl -fs "$NUMEN_URL/time" >/dev/null 2>&1 && return; sleep 0.1; done
	echo "numen did not start"; cat "$work/serve.log"; exit 1
}
stop() { kill -TERM "$pid"; wait "$pid" || true; }
call() { # METHOD PATH BODY [Idempotency-Key]: a request signed with digest authentication
	local ts sig
	ts=$(date +%s)
	sig=$(printf '%s' "$2${ts}$1$3" | openssl dgst -sha256 -hmac "$NUMEN_SECRET" | sed 's/^.* //')
	curl -s -X "$1" "$NUMEN_URL$2" -H "X-Digest-Key: $NUMEN_KEY" -H "X-Digest-Timestamp: $ts" \
		-H "X-Digest-Signature: $sig" ${4:+-H "Idempotency-Key: $4"} -d "$3" | tee -a "$work/responses.jsonl"
	echo | tee -a "$work/responses.jsonl"
}

# Phase 1: sync lookups in three reports, and a bulk job that runs, whose
# webhook (port 9, discard: nothing listens) stays pending.
serve 200ms
for n in +4915123456789 +447400123456 +33612345678 +79161234567 +12015550123; do
	call POST /nt-lookup "{\"number\":\"$n\"}"
done
for n in +4915123456780 +393331234567 +34690123456; do
	call POST /hlr-lookup "{\"msisdn\":\"$n\"}"
done
call POST /nt-lookup '{"number":"+4930123456","storage":"FIXTURE-NAMED"}'
call POST /nt-lookups '{"numbers":["+4915111111111","+4915222222222","+447700900123","not a number"]}' fixture-bulk-1
sleep 3
stop
# Phase 2: a bulk job accepted and never run (the workers poll once an
# hour),
serve 1h
call POST /hlr-lookups '{"msisdns":["+4915333333333","+4915444444444"]}' fixture-bulk-2
# and a result acknowledged just before the process is killed, which may
# be in the results log only.
call POST /nt-lookup '{"number":"+4917612345678"}'
kill -KILL "$pid"; wait "$pid" || true
test -s "$out/numen.db-wal" || { echo "no WAL left: the fixture would not be what a killed process leaves"; exit 1; }
(cd "$out" && tar czf "$tgz" --sparse .)
# The answers the fixture's server gave, one JSON object per line: every
# id in them was acknowledged.
grep -v '^$' "$work/responses.jsonl" > "${tgz%.tgz}.responses.jsonl"
echo "fixture in $tgz"
