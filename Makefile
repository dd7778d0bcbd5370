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

.PHONY: all build image image-binary test unit integration e2e tier-unit tier-integration tier-e2e test-prereqs tools \
	test-kubelet run bench bench-merge bench-controller fuzz verify test-assets test-registry promtool crds clean

all: build

# Every build without the race detector uses CGO_ENABLED=0 and -trimpath, the flags of the image's static binary,
# so that the binary, the image and the tests share one compile of every package (the race detector needs cgo: its
# builds are the only others).
PLAIN := CGO_ENABLED=0
PLAIN_FLAGS := -trimpath

build:
	$(PLAIN) $(GO) build $(PLAIN_FLAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/registries-controller

# image: the container image, built offline with only Go (hack/image.sh): the OCI layout _output/image/oci and
# the tarball _output/image/registries-controller.tar. The Dockerfile builds the same image for the release
# pipeline; its builder stage runs image-binary. On Linux the image carries the binary make build made (the same
# flags), so the binary is compiled and linked once.
IMAGE_DIR := _output/image
IMAGE_BIN := $(IMAGE_DIR)/registries-controller
image: build
	@mkdir -p $(IMAGE_DIR)
	if [ "$$($(GO) env GOOS)" = linux ]; then cp $(BIN) $(IMAGE_BIN); else $(MAKE) image-binary; fi
	hack/image.sh $(IMAGE_BIN) $(VERSION)

# image-binary: the statically linked binary the image carries.
image-binary:
	$(PLAIN) GOOS=linux $(GO) build $(PLAIN_FLAGS) -ldflags '$(LDFLAGS)' -o $(IMAGE_BIN) ./cmd/registries-controller

# The tests, in three tiers; hack/test-packages.sh assigns every package to one of them from what its tests need:
#   make unit         the packages that need no control plane, no binary and no registry: they use the test cache,
#                     so after a change only the packages it reaches run again;
#   make integration  the packages that start a control plane (a real kube-apiserver and etcd, one per package);
#   make e2e          the controller binary, real pulls through a registry on loopback, the image, the alerts'
#                     rule tests with promtool, and the kubelet's own credential provider code (test-kubelet);
#   make test         all of them: first the binary, the image and the three tool builds (kube-apiserver, kubectl
#                     and etcd; the registry; promtool) at once, then the tiers.
# The tools are built from the pinned modules in hack/tools once, then cached (hack/test-assets.sh,
# hack/test-registry.sh, hack/promtool.sh). The controller's code (pkg/ and test/integration) runs under the race
# detector, once: its tier runs it with -race and never again without.
TEST_JOBS ?= 5
test:
	hack/test-packages.sh --check
	$(MAKE) -j$(TEST_JOBS) --output-sync=target test-prereqs
	$(MAKE) tier-unit tier-integration tier-e2e

test-prereqs: build image tools

unit: tier-unit
integration: build test-assets-built test-registry-built
	$(MAKE) tier-integration
e2e: build image tools
	$(MAKE) tier-e2e

# INTEGRATION_ENV, E2E_ENV: the paths of the binary, the image and the tools each tier uses (the scripts print a
# built tool's path at once).
INTEGRATION_ENV = KUBEBUILDER_ASSETS="$$(hack/test-assets.sh)" REGISTRIES_CONTROLLER_TEST_REGISTRY="$$(hack/test-registry.sh)" \
	REGISTRIES_CONTROLLER_BIN="$(CURDIR)/$(BIN)"
E2E_ENV = $(INTEGRATION_ENV) PROMTOOL="$$(hack/promtool.sh)" REGISTRIES_CONTROLLER_IMAGE="$(CURDIR)/$(IMAGE_DIR)/oci"

# go-test TIER MODE FLAGS runs the tier's packages of one mode (race or plain), with its flags.
go-test = pkgs="$$(hack/test-packages.sh $(1) $(2))" && if [ -n "$$pkgs" ]; then \
	REGISTRIES_CONTROLLER_TEST_TIER=$(1) $(3) $$pkgs; fi

# tier-*: a tier alone, without building what it uses first (make test has built it).
tier-unit:
	$(call go-test,unit,race,$(GO) test -race -timeout $(TEST_TIMEOUT))
	$(call go-test,unit,plain,$(PLAIN) $(GO) test $(PLAIN_FLAGS) -timeout $(TEST_TIMEOUT))

tier-integration:
	$(call go-test,integration,race,$(INTEGRATION_ENV) $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT))
	$(call go-test,integration,plain,$(INTEGRATION_ENV) $(PLAIN) $(GO) test $(PLAIN_FLAGS) -count=1 -timeout $(TEST_TIMEOUT))

tier-e2e: test-kubelet
	$(call go-test,e2e,race,$(E2E_ENV) $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT))
	$(call go-test,e2e,plain,$(E2E_ENV) $(PLAIN) $(GO) test $(PLAIN_FLAGS) -count=1 -timeout $(TEST_TIMEOUT))

# test-kubelet proves pkg/credentialprovider with the kubelet's own code: the separate module test/kubeletcreds
# requires k8s.io/kubernetes at the version hack/tools/k8s pins (its go.sum is committed).
test-kubelet:
	cd test/kubeletcreds && $(PLAIN) $(GO) test $(PLAIN_FLAGS) -count=1 -timeout $(TEST_TIMEOUT) ./...

# tools: the three pinned tool builds, each cached once built; make -j builds them at once.
tools: test-assets-built test-registry-built promtool-built

.PHONY: test-assets-built test-registry-built promtool-built
test-assets-built:
	hack/test-assets.sh >/dev/null
test-registry-built:
	hack/test-registry.sh >/dev/null
promtool-built:
	hack/promtool.sh >/dev/null

# fuzz runs every Go fuzz target of the repository for FUZZTIME each (make test runs only their seeds).
FUZZTIME ?= 60s
fuzz:
	FUZZTIME=$(FUZZTIME) hack/fuzz.sh

run: build
	hack/run.sh $(BIN)

# bench: the merge beside MCO's (pkg/registries, medians and ratios by hack/bench-report.sh),
# then the controller against a real control plane (latency, writes per burst, memory, the scale of a disconnected
# cluster: docs/benchmarks.md), with the largest input that fits in one MachineConfig (pkg/render), and the
# offline `render` process beside MCO's merge at 2,500 sources (BenchmarkOfflineRender, the binary built here).
BENCHTIME ?= 1s
COUNT ?= 1
bench: bench-merge bench-controller

bench-merge:
	BENCHTIME=$(BENCHTIME) COUNT=$(COUNT) hack/bench-report.sh

bench-controller: build
	$(GO) test -run '^$$' -bench BenchmarkLargestInputThatFits -benchtime 1x ./pkg/render/
	$(GO) test -run '^$$' -bench BenchmarkDisconnectedClusterChange -benchtime 10x ./pkg/render/
	REGISTRIES_BENCH_BINARY="$(CURDIR)/$(BIN)" \
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

promtool:
	@hack/promtool.sh

crds:
	hack/update-crds.sh

clean:
	rm -rf _output
