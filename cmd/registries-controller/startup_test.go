package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Go initialises every package linked into the binary before main, whatever the subcommand: `--version` and
// `render` pay for what `start` links (docs/benchmarks.md, "The offline render and the process start"). This test
// keeps out the packages taken out, without timing anything; test/startup bounds the allocations of package
// initialisation of the binary `make build` writes.

// notLinked are packages the binary must not link: k8s.io/apiserver's handler chain, whose filters /metrics
// used to sit behind (pkg/endpoints now asks for the TokenReview and SubjectAccessReview itself), and what it
// brought (audit, admission, storage, egress selection, gRPC), and net/http/pprof, whose initialisation
// registers handlers on http.DefaultServeMux in every process.
var notLinked = []string{
	"k8s.io/apiserver/pkg/endpoints/filters",
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory",
	"k8s.io/apiserver/pkg/authorization/authorizerfactory",
	"k8s.io/apiserver/pkg/audit",
	"k8s.io/apiserver/pkg/admission",
	"k8s.io/apiserver/pkg/storage",
	"k8s.io/apiserver/pkg/server/egressselector",
	"google.golang.org/grpc",
	"net/http/pprof",
}

func TestTheBinaryDoesNotLinkTheAPIServersHandlerChain(t *testing.T) {
	out, err := exec.Command("go", "list", "-tags=containers_image_openpgp", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if len(deps) < 100 {
		t.Fatalf("go list -deps listed %d packages: not the binary's dependencies", len(deps))
	}
	for _, p := range notLinked {
		if deps[p] {
			t.Errorf("the binary links %s", p)
		}
	}
}
