#!/usr/bin/env bash
# Runs every Go fuzz target of the repository for FUZZTIME each (a go test -fuzztime value, default 60s), one
# after the other, and prints a summary line per target. Targets are found with `go test -list '^Fuzz'` in every
# package whose tests declare one, nested modules (test/kubeletcreds) included, each run from its own module, so a
# new target is picked up without editing this file. New interesting
# inputs go to Go's fuzz cache; a failing input is written to the package's testdata/fuzz/ (commit it: it then
# runs as a seed in make test). Exits 1 when a target failed.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-60s}"
case " ${GOFLAGS:-} " in
*containers_image_openpgp*) ;;
*) export GOFLAGS="${GOFLAGS:-} -tags=containers_image_openpgp" ;;
esac

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
mapfile -t dirs < <(git ls-files '*_test.go' | grep -v '^vendor/' | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sort -u)
summary=()
failed=0
start=$SECONDS
# module prints the directory of the go.mod that owns dir (the repository's root or a nested module).
module() {
	local d="$1"
	while [[ "$d" != . && ! -f "$d/go.mod" ]]; do d="$(dirname "$d")"; done
	echo "$d"
}
for dir in "${dirs[@]}"; do
	mod="$(module "$dir")"
	# the package's path as its own module sees it
	if [[ "$mod" == . ]]; then pkg="./$dir"; elif [[ "$dir" == "$mod" ]]; then pkg=.; else pkg="./${dir#"$mod"/}"; fi
	# -short: packages that need a control plane skip instead of starting one just to list their targets.
	for target in $(go test -C "$mod" -short -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== ./$dir $target for $FUZZTIME"
		status=ok
		if ! go test -C "$mod" -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$log"; then
			status=FAILED
			failed=1
		fi
		last="$(grep -o 'elapsed: [^,]*, execs: [0-9]*' "$log" | tail -1 || true)"
		summary+=("./$dir $target: $status ($last)")
	done
done
echo
echo "fuzzing: ${#summary[@]} targets, $((SECONDS - start))s in all"
printf '  %s\n' "${summary[@]}"
exit "$failed"
