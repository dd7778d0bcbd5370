package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Variables of envtest that keep their meaning here.
const (
	// envStartTimeout is how long each control plane process may take to become ready, as a Go duration.
	envStartTimeout = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"
	// envStopTimeout is how long each may take to exit after SIGTERM before it is killed, as a Go duration.
	envStopTimeout = "KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT"
	// envAttachOutput=true sends the output of etcd and kube-apiserver to this process's stdout and stderr,
	// unless Options.LogDir is set.
	envAttachOutput = "KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT"
)

const (
	// defaultStartTimeout replaces envtest's 20 s, generous for kube-apiserver on a busy 2-core machine running
	// several test packages at once.
	defaultStartTimeout = time.Minute
	// defaultStopTimeout is envtest's.
	defaultStopTimeout = 20 * time.Second
)

// maxStartAttempts is how many sets of free ports Start tries for each process: a port freePorts found can be
// taken by another process before etcd or kube-apiserver binds it.
const maxStartAttempts = 3

// defaultNamespaceTimeout bounds the wait for kube-apiserver to create the namespace "default" after its first
// start.
const defaultNamespaceTimeout = 30 * time.Second

// Options configure Start. The zero value is ready to use.
type Options struct {
	// AssetsDir holds kube-apiserver, etcd and kubectl. Empty means AssetsDir().
	AssetsDir string
	// CRDDir holds the CRDs to install. Empty means CRDDir() (pkg/crds).
	CRDDir string
	// KubeconfigPath is where the admin kubeconfig is written (its directory is created). Empty means a file in
	// a temporary directory that Stop removes.
	KubeconfigPath string
	// LogDir, when set, receives etcd.log and kube-apiserver.log with the processes' output. Empty discards
	// it, unless KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true attaches it to this process's stdout and stderr.
	LogDir string
}

// ControlPlane is a running etcd and kube-apiserver with the CRDs installed, and clients for it, all acting as
// an admin user (group system:masters).
type ControlPlane struct {
	// RESTConfig connects to the kube-apiserver as the admin user.
	RESTConfig *rest.Config
	// Kube is the clientset for the built-in Kubernetes APIs.
	Kube kubernetes.Interface
	// Config is the clientset for config.openshift.io (ImageDigestMirrorSet, ImageTagMirrorSet, Image,
	// ClusterVersion).
	Config configclient.Interface
	// Operator is the clientset for operator.openshift.io (ImageContentSourcePolicy is v1alpha1).
	Operator operatorclient.Interface
	// MachineConfig is the clientset for machineconfiguration.openshift.io (MachineConfig, MachineConfigPool,
	// ContainerRuntimeConfig, ControllerConfig).
	MachineConfig mcfgclient.Interface
	// KubeconfigPath is a kubeconfig file for the admin user.
	KubeconfigPath string
	// KubectlPath is the bundled kubectl, built with kube-apiserver.
	KubectlPath string

	tempDir   string
	etcd      *process
	apiServer *process
	settings  processSettings
	logs      []io.Closer
	stopOnce  sync.Once
	stopErr   error
}

// processSettings are what the processes of a control plane share.
type processSettings struct {
	startTimeout, stopTimeout time.Duration
	// output maps a process name to where its output goes; a name it lacks has its output discarded.
	output map[string]processOutput
}

type processOutput struct {
	stdout, stderr io.Writer
}

