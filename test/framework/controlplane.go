package framework

import (
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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// envStartTimeout is envtest's variable for how long each control plane process may take to start.
const envStartTimeout = "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT"

// defaultStartTimeout replaces envtest's 20 s, generous for kube-apiserver on a busy 2-core machine running
// several test packages at once.
const defaultStartTimeout = time.Minute

// Options configure Start. The zero value is ready to use.
type Options struct {
	// AssetsDir holds kube-apiserver, etcd and kubectl. Empty means AssetsDir().
	AssetsDir string
	// CRDDir holds the CRDs to install. Empty means CRDDir() (test/crds).
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

	env      *envtest.Environment
	tempDir  string
	logs     []io.Closer
	stopOnce sync.Once
	stopErr  error
}

// Start starts etcd and kube-apiserver on free loopback ports, installs the CRDs and waits until they are
// served, and writes the admin kubeconfig. Call Stop when done; when Start fails, it stops what it started.
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
	tempDir, err := os.MkdirTemp("", "registries-controller-framework-")
	if err != nil {
		return nil, err
	}
	cp = &ControlPlane{tempDir: tempDir, KubectlPath: filepath.Join(opts.AssetsDir, "kubectl")}
	defer func() {
		if err != nil {
			err = errors.Join(err, cp.Stop())
			cp = nil
		}
	}()

	cp.env = &envtest.Environment{BinaryAssetsDirectory: opts.AssetsDir}
	if os.Getenv(envStartTimeout) == "" {
		cp.env.ControlPlaneStartTimeout = defaultStartTimeout
	}
	if opts.LogDir != "" {
		if err := cp.openLogs(opts.LogDir); err != nil {
			return cp, err
		}
	}
	if cp.RESTConfig, err = cp.env.Start(); err != nil {
		return cp, fmt.Errorf("starting etcd and kube-apiserver from %s: %w", opts.AssetsDir, err)
	}
	if err := installCRDs(cp.RESTConfig, opts.CRDDir); err != nil {
		return cp, err
	}
	if cp.KubeconfigPath = opts.KubeconfigPath; cp.KubeconfigPath == "" {
		cp.KubeconfigPath = filepath.Join(tempDir, "kubeconfig")
	}
	if err := writeFile(cp.KubeconfigPath, cp.env.KubeConfig); err != nil {
		return cp, fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return cp, cp.newClients()
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

// openLogs sends the output of etcd and kube-apiserver to files in dir.
func (cp *ControlPlane) openLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	etcd, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		return err
	}
	cp.logs = append(cp.logs, etcd)
	apiserver, err := os.Create(filepath.Join(dir, "kube-apiserver.log"))
	if err != nil {
		return err
	}
	cp.logs = append(cp.logs, apiserver)
	cp.env.ControlPlane.Etcd = &envtest.Etcd{Out: etcd, Err: etcd}
	cp.env.ControlPlane.APIServer = &envtest.APIServer{Out: apiserver, Err: apiserver}
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

// Stop stops kube-apiserver and etcd (SIGTERM, then SIGKILL after envtest's stop timeout), waits for them to
// exit, and removes their data and the temporary files. It is safe to call more than once.
func (cp *ControlPlane) Stop() error {
	cp.stopOnce.Do(func() {
		var errs []error
		if cp.env != nil {
			if err := cp.env.Stop(); err != nil {
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

// writeFile writes data to path, readable by the owner only, creating its directory.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
