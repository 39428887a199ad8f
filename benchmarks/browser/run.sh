#!/usr/bin/env bash
# Runs the browser benchmarks (BenchmarkReady, BenchmarkReadySlowLink,
# BenchmarkClassify, BenchmarkCheck, ...: Numen and libphonenumber-js/max
# in one page of headless Chromium) COUNT times, writes them to
# benchmarks/results/browser.txt and compares the two libraries with benchstat; then prints the sizes of the
# browser package, built as go run ./wasm/build builds it, with wasm-opt
# -O1 (Debian's binaryen) and without, into benchmarks/results/browser-sizes.txt.
# Usage: benchmarks/browser/run.sh [COUNT]   (default 6)
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-6}
.ci/deps
if ! command -v wasm-opt >/dev/null 2>&1; then
	echo "run.sh: installing binaryen (wasm-opt) for the optimized size" >&2
	sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends binaryen >&2
fi
benchstat=(go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

go test ./benchmarks/browser -run '^$' -bench . -count "$count" | tee benchmarks/results/browser.txt
"${benchstat[@]}" -col /lib benchmarks/results/browser.txt

{
	echo "# go run ./wasm/build -no-wasm-opt"
	go run ./wasm/build -no-wasm-opt -o "$out/plain"
	echo
	echo "# go run ./wasm/build   (wasm-opt $(wasm-opt --version | awk '{print $3}'))"
	go run ./wasm/build -o "$out/opt"
} 2>/dev/null | grep -v '^wrote ' | tee benchmarks/results/browser-sizes.txt