// Start starts etcd and kube-apiserver on free loopback ports, installs the CRDs and waits until they are
// served, and writes the admin kubeconfig. Call Stop when done; when Start fails, it stops what it started.
//
// On Linux, etcd and kube-apiserver die with the process that called Start, however it ends: they never outlive
// a test binary killed with SIGKILL or by go test -timeout.
func Start(opts Options) (cp *ControlPlane, err error) {
	if opts.AssetsDir == "" {
		if opts.AssetsDir, err = AssetsDir(); err != nil {
			return nil, err
		}
	}
	if opts.CRDDir == "" {
		if opts.CRDDir, err = CRDDir(); err != nil {
			return nil, err
		}
	}
	settings, err := settingsFromEnv()
	if err != nil {
		return nil, err
	}
	tempDir, err := os.MkdirTemp("", "registries-controller-framework-")
	if err != nil {
		return nil, err
	}
	cp = &ControlPlane{tempDir: tempDir, KubectlPath: filepath.Join(opts.AssetsDir, "kubectl"), settings: settings}
	defer func() {
		if err != nil {
			err = errors.Join(err, cp.Stop())
			cp = nil
		}
	}()

	if opts.LogDir != "" {
		if err := cp.openLogs(opts.LogDir); err != nil {
			return cp, err
		}
	}
	if err := cp.startProcesses(opts.AssetsDir); err != nil {
		return cp, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", opts.AssetsDir, err)
	}
	if err := cp.newClients(); err != nil {
		return cp, err
	}
	if err := cp.waitForDefaultNamespace(); err != nil {
		return cp, err
	}
	if err := installCRDs(cp.RESTConfig, opts.CRDDir); err != nil {
		return cp, err
	}
	if cp.KubeconfigPath = opts.KubeconfigPath; cp.KubeconfigPath == "" {
		cp.KubeconfigPath = filepath.Join(tempDir, "kubeconfig")
	}
	config, err := kubeconfig(cp.RESTConfig)
	if err != nil {
		return cp, err
	}
	if err := writePrivateFile(cp.KubeconfigPath, config); err != nil {
		return cp, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return cp, nil
}

// settingsFromEnv returns the timeouts of envStartTimeout and envStopTimeout, or their defaults, and attaches
// the processes' output to this process's when envAttachOutput is true.
func settingsFromEnv() (processSettings, error) {
	s := processSettings{startTimeout: defaultStartTimeout, stopTimeout: defaultStopTimeout}
	for name, d := range map[string]*time.Duration{envStartTimeout: &s.startTimeout, envStopTimeout: &s.stopTimeout} {
		if v := os.Getenv(name); v != "" {
			var err error
			if *d, err = time.ParseDuration(v); err != nil {
				return s, fmt.Errorf("%s=%s: %w", name, v, err)
			}
		}
	}
	if os.Getenv(envAttachOutput) == "true" {
		attached := processOutput{stdout: os.Stdout, stderr: os.Stderr}
		s.output = map[string]processOutput{etcdName: attached, apiServerName: attached}
	}
	return s, nil
}

// openLogs sends the output of etcd and kube-apiserver to files in dir, etcd.log and kube-apiserver.log. A
// restarted process appends to its file.
func (cp *ControlPlane) openLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cp.settings.output = map[string]processOutput{}
	for _, name := range []string{etcdName, apiServerName} {
		f, err := os.Create(filepath.Join(dir, name+".log"))
		if err != nil {
			return err
		}
		cp.logs = append(cp.logs, f)
		cp.settings.output[name] = processOutput{stdout: f, stderr: f}
	}
	return nil
}

// startProcesses starts etcd, with its data in the temporary directory, then kube-apiserver with the
// certificates it creates there, and sets RESTConfig.
func (cp *ControlPlane) startProcesses(assetsDir string) error {
	dataDir := filepath.Join(cp.tempDir, "etcd")
	etcd, etcdPorts, err := cp.startOnFreePorts(2, func(ports []int) (*process, error) {
		return newEtcd(assetsDir, dataDir, ports[0], ports[1]), nil
	})
	if err != nil {
		return err
	}
	cp.etcd = etcd
	pki, err := newPKI(filepath.Join(cp.tempDir, "pki"))
	if err != nil {
		return err
	}
	apiServer, apiServerPorts, err := cp.startOnFreePorts(1, func(ports []int) (*process, error) {
		return newAPIServer(assetsDir, ports[0], etcdURL(etcdPorts[0]), pki)
	})
	if err != nil {
		return err
	}
	cp.apiServer = apiServer
	cp.RESTConfig = pki.adminConfig(apiServerURL(apiServerPorts[0]))
	return nil
}

// startOnFreePorts starts the process newProcess returns for n free loopback ports, and tries again with other
// ports when the process exits before it is ready, as it does when another process took one of them meanwhile.
// It returns the process and its ports.
func (cp *ControlPlane) startOnFreePorts(n int, newProcess func(ports []int) (*process, error)) (*process, []int, error) {
	var err error
	for range maxStartAttempts {
		var ports []int
		var p *process
		if ports, err = freePorts(n); err != nil {
			return nil, nil, err
		}
		if p, err = newProcess(ports); err != nil {
			return nil, nil, err
		}
		p.startTimeout, p.stopTimeout = cp.settings.startTimeout, cp.settings.stopTimeout
		out := cp.settings.output[p.name]
		p.stdout, p.stderr = out.stdout, out.stderr
		if err = p.start(); err == nil {
			return p, ports, nil
		}
		if !errors.Is(err, errExitedEarly) {
			return nil, nil, err
		}
	}
	return nil, nil, fmt.Errorf("%d attempts: %w", maxStartAttempts, err)
}

