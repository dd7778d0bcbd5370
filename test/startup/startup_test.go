// Package startup checks what starting the controller binary costs before main runs, on the binary the tests of
// the binary use (framework.ControllerBinary: `make build`'s, or one built for the test).
package startup

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/test/framework"
)

// Bounds on what package initialisation allocates, from GODEBUG=inittrace=1 of `registries-controller
// --version` (measured 2026-12-04: 45,040 allocations, 5.49 MB; before pkg/endpoints dropped k8s.io/apiserver's
// filters, 48,780 and 6.08 MB). A change that links a package with a heavy initialisation fails here: say why in
// docs/benchmarks.md, or keep the package out of the binary.
const (
	maxInitAllocs = 46_500
	maxInitBytes  = 5_700_000
)

func TestPackageInitialisationAllocatesWithinItsBound(t *testing.T) {
	bin, err := framework.ControllerBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1,gctrace=1", "GOGC=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("--version: %v\n%s", err, stderr.String())
	}
	packages, allocs, bytesAllocated := initTrace(t, stderr.String())
	t.Logf("%d packages initialised: %d allocations, %d bytes", packages, allocs, bytesAllocated)
	if packages < 100 {
		t.Fatalf("the init trace lists %d packages: GODEBUG=inittrace=1 was not read", packages)
	}
	if allocs > maxInitAllocs || bytesAllocated > maxInitBytes {
		t.Errorf("package initialisation allocates %d times and %d bytes, over the bounds %d and %d: see `GODEBUG=inittrace=1 registries-controller --version 2>&1 | sort -k10 -n`",
			allocs, bytesAllocated, maxInitAllocs, maxInitBytes)
	}
	// pkg/initgc holds the collector off until main: no collection before the last package's init line.
	lines := strings.Split(stderr.String(), "\n")
	lastInit := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "init ") {
			lastInit = i
		}
	}
	for _, l := range lines[:lastInit+1] {
		if strings.HasPrefix(l, "gc ") {
			t.Errorf("the garbage collector ran while packages initialised (pkg/initgc was initialised too late, or not imported): %s", l)
		}
	}
}

// initTrace sums the lines "init PACKAGE @T ms, C ms clock, B bytes, A allocs" of the runtime's init trace.
func initTrace(t *testing.T, trace string) (packages, allocs, bytesAllocated int) {
	t.Helper()
	s := bufio.NewScanner(strings.NewReader(trace))
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unreadable init trace line %q", s.Text())
		}
		packages++
		bytesAllocated += b
		allocs += a
	}
	return packages, allocs, bytesAllocated
}
