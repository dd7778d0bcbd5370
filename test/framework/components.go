package framework

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
)

// Names of the control plane binaries in the assets directory, also the names of their processes and logs.
const (
	etcdName      = "etcd"
	apiServerName = "kube-apiserver"
)

// readyRequestTimeout bounds one readiness request, so that a process that accepts connections but does not
// answer is asked again.
const readyRequestTimeout = 2 * time.Second

// serviceClusterIPRange is the range of Service cluster IPs, as envtest sets it.
const serviceClusterIPRange = "10.0.0.0/24"

// newEtcd returns etcd as envtest runs it: a single member serving clients on 127.0.0.1:clientPort and peers on
// 127.0.0.1:peerPort, keeping its data in dataDir without fsync (nothing needs them to survive a machine
// crash; they do survive a restart of etcd). It is ready when /health answers 200.
func newEtcd(assetsDir, dataDir string, clientPort, peerPort int) *process {
	client := &http.Client{Transport: &http.Transport{}}
	clientURL := etcdURL(clientPort)
	return &process{
		name: etcdName,
		path: filepath.Join(assetsDir, etcdName),
		args: []string{
			"--data-dir=" + dataDir,
			"--listen-client-urls=" + clientURL,
			"--advertise-client-urls=" + clientURL,
			"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(peerPort),
			"--unsafe-no-fsync=true",
		},
		ready: func(ctx context.Context) error { return getOK(ctx, client, clientURL+"/health") },
	}
}

// etcdURL is the client URL of an etcd listening on port.
func etcdURL(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// newAPIServer returns kube-apiserver with envtest's flags: serving on 127.0.0.1:port with the serving
// certificate of pki, storing in the etcd at etcdURL, authenticating clients by the certificates pki's CA signed
// and authorizing them with RBAC (the admin is in system:masters). It is ready when /readyz answers 200 to the
// admin, which takes etcd being reachable and the RBAC roles being bootstrapped.
func newAPIServer(assetsDir string, port int, etcdURL string, pki *pki) (*process, error) {
	host := apiServerURL(port)
	client, err := rest.HTTPClientFor(pki.adminConfig(host))
	if err != nil {
		return nil, err
	}
	return &process{
		name: apiServerName,
		path: filepath.Join(assetsDir, apiServerName),
		args: []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(port),
			"--tls-cert-file=" + pki.path(servingCertFile),
			"--tls-private-key-file=" + pki.path(servingKeyFile),
			"--client-ca-file=" + pki.path(caCertFile),
			"--authorization-mode=RBAC",
			"--service-account-issuer=" + host + "/",
			"--service-account-key-file=" + pki.path(serviceAccountPubFile),
			"--service-account-signing-key-file=" + pki.path(serviceAccountKeyFile),
			"--service-cluster-ip-range=" + serviceClusterIPRange,
			"--allow-privileged=true",
			// envtest's choice: no controller creates the default service accounts here.
			"--disable-admission-plugins=ServiceAccount",
		},
		ready: func(ctx context.Context) error { return getOK(ctx, client, host+"/readyz") },
	}, nil
}

// apiServerURL is the URL of a kube-apiserver listening on port.
func apiServerURL(port int) string {
	return "https://127.0.0.1:" + strconv.Itoa(port)
}

// getOK returns nil when client's GET of url answers 200 OK, and otherwise an error with what it got, e.g. the
// failed checks of /readyz.
func getOK(ctx context.Context, client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(ctx, readyRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return nil
}
