#!/usr/bin/env bash
# Runs staticcheck, pinned in hack/tools/staticcheck/go.mod, on every package (make verify). Its findings fail
# the run. The binary is built into _output/bin from the tool module (the Go build cache makes rebuilds quick).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/_output/bin/staticcheck"
mkdir -p "$root/_output/bin"
(cd "$root/hack/tools/staticcheck" && GOFLAGS= go build -o "$bin" honnef.co/go/tools/cmd/staticcheck)
cd "$root"
"$bin" -version >&2
"$bin" -tags containers_image_openpgp ./...
