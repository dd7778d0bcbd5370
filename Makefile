# registries-controller. Every build and test uses the containers_image_openpgp tag, so that
# containers/image's signature package builds without cgo and gpgme.
GO ?= go
export GOFLAGS := $(strip $(GOFLAGS) -tags=containers_image_openpgp)

BIN := _output/bin/registries-controller
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/openshift/registries-controller/pkg/version.Version=$(VERSION)
PKGS := ./...
TEST_TIMEOUT ?= 40m

.PHONY: all build test unit run bench bench-merge bench-controller fuzz verify test-assets crds clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/registries-controller

# test runs every test, against a real kube-apiserver and etcd built from the pinned modules in
# hack/tools (built once, then cached: see hack/test-assets.sh), and the alerts' rule tests with promtool, built
# from the pinned Prometheus module the same way (hack/promtool.sh).
test: build
	KUBEBUILDER_ASSETS="$$(hack/test-assets.sh)" PROMTOOL="$$(hack/promtool.sh)" REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)

# unit runs the tests that need no control plane.
unit:
	$(GO) test -count=1 -short ./pkg/...

# fuzz runs every Go fuzz target of the repository for FUZZTIME each (make test runs only their seeds).
FUZZTIME ?= 60s
fuzz:
	FUZZTIME=$(FUZZTIME) hack/fuzz.sh

run: build
	hack/run.sh $(BIN)

# bench: the merge beside the reference (pkg/registries, medians and ratios by hack/bench-report.sh),
# then the controller against a real control plane (latency, writes per burst, memory, the scale of a disconnected
# cluster: docs/benchmarks.md), with the largest input that fits in one MachineConfig (pkg/render).
BENCHTIME ?= 1s
COUNT ?= 1
bench: bench-merge bench-controller

bench-merge:
	BENCHTIME=$(BENCHTIME) COUNT=$(COUNT) hack/bench-report.sh

bench-controller: build
	$(GO) test -run '^$$' -bench BenchmarkLargestInputThatFits -benchtime 1x ./pkg/render/
	KUBEBUILDER_ASSETS="$$(hack/test-assets.sh)" REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" \
		$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./test/integration/

# verify: gofmt, go vet, vendor/ and test/crds up to date, staticcheck (pinned in hack/tools/staticcheck).
verify:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^vendor/')); \
		if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	hack/verify-vendor.sh
	hack/update-crds.sh --verify
	hack/staticcheck.sh

test-assets:
	@hack/test-assets.sh

crds:
	hack/update-crds.sh

clean:
	rm -rf _output
