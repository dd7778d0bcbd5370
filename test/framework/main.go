package framework

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Run is the TestMain of a package whose tests need a control plane: it starts one (see Start), calls setup
// with it (setup may be nil; an error fails the package), runs the tests, stops the control plane and exits.
// When the control plane binaries cannot be obtained it fails the package, as RequireAssets does.
// SIGINT and SIGTERM stop the control plane in order before the process exits, removing its temporary files;
// any other end of the process (SIGKILL, go test -timeout) takes etcd and kube-apiserver with it on Linux (see
// Start), leaving only their files in the temporary directory.
func Run(m *testing.M, setup func(*ControlPlane) error) {
	os.Exit(runTests(m, setup))
}

// runTests is Run without the exit: it returns the exit code.
func runTests(m *testing.M, setup func(*ControlPlane) error) int {
	assets := RequireAssets()
	// envtest logs through controller-runtime's logger, which complains on stderr when it is never set.
	ctrllog.SetLogger(klog.Background())
	// Caught from before the start: Start puts etcd and kube-apiserver in their own process groups, so a
	// Ctrl-C in the terminal reaches only this process, which stops them and removes their files.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	cp, err := Start(Options{AssetsDir: assets})
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: test/framework: %v\n", err)
		return 1
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "test/framework: %v\n", err)
		}
	}()
	select {
	case sig := <-sigs:
		fmt.Fprintf(os.Stderr, "test/framework: %v while starting the control plane: stopping it\n", sig)
		return 1
	default:
		go stopOnSignal(cp, sigs)
	}
	if setup != nil {
		if err := setup(cp); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: test/framework: setting up the control plane: %v\n", err)
			return 1
		}
	}
	return m.Run()
}

// stopOnSignal stops cp and exits when a signal arrives on sigs.
func stopOnSignal(cp *ControlPlane, sigs <-chan os.Signal) {
	sig := <-sigs
	fmt.Fprintf(os.Stderr, "test/framework: %v: stopping the control plane\n", sig)
	_ = cp.Stop()
	os.Exit(1)
}

// RequireAssets is for TestMain of packages that need the control plane binaries: it returns their directory
// (see AssetsDir, which builds them on first use), or ends the process, printing why:
//   - with `go test -short`: exit 0, the package is skipped, as asked;
//   - when the binaries cannot be obtained: exit 1, the package fails. A missing tool never skips a test.
func RequireAssets() string {
	if !flag.Parsed() {
		flag.Parse()
	}
	if testing.Short() {
		fmt.Println("SKIP: this package needs a control plane (etcd, kube-apiserver); skipped with -short")
		os.Exit(0)
	}
	dir, err := AssetsDir()
	if err == nil {
		return dir
	}
	fmt.Fprintf(os.Stderr, "FAIL: test/framework: %v\n", err)
	if errors.Is(err, ErrNoAssets) {
		fmt.Fprintf(os.Stderr, "Packages that need a control plane must run: run make test, or build the binaries with "+
			"%s and point %s at the directory it prints\n", testAssetsScript, EnvAssets)
	}
	os.Exit(1)
	return ""
}
