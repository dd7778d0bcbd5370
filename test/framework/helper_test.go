package framework_test

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// Variables of the environment of a helper process: the test binary run again by a test (startHelper), which
// starts a control plane of its own and ends without stopping it.
const (
	// envHelper=true makes TestMain call helperMain instead of running the tests.
	envHelper = "REGISTRIES_CONTROLLER_FRAMEWORK_HELPER"
	// envHelperCRDDir is the CRD directory the helper's control plane installs, empty to save time.
	envHelperCRDDir = "REGISTRIES_CONTROLLER_FRAMEWORK_HELPER_CRDS"
	// envHelperRestart=true makes the helper stop and start etcd and kube-apiserver before it reports them.
	envHelperRestart = "REGISTRIES_CONTROLLER_FRAMEWORK_HELPER_RESTART"
)

// helperPIDsFormat is the line a helper process prints once its control plane is ready.
const helperPIDsFormat = "etcd=%d kube-apiserver=%d\n"

// helperMain starts a control plane (and restarts its parts when envHelperRestart is true), prints the process
// IDs of its etcd and kube-apiserver, and waits for stdin to close. Unless it was killed meanwhile, it then panics in a goroutine of its own, as the alarm of go test
// -timeout does, without stopping the control plane.
func helperMain() int {
	cp, err := framework.Start(framework.Options{CRDDir: os.Getenv(envHelperCRDDir)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		return 1
	}
	if os.Getenv(envHelperRestart) == "true" {
		for _, step := range []func() error{cp.StopEtcd, cp.StartEtcd, cp.StopAPIServer, cp.StartAPIServer} {
			if err := step(); err != nil {
				fmt.Fprintf(os.Stderr, "helper: %v\n", err)
				return 1
			}
		}
	}
	etcd, apiServer := framework.PIDs(cp)
	fmt.Printf(helperPIDsFormat, etcd, apiServer)
	_, _ = io.Copy(io.Discard, os.Stdin)
	time.AfterFunc(0, func() { panic("test timed out after 0s (a helper process imitating go test -timeout)") })
	select {}
}
