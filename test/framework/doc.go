// Package framework runs a real control plane (etcd and kube-apiserver) with the OpenShift CRDs of pkg/crds
// installed, for tests that must prove behaviour against a real API server, and for hack/local-up.
//
// The binaries come from hack/test-assets.sh, which builds kube-apiserver, etcd and kubectl from the pinned
// modules in hack/tools once and caches them; $KUBEBUILDER_ASSETS, when set, names that directory directly.
// Start runs the processes itself, on free loopback ports, with the flags sigs.k8s.io/controller-runtime's
// envtest uses; envtest only installs the CRDs.
//
// Start one control plane per test package, in TestMain: starting one costs a few seconds, and the first create
// of an object of a freshly installed CRD waits about two seconds on the server side.
//
//	var cp *framework.ControlPlane
//
//	func TestMain(m *testing.M) {
//		framework.Run(m, func(c *framework.ControlPlane) error {
//			cp = c
//			return cp.CreateBuiltinPools(context.Background())
//		})
//	}
//
// Run skips the package (exit 0, with the reason printed) only with `go test -short`, and fails it (exit 1) when
// the binaries cannot be obtained: a missing tool never skips a test. Set
// KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true to see the output of etcd and kube-apiserver;
// KUBEBUILDER_CONTROLPLANE_START_TIMEOUT and KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT (Go durations, 1m and 20s by
// default) bound how long each may take to become ready and to exit after SIGTERM.
//
// # No leaked processes
//
// On Linux, etcd and kube-apiserver never outlive the process that started them: the kernel kills them
// (PR_SET_PDEATHSIG) when it ends, whether by Stop, SIGKILL, the panic of `go test -timeout` or os.Exit. Only
// their files stay behind in the temporary directory when Stop did not run. Elsewhere, only Stop and the
// signals Run catches stop them.
//
// # Faults
//
// Tests of how a client copes with a failing control plane can stop and start its parts while the clients of
// the ControlPlane stay in use:
//
//	if err := cp.StopAPIServer(); err != nil { // killed: requests now fail with "connection refused"
//		t.Fatal(err)
//	}
//	if err := cp.StartAPIServer(); err != nil { // same port, certificates and etcd: the clients reconnect
//		t.Fatal(err)
//	}
//
// StopEtcd and StartEtcd do the same for etcd, keeping its client URL and data: while it is down,
// kube-apiserver keeps running but its requests that touch storage fail or hang until their timeout. The Stop
// methods kill the process (SIGKILL), as a crash would, and do nothing to a part that is stopped already; the
// Start methods return once the part is ready again (StartEtcd also waits for a running kube-apiserver to be
// ready), and do nothing to a running part. A test that stops a part should start it again in t.Cleanup, for
// the tests that share the control plane after it.
//
// # Waits
//
// Eventually waits for something to happen. Quiet asserts that something does not happen, and proves its own
// window: it returns only once a Witness (a count of the work that could have made it happen, such as the syncs a
// controller finished) has grown, so that on a loaded machine a wait in which the controller never ran fails
// instead of passing. Every negative wait uses Quiet, never a bare time.Sleep.
package framework
