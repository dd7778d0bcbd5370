# registries-controller. Every build and test uses the containers_image_openpgp tag, so that
# containers/image's signature package builds without cgo and gpgme.
GO ?= go
export GOFLAGS := $(strip $(GOFLAGS) -tags=containers_image_openpgp)

BIN := _output/bin/registries-controller
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Expanded once: a commit during a long run must not give the image's binary and its label different versions.
VERSION := $(VERSION)
LDFLAGS := -X github.com/openshift/registries-controller/pkg/version.Version=$(VERSION)
PKGS := ./...
TEST_TIMEOUT ?= 40m

.PHONY: all build image image-binary test test-kubelet test-race unit run bench bench-merge bench-controller fuzz verify \
	test-assets test-registry crds clean

all: build

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/registries-controller

# image: the container image, built offline with only Go (hack/image.sh): the OCI layout _output/image/oci and
# the tarball _output/image/registries-controller.tar. The Dockerfile builds the same image for the release
# pipeline; its builder stage runs image-binary.
IMAGE_DIR := _output/image
IMAGE_BIN := $(IMAGE_DIR)/registries-controller
image: image-binary
	hack/image.sh $(IMAGE_BIN) $(VERSION)

# image-binary: the statically linked binary the image carries.
image-binary:
	CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(IMAGE_BIN) ./cmd/registries-controller

# test runs every test, against a real kube-apiserver and etcd and a container registry built from the pinned
# modules in hack/tools (built once, then cached: see hack/test-assets.sh and hack/test-registry.sh), the alerts'
# rule tests with promtool, built from the pinned Prometheus module the same way (hack/promtool.sh), the kubelet's
# own credential provider code against the rendered files (test-kubelet), then the controller's code under the race
# detector (test-race).
test: build image test-kubelet
	assets="$$(hack/test-assets.sh)" && registry="$$(hack/test-registry.sh)" && promtool="$$(hack/promtool.sh)" && \
	KUBEBUILDER_ASSETS="$$assets" REGISTRIES_CONTROLLER_TEST_REGISTRY="$$registry" PROMTOOL="$$promtool" \
		REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" REGISTRIES_CONTROLLER_IMAGE="$(CURDIR)/$(IMAGE_DIR)/oci" \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)
	$(MAKE) test-race

# test-race runs the controller's code under the race detector: the packages of pkg/ and the controller run
# in-process against a real control plane (test/integration). pkg/registries is left out: the merge runs on one
# goroutine, and its differential tests take ten times longer under the detector.
RACE_PKGS = $(filter-out %/pkg/registries,$(shell $(GO) list ./pkg/...)) ./test/integration/
test-race: build
	assets="$$(hack/test-assets.sh)" && \
	KUBEBUILDER_ASSETS="$$assets" REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" \
		$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(RACE_PKGS)

# test-kubelet proves pkg/credentialprovider with the kubelet's own code: the separate module test/kubeletcreds
# requires k8s.io/kubernetes at the version hack/tools/k8s pins (its go.sum is committed).
test-kubelet:
	cd test/kubeletcreds && $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

# unit runs the tests that need no control plane.
unit:
	$(GO) test -count=1 -short ./pkg/... ./cmd/... ./hack/verify-test-helpers/

# fuzz runs every Go fuzz target of the repository for FUZZTIME each (make test runs only their seeds).
FUZZTIME ?= 60s
fuzz:
	FUZZTIME=$(FUZZTIME) hack/fuzz.sh

run: build
	hack/run.sh $(BIN)

# bench: the merge beside MCO's (pkg/registries, medians and ratios by hack/bench-report.sh),
# then the controller against a real control plane (latency, writes per burst, memory, the scale of a disconnected
# cluster: docs/benchmarks.md), with the largest input that fits in one MachineConfig (pkg/render), and the
# offline `render` process beside MCO's merge at 3,000 sources (BenchmarkOfflineRender, the binary built here).
BENCHTIME ?= 1s
COUNT ?= 1
bench: bench-merge bench-controller

bench-merge:
	BENCHTIME=$(BENCHTIME) COUNT=$(COUNT) hack/bench-report.sh

bench-controller: build
	$(GO) test -run '^$$' -bench BenchmarkLargestInputThatFits -benchtime 1x ./pkg/render/
	$(GO) test -run '^$$' -bench BenchmarkDisconnectedClusterChange -benchtime 10x ./pkg/render/
	REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" \
		$(GO) test -run '^$$' -bench BenchmarkOfflineRender -benchtime 10x -count 5 ./pkg/registries/
	KUBEBUILDER_ASSETS="$$(hack/test-assets.sh)" REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)" \
		$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./test/integration/

# verify: gofmt, go vet (also of the image tool's module), go.mod and go.sum tidy and vendor/ up to date
# (hack/verify-modules.sh), pkg/crds up to date, staticcheck (pinned in hack/tools/staticcheck), and no test
# helper defined in two test packages (hack/verify-test-helpers; also a test of go test ./...).
verify:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^vendor/')); \
		if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	cd hack/tools/image && GOFLAGS= $(GO) vet ./...
	hack/verify-modules.sh
	hack/update-crds.sh --verify
	hack/staticcheck.sh
	$(GO) run ./hack/verify-test-helpers

test-assets:
	@hack/test-assets.sh

test-registry:
	@hack/test-registry.sh

crds:
	hack/update-crds.sh

clean:
	rm -rf _output
