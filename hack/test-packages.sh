#!/usr/bin/env bash
# Prints the packages of a test tier, deciding each package's tier from what its tests need, so that a package
# someone adds lands in the right tier without anyone editing a list:
#   integration  its tests start a control plane (framework.Run, framework.RequireAssets or framework.Start):
#                one control plane per package;
#   e2e          no control plane, but the controller binary, a container registry, the image or promtool
#                (framework.ControllerBinary, framework.StartController*, framework.StartRegistry,
#                REGISTRIES_CONTROLLER_BIN, REGISTRIES_CONTROLLER_IMAGE, hack/promtool.sh);
#   unit         nothing of these: the pure packages, which `make unit` runs with the test cache.
# A package whose tests reach one of these parts some other way is caught when it runs: `make unit` sets
# REGISTRIES_CONTROLLER_TEST_TIER=unit, and test/framework then fails every request for a control plane, a binary
# or a registry, naming this script.
#
# The race detector runs the controller's code (the packages of pkg/, and test/integration, which runs the
# controller in-process against a real control plane), each package once: its tier runs it under -race and only
# so. pkg/registries is left out: the merge runs on one goroutine, and its differential tests take ten times longer
# under the detector.
#
# Usage: hack/test-packages.sh unit|integration|e2e [race|plain]   # the tier's packages (race: those run under
#                                                                   # -race; plain: the others)
#        hack/test-packages.sh --list                              # every package with its tier and mode
#        hack/test-packages.sh --check                             # fails unless every package is in one tier
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--tags=containers_image_openpgp}"

module=$(go list -m)

# What a package's test files say about what they need (extended regular expressions).
needs_control_plane='framework\.(Run|RequireAssets|Start)\('
needs_e2e_parts='framework\.(ControllerBinary|StartController[A-Za-z]*|StartTestController|StartRegistry)\(|REGISTRIES_CONTROLLER_(BIN|IMAGE)|hack/promtool\.sh'

# race reports whether package $1 (an import path) runs under the race detector.
race() {
	case $1 in
	"$module/pkg/registries") return 1 ;;
	"$module"/pkg/* | "$module/test/integration") return 0 ;;
	*) return 1 ;;
	esac
}

# classify prints "PACKAGE TIER MODE" for every package of the module.
classify() {
	local pkg dir files tier mode
	while read -r pkg dir files; do
		tier=unit
		if [ -n "$files" ]; then
			# shellcheck disable=SC2086 # the file list is split on purpose
			if (cd "$dir" && grep -Eq "$needs_control_plane" ${files//,/ }); then
				tier=integration
			elif (cd "$dir" && grep -Eq "$needs_e2e_parts" ${files//,/ }); then
				tier=e2e
			fi
		fi
		mode=plain
		if race "$pkg"; then
			mode=race
		fi
		echo "$pkg $tier $mode"
	done < <(go list -f '{{.ImportPath}} {{.Dir}} {{join (.TestGoFiles) ","}}{{if and .TestGoFiles .XTestGoFiles}},{{end}}{{join .XTestGoFiles ","}}' ./...)
}

case "${1:-}" in
--list)
	classify
	;;
--check)
	all=$(go list ./... | sort)
	classified=$(classify)
	missing=$(comm -23 <(echo "$all") <(echo "$classified" | awk '$2 ~ /^(unit|integration|e2e)$/ {print $1}' | sort -u))
	twice=$(echo "$classified" | awk '{print $1}' | sort | uniq -d)
	if [ -n "$missing" ] || [ -n "$twice" ]; then
		echo "hack/test-packages.sh: every package must be in exactly one test tier" >&2
		[ -z "$missing" ] || echo "in no tier: $missing" >&2
		[ -z "$twice" ] || echo "in two tiers: $twice" >&2
		exit 1
	fi
	;;
unit | integration | e2e)
	classify | awk -v tier="$1" -v mode="${2:-}" '$2 == tier && (mode == "" || $3 == mode) {print $1}'
	;;
*)
	echo "usage: $0 unit|integration|e2e [race|plain] | --list | --check" >&2
	exit 2
	;;
esac