// waitForDefaultNamespace waits until kube-apiserver has created the namespace "default", which it does a
// moment after it is ready the first time.
func (cp *ControlPlane) waitForDefaultNamespace() error {
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, defaultNamespaceTimeout, true,
		func(ctx context.Context) (bool, error) {
			_, err := cp.Kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
			return err == nil, nil
		})
	if err != nil {
		return fmt.Errorf("waiting for the namespace %q: %w", metav1.NamespaceDefault, err)
	}
	return nil
}

// installCRDs creates the CRDs of dir and waits until the API server serves them. The upstream CRDs use OpenAPI
// formats the API server does not know ("ip", "hostname"); its warnings about them are silenced.
func installCRDs(cfg *rest.Config, dir string) error {
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NoWarnings{}
	_, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: []string{dir}, ErrorIfPathMissing: true})
	if err != nil {
		return fmt.Errorf("installing the CRDs of %s: %w", dir, err)
	}
	return nil
}

func (cp *ControlPlane) newClients() (err error) {
	if cp.Kube, err = kubernetes.NewForConfig(cp.RESTConfig); err != nil {
		return err
	}
	if cp.Config, err = configclient.NewForConfig(cp.RESTConfig); err != nil {
		return err
	}
	if cp.Operator, err = operatorclient.NewForConfig(cp.RESTConfig); err != nil {
		return err
	}
	cp.MachineConfig, err = mcfgclient.NewForConfig(cp.RESTConfig)
	return err
}

// StopAPIServer kills kube-apiserver (SIGKILL), as a crash or a lost machine would, and returns once it has
// exited. Until StartAPIServer, requests fail: the port refuses connections. etcd keeps running. Stopping a
// stopped API server does nothing.
func (cp *ControlPlane) StopAPIServer() error {
	cp.apiServer.kill()
	return nil
}

// StartAPIServer starts kube-apiserver again with the same port, etcd, serving certificate and client CA, and
// returns once it is ready (/readyz). RESTConfig, the clients and the kubeconfig work again unchanged: clients
// reconnect by themselves, informers list and watch again. kube-apiserver is not ready without etcd: start etcd
// first. Starting a running API server does nothing.
func (cp *ControlPlane) StartAPIServer() error {
	return cp.apiServer.start()
}

// StopEtcd kills etcd (SIGKILL), as a crash or a lost machine would, and returns once it has exited. What it
// had acknowledged is in its write-ahead log and is kept. kube-apiserver keeps running, but until StartEtcd its
// requests that read or write storage fail or time out, and its /readyz fails. Stopping a stopped etcd does
// nothing.
func (cp *ControlPlane) StopEtcd() error {
	cp.etcd.kill()
	return nil
}

// StartEtcd starts etcd again with the same client URL and data directory, so everything stored before it
// stopped is there, and returns once it is healthy and, when kube-apiserver is running, once kube-apiserver has
// reconnected and is ready again. Starting a running etcd does nothing.
func (cp *ControlPlane) StartEtcd() error {
	if err := cp.etcd.start(); err != nil {
		return err
	}
	return cp.apiServer.awaitReady()
}

// Stop stops kube-apiserver and etcd (SIGTERM, then SIGKILL after the stop timeout), waits for them to exit, and
// removes their data and the temporary files. It is safe to call more than once; StartAPIServer and StartEtcd
// fail afterwards.
func (cp *ControlPlane) Stop() error {
	cp.stopOnce.Do(func() {
		var errs []error
		// The API server first: without etcd, its shutdown would wait on storage.
		for _, p := range []*process{cp.apiServer, cp.etcd} {
			if p == nil {
				continue
			}
			if err := p.close(); err != nil {
				errs = append(errs, fmt.Errorf("stopping the control plane: %w", err))
			}
		}
		for _, l := range cp.logs {
			errs = append(errs, l.Close())
		}
		errs = append(errs, os.RemoveAll(cp.tempDir))
		cp.stopErr = errors.Join(errs...)
	})
	return cp.stopErr
}

// writePrivateFile writes data to path, readable by the owner only, creating its directory.
func writePrivateFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
