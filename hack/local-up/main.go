// Command local-up runs a local control plane to try the controller against by hand: etcd and kube-apiserver
// on free loopback ports (built by hack/test-assets.sh, or taken from $KUBEBUILDER_ASSETS), with the OpenShift
// CRDs of pkg/crds, the built-in master and worker MachineConfigPools, and a ClusterVersion "version" whose
// status.desired.image is a fixed release image. The MCO simulator (test/mcosim) plays the machine-config
// operator: it renders each pool's MachineConfigs into rendered-<pool>-<hash> and rolls three simulated machines
// per pool to it, one every --mco-step, so that `registries-controller wait` and the controller's RolledOut
// events can be tried.
//
//	go run -tags=containers_image_openpgp ./hack/local-up [--kubeconfig PATH] [--crds DIR] [--log-dir DIR] [--mco-step 2s]
//
// Once the control plane is usable, it prints on stdout
//
//	export KUBECONFIG=/abs/path/to/kubeconfig
//	export KUBECTL=/path/to/the/bundled/kubectl
//	ready
//
// and creates <kubeconfig>.ready, for scripts to wait on. It then runs until SIGINT (Ctrl-C) or SIGTERM, stops
// kube-apiserver and etcd, deletes their data and the .ready file, and exits. On Linux a SIGKILL ends the two
// processes too (test/framework has the kernel signal them when their parent dies), leaving their data behind;
// elsewhere they keep running, in their own process groups.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

// options are the command-line flags.
type options struct {
	kubeconfig string
	crdDir     string
	logDir     string
	mcoStep    time.Duration
}

func main() {
	// An own flag set: controller-runtime, linked in by envtest, registers --kubeconfig on the global one.
	var opts options
	fs := flag.NewFlagSet("local-up", flag.ExitOnError)
	fs.StringVar(&opts.kubeconfig, "kubeconfig", "_output/local-up/kubeconfig", "where to write the admin kubeconfig")
	fs.StringVar(&opts.crdDir, "crds", "", "directory of CRDs to install (default: pkg/crds of this checkout)")
	fs.StringVar(&opts.logDir, "log-dir", "", "directory for etcd.log and kube-apiserver.log (default: the kubeconfig's directory)")
	fs.DurationVar(&opts.mcoStep, "mco-step", 2*time.Second, "how long the simulated MCO takes to update one machine; 0 runs no simulator")
	_ = fs.Parse(os.Args[1:])
	ctrllog.SetLogger(klog.Background())

	// Signals stay caught until run returns, so a second Ctrl-C cannot cut the shutdown short.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, opts, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "local-up: %v\n", err)
		os.Exit(1)
	}
}

// run starts the control plane, reports it on stdout and waits for ctx to end, then stops everything.
func run(ctx context.Context, opts options, stdout io.Writer) (err error) {
	kubeconfig, err := filepath.Abs(opts.kubeconfig)
	if err != nil {
		return err
	}
	if opts.logDir == "" {
		opts.logDir = filepath.Dir(kubeconfig)
	}
	readyFile := kubeconfig + ".ready"
	if err := removeIfExists(readyFile); err != nil {
		return err
	}

	logf("starting etcd and kube-apiserver (logs in %s)", opts.logDir)
	cp, err := framework.Start(framework.Options{CRDDir: opts.crdDir, KubeconfigPath: kubeconfig, LogDir: opts.logDir})
	if err != nil {
		return err
	}
	defer func() {
		logf("stopping kube-apiserver and etcd")
		err = errors.Join(err, cp.Stop(), removeIfExists(readyFile))
		if err == nil {
			logf("stopped")
		}
	}()

	if err := populate(ctx, cp); err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while starting
		}
		return err
	}
	if opts.mcoStep > 0 {
		sim, err := mcosim.Start(ctx, cp.MachineConfig, mcosim.Options{StepDelay: opts.mcoStep})
		if err != nil {
			return err
		}
		defer sim.Stop() // before the control plane stops
		logf("the MCO simulator rolls %d machines per pool, one every %s", mcosim.DefaultNodes, opts.mcoStep)
	}
	if err := os.WriteFile(readyFile, nil, 0o644); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "export KUBECONFIG=%s\nexport KUBECTL=%s\nready\n", kubeconfig, cp.KubectlPath); err != nil {
		return err
	}
	logf("ready: try \"$KUBECTL get machineconfigpools\"; Ctrl-C stops everything")
	<-ctx.Done()
	return nil
}

// populate creates what the MCO and the CVO would on a real cluster: the built-in pools and the ClusterVersion.
func populate(ctx context.Context, cp *framework.ControlPlane) error {
	if err := cp.CreateBuiltinPools(ctx); err != nil {
		return err
	}
	_, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage)
	return err
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// logf reports progress on stderr, keeping stdout for what scripts read.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "local-up: "+format+"\n", args...)
}
