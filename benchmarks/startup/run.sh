#!/usr/bin/env bash
# Start-up of the command line (benchmarks/README.md, "Start-up of the
# command line"): start-to-exit wall time and peak RSS of the built numen
# binary for one number, over many runs (medians), beside the numbering
# package alone and a minimal program using phonenumbers, all built the
# same way in the same run.
#
#   benchmarks/startup/run.sh            # from anywhere in the repository
#   RUNS=500 BASE=d5766a7 benchmarks/startup/run.sh
#   benchmarks/startup/run.sh deps       # what each dependency adds
#
# Settings (environment):
#   RUNS    measured runs per program (default 200, after 10 unmeasured)
#   NUMBER  the number classified (default +14155552671)
#   BASE    a git revision: also measure numen built from it ("numen-base")
#   CGO     the CGO_ENABLED values to build numen with (default "1 0": the
#           default go build with a C compiler links the C library for the
#           net package's resolver; 0 is the pure Go, static binary)
#
# "deps" builds the numbering program (benchmarks/startup/numbering) once
# more for each of the packages numen links (a blank import: the package's
# code and its initialisation, nothing called) and prints what each adds.
#
# Binaries are stripped (-trimpath -ldflags='-s -w') and written to a
# temporary directory, removed at exit; measure (benchmarks/startup/measure)
# reads each run's peak RSS from the kernel (ru_maxrss of the child).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RUNS=${RUNS:-200}
NUMBER=${NUMBER:-+14155552671}
CGO=${CGO:-"1 0"}
TMP=$(mktemp -d)
DEPS="$HERE/_deps" # inside the module, so that it builds with go.mod's versions
trap 'rm -rf "$TMP" "$DEPS"' EXIT
cd "$ROOT"

build() { # build OUTPUT PACKAGE [CGO_ENABLED]
	CGO_ENABLED=${3:-0} go build -trimpath -ldflags='-s -w' -o "$1" "$2"
}
measure() { "$TMP/measure" -runs "$RUNS" -- "$@"; }

go build -o "$TMP/measure" ./benchmarks/startup/measure
build "$TMP/numbering" ./benchmarks/startup/numbering
build "$TMP/phonenumbers" ./benchmarks/startup/phonenumbers

if [ "${1:-}" = deps ]; then
	mkdir -p "$DEPS"
	measure "$TMP/numbering" "$NUMBER"
	for pkg in net/http github.com/prometheus/client_golang/prometheus \
		github.com/prometheus/common/expfmt google.golang.org/protobuf/types/known/timestamppb \
		github.com/jackc/pgx/v5 modernc.org/sqlite github.com/riverqueue/river \
		github.com/numenhq/numen/engine/store/sqlitestore github.com/numenhq/numen/engine/store/pgstore \
		github.com/numenhq/numen/engine/httpapi github.com/numenhq/numen/mnp/remote; do
		sed "s#^import (#import (\n\t_ \"$pkg\"#" benchmarks/startup/numbering/main.go >"$DEPS/main.go"
		build "$TMP/with" ./benchmarks/startup/_deps
		echo "numbering + $pkg ($(stat -c %s "$TMP/with") bytes):"
		measure "$TMP/with" "$NUMBER"
	done
	exit 0
fi

echo "# $(go version), $(nproc) CPUs, $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' + changes')"
for cgo in $CGO; do
	build "$TMP/numen-cgo$cgo" ./cmd/numen "$cgo"
	echo "numen, CGO_ENABLED=$cgo: $(stat -c %s "$TMP/numen-cgo$cgo") bytes, $(file -b "$TMP/numen-cgo$cgo" | grep -o 'statically linked\|dynamically linked')"
done
if [ -n "${BASE:-}" ]; then
	git worktree add -q --detach "$TMP/base" "$BASE"
	for cgo in $CGO; do
		(cd "$TMP/base" && build "$TMP/numen-base-cgo$cgo" ./cmd/numen "$cgo")
	done
	git worktree remove --force "$TMP/base"
fi
measure "$TMP/phonenumbers" "$NUMBER"
measure "$TMP/numbering" "$NUMBER"
for cgo in $CGO; do
	for v in numen numen-base; do
		[ -x "$TMP/$v-cgo$cgo" ] || continue
		for args in "nt $NUMBER" "format $NUMBER" "version" "help"; do
			# shellcheck disable=SC2086 # args is a command line
			measure "$TMP/$v-cgo$cgo" $args
		done
	done
done
