#!/usr/bin/env bash
# Runs the merge benchmarks of pkg/registries beside MCO's merge (openshift/runtime-utils) and
# prints, for each benchmark and size (medians of the -count runs): our time, allocations and time per
# source, MCO's time, the ratio ours/MCO, and how our time grows from the previous size
# compared with n log n (growth = (t2/t1) / (n2 log n2 / n1 log n1); at most 1 means no faster than n log n).
#
#   hack/bench-report.sh                      # BENCHTIME=1s COUNT=1
#   BENCHTIME=3x COUNT=3 hack/bench-report.sh
#   REGISTRIES_BENCH_MCO_MAX=50000 hack/bench-report.sh   # also MCO at 50,000 (~40 s per op)
#
#   BENCH_OUTPUT=raw.txt hack/bench-report.sh                  # only tabulate a saved `go test -bench` output
#
# Extra arguments go to `go test`. The raw benchmark output is printed first, on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHTIME=${BENCHTIME:-1s}
COUNT=${COUNT:-1}
GO=${GO:-go}

if [[ -n "${BENCH_OUTPUT:-}" ]]; then
	raw=$BENCH_OUTPUT
else
	raw=$(mktemp)
	trap 'rm -f "$raw"' EXIT
	echo "# $("$GO" version), $(nproc) cores, GOMAXPROCS=${GOMAXPROCS:-default}" >&2
	echo "# $GO test -tags=containers_image_openpgp -run '^\$' -bench BenchmarkMerge -benchmem -benchtime $BENCHTIME -count $COUNT ./pkg/registries $*" >&2
	"$GO" test -tags=containers_image_openpgp -run '^$' -bench 'BenchmarkMerge' -benchmem \
		-benchtime "$BENCHTIME" -count "$COUNT" -timeout 60m ./pkg/registries "$@" | tee "$raw" >&2
fi

awk '
# median of v[k, 1..n] (the runs of -count), robust to a run slowed down by other work on the machine
function median(v, k, n,    i, j, x, a) {
	for (i = 1; i <= n; i++) a[i] = v[k, i]
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmtdur(ns) {
	if (ns >= 1e9) return sprintf("%.2f s", ns / 1e9)
	if (ns >= 1e6) return sprintf("%.1f ms", ns / 1e6)
	if (ns >= 1e3) return sprintf("%.1f µs", ns / 1e3)
	return sprintf("%d ns", ns)
}
/^Benchmark/ && /ns\/op/ {
	split($1, parts, "/")
	bench = parts[1]
	size = parts[2]; sub(/^sources=/, "", size)
	impl = parts[3]; sub(/^impl=/, "", impl); sub(/-[0-9]+$/, "", impl)
	for (i = 3; i < NF; i += 2) {
		if ($(i + 1) == "ns/op") ns = $i
		if ($(i + 1) == "B/op") bytes = $i
		if ($(i + 1) == "allocs/op") allocs = $i
	}
	k = bench SUBSEP size SUBSEP impl
	c = ++cnt[k]; vns[k, c] = ns; vb[k, c] = bytes; va[k, c] = allocs
	if (!(bench in seenb)) { seenb[bench] = 1; benches[++nb] = bench }
	if (!((bench, size) in seens)) { seens[bench, size] = 1; sizes[bench, ++ns_[bench]] = size + 0 }
	if (impl != "ours" && impl != "mco" && !((bench, impl) in seenx)) { seenx[bench, impl] = 1; extras[bench, ++nx[bench]] = impl }
}
END {
	worst = 0
	for (b = 1; b <= nb; b++) {
		bench = benches[b]
		printf "\n%s\n", bench
		printf "| sources | ours | ours allocs | ours memory | MCO | ours/MCO | MCO/ours | ours per source | growth vs n log n |\n"
		printf "|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
		prev = 0
		for (s = 1; s <= ns_[bench]; s++) {
			n = sizes[bench, s]
			ko = bench SUBSEP n SUBSEP "ours"; kr = bench SUBSEP n SUBSEP "mco"
			if (!(ko in cnt)) continue
			t = median(vns, ko, cnt[ko])
			ref = "skipped"; ratio = "-"; speedup = "-"
			if (kr in cnt) {
				r = median(vns, kr, cnt[kr])
				ref = fmtdur(r); ratio = sprintf("%.3f", t / r); speedup = sprintf("%.1fx", r / t)
			}
			growth = "-"
			if (prev > 0) {
				g = (t / prevt) / ((n * log(n)) / (prev * log(prev)))
				growth = sprintf("%.2f", g)
				if (g > worst) { worst = g; worstat = bench " " prev "->" n }
			}
			printf "| %d | %s | %d | %.1f MB | %s | %s | %s | %s | %s |\n", n, fmtdur(t), median(va, ko, cnt[ko]), median(vb, ko, cnt[ko]) / 1e6, ref, ratio, speedup, fmtdur(t / n), growth
			prev = n; prevt = t
		}
		# Other implementations of the same benchmark (e.g. ours-unchanged), beside MCO.
		for (x = 1; x <= nx[bench]; x++) {
			impl = extras[bench, x]
			printf "\n%s, impl=%s\n", bench, impl
			printf "| sources | %s | allocs | memory | MCO | %s/MCO | MCO/%s |\n", impl, impl, impl
			printf "|--:|--:|--:|--:|--:|--:|--:|\n"
			for (s = 1; s <= ns_[bench]; s++) {
				n = sizes[bench, s]
				kx = bench SUBSEP n SUBSEP impl; kr = bench SUBSEP n SUBSEP "mco"
				if (!(kx in cnt)) continue
				t = median(vns, kx, cnt[kx])
				ref = "skipped"; ratio = "-"; speedup = "-"
				if (kr in cnt) { r = median(vns, kr, cnt[kr]); ref = fmtdur(r); ratio = sprintf("%.3f", t / r); speedup = sprintf("%.1fx", r / t) }
				printf "| %d | %s | %d | %.1f MB | %s | %s | %s |\n", n, fmtdur(t), median(va, kx, cnt[kx]), median(vb, kx, cnt[kx]) / 1e6, ref, ratio, speedup
			}
		}
	}
	if (worst > 0) {
		verdict = (worst <= 1.0) ? "no faster than n log n" : (worst <= 1.15 ? "about n log n (within 15%, noise level)" : "FASTER than n log n")
		printf "\nlargest growth factor vs n log n: %.2f (%s): %s\n", worst, worstat, verdict
	}
}
' "$raw"
