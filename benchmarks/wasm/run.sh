#!/usr/bin/env bash
# Measures numbering built for the browser (GOOS=js GOARCH=wasm): the size
# of the module (raw and gzip -9) and its start in Node (load, open the
# plan, classify three numbers, exit), for three plans embedded:
#   core  - validity, type, country, original network and its MCCMNC: the
#           plan without geocoding, time zones and the MCC-MNC list
#           (go run ./data/gen -strip geocoding,timezones,networks)
#   +list - core and the MCC-MNC list (Plan.Network: names of ported-to
#           networks)
#   full  - data/numbering/plan.bin as the server embeds it
# and, for reference, hello: a program that only writes a line (what the Go
# runtime alone costs).
# Usage: benchmarks/wasm/run.sh [RUNS]   (starts per variant, default 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-10}
out=$(mktemp -d)
trap 'rm -rf "$out" benchmarks/wasm/classify/plan.bin' EXIT
node_exec="$(go env GOROOT)/lib/wasm/wasm_exec_node.js"

# measure WASM: prints raw and gzip sizes and the median start in Node.
measure() {
	local wasm=$1 times=() start
	for _ in $(seq "$runs"); do
		start=$(date +%s%N)
		node "$node_exec" "$wasm" "+49 151 23456789" "+44 20 7946 0000" "+1 650 253 0000" > "$out/answer.txt"
		times+=($(( ($(date +%s%N) - start) / 1000000 )))
	done
	printf '%12d %12d %11d ms' "$(stat -c %s "$wasm")" "$(gzip -9 -c "$wasm" | wc -c)" \
		"$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}

printf '%-7s %12s %12s %14s  %s\n' variant "wasm bytes" "gzip -9" "node start (median of $runs)" "plan bytes"
mkdir -p "$out/hello"
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' > "$out/hello/main.go"
printf 'module hello\n\ngo 1.26\n' > "$out/hello/go.mod"
(cd "$out/hello" && GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o "$out/hello.wasm" .)
printf '%-7s %s\n' hello "$(measure "$out/hello.wasm")"
for variant in core +list full; do
	case $variant in
	core) go run ./data/gen -strip geocoding,timezones,networks -o benchmarks/wasm/classify/plan.bin 2>/dev/null ;;
	+list) go run ./data/gen -strip geocoding,timezones -o benchmarks/wasm/classify/plan.bin 2>/dev/null ;;
	full) cp data/numbering/plan.bin benchmarks/wasm/classify/plan.bin ;;
	esac
	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o "$out/$variant.wasm" ./benchmarks/wasm/classify
	line=$(measure "$out/$variant.wasm")
	grep -q '"original_network_name":"T-Mobile"' "$out/answer.txt" || { echo "$variant: wrong answer:"; cat "$out/answer.txt"; exit 1; }
	printf '%-7s %s  %d\n' "$variant" "$line" "$(stat -c %s benchmarks/wasm/classify/plan.bin)"
done
