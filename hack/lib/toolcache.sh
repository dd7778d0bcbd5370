# Sourced by hack/test-assets.sh, hack/test-registry.sh and hack/promtool.sh: the one cache of the tools built from
# the modules pinned in hack/tools. A tool's directory is keyed by its modules' go.mod/go.sum and the Go version, so a
# warm machine pays nothing and a changed pin builds afresh; the build happens in a temporary directory renamed into
# place only when complete, so an interrupted build never leaves a half-filled directory behind.

# toolcache_dir NAME FILE... prints the cache directory of tool NAME for the given pin files.
toolcache_dir() {
	local name=$1
	shift
	local key
	key=$( { cat "$@"; go env GOVERSION; } | sha256sum | cut -c1-16)
	echo "${REGISTRIES_CONTROLLER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/registries-controller}/$name/$key"
}

# toolcache_begin LABEL DIR starts a build for DIR: it creates the temporary build directory $toolcache_tmp, removed
# on exit unless toolcache_commit moved it into place. LABEL prefixes every progress line.
toolcache_begin() {
	toolcache_label=$1
	toolcache_target=$2
	toolcache_start=$SECONDS
	toolcache_ticker=""
	mkdir -p "$(dirname "$toolcache_target")"
	toolcache_tmp=$(mktemp -d "$(dirname "$toolcache_target")/.build-XXXXXX")
	chmod 755 "$toolcache_tmp"
	trap 'rm -rf "$toolcache_tmp"; if [ -n "$toolcache_ticker" ]; then kill "$toolcache_ticker" 2>/dev/null || true; fi' EXIT
}

# toolcache_step STEP CMD... runs CMD, printing a line a minute while it runs, so a long first run is visibly alive.
toolcache_step() {
	local step=$1
	shift
	echo "$toolcache_label: $step" >&2
	(while sleep 60; do echo "$toolcache_label: $step: $((SECONDS - toolcache_start))s so far" >&2; done) &
	toolcache_ticker=$!
	if ! "$@"; then
		echo "$toolcache_label: $step failed" >&2
		return 1
	fi
	kill "$toolcache_ticker" 2>/dev/null || true
	toolcache_ticker=""
	echo "$toolcache_label: $step done at $((SECONDS - toolcache_start))s" >&2
}

# toolcache_commit FILE moves the build into place. Another run may have finished first; both builds are
# equivalent, so the one already in place (which must hold FILE) is kept.
toolcache_commit() {
	echo "$toolcache_label: built in $((SECONDS - toolcache_start))s" >&2
	if ! mv -T "$toolcache_tmp" "$toolcache_target" 2>/dev/null; then
		[ -x "$toolcache_target/$1" ] || { echo "$toolcache_label: cannot move build into $toolcache_target" >&2; exit 1; }
	fi
	trap - EXIT
}
