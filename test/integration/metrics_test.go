package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/openshift/registries-controller/test/framework"
)

const (
	// serviceDNSName is the name the service CA writes the serving certificate for, and the ServiceMonitor's serverName.
	serviceDNSName      = "registries-controller.openshift-registries-controller.svc"
	monitoringNamespace = "openshift-monitoring"
	// prometheusAccount is the cluster's Prometheus, which manifests/ lets read the metrics.
	prometheusAccount = "prometheus-k8s"
	// nobodyAccount is authenticated, and bound to nothing.
	nobodyAccount = "nobody"
)

// token returns a token of the ServiceAccount namespace/name, created when missing, as the kubelet mounts one.
func token(t *testing.T, namespace, name string) string {
	t.Helper()
	ctx := context.Background()
	if _, err := cp.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	if _, err := cp.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	expiry := int64(3600)
	tr, err := cp.Kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// tokenKubeconfig writes a kubeconfig that reaches the control plane with bearerToken, as an in-cluster client does.
func tokenKubeconfig(t *testing.T, bearerToken string) string {
	t.Helper()
	data, err := clientcmd.Write(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"cp": {Server: cp.RESTConfig.Host, CertificateAuthorityData: cp.RESTConfig.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{"sa": {Token: bearerToken}},
		Contexts:       map[string]*clientcmdapi.Context{"sa": {Cluster: "cp", AuthInfo: "sa"}},
		CurrentContext: "sa",
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// scrapeAs GETs /metrics with client, sending bearerToken when set, and returns the status code and body.
func scrapeAs(t *testing.T, client *http.Client, url, bearerToken string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bearerToken != "" {
		req.Header.Set("Authorization", "Bearer "+bearerToken)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

func tlsClient(roots *x509.CertPool, serverName string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}}}
}

func TestOnlyPrometheusReadsTheMetricsOverHTTPSAndTheProbesStayOpen(t *testing.T) {
	cp.Reset(t)
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "apply", "-f", filepath.Join(root, "manifests"))
	cp.RunKubectl(t, "delete", "clusteroperator", operatorName, "--ignore-not-found")

	// The serving certificate the service CA would write into the secret the Deployment mounts.
	ca, err := framework.NewCA("openshift-service-serving-signer")
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.IssueServing(serviceDNSName)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)

	// The controller runs as its ServiceAccount, with the Deployment's flags: everything it does, the TokenReviews
	// and SubjectAccessReviews of each scrape and its ClusterOperator included, is what manifests/ grants.
	kubeconfig := tokenKubeconfig(t, token(t, controllerNamespace, "registries-controller"))
	c := framework.StartControllerServingTLS(t, "controller", kubeconfig, certFile, keyFile, "--settle-delay=100ms",
		"--status-grace-period=10s")
	framework.Eventually(t, 30*time.Second, "/readyz, without credentials", func() (bool, string) {
		code, body := c.Get("/readyz")
		return code == http.StatusOK, fmt.Sprint(code, " ", body)
	})
	if code, _ := c.Get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d without credentials, want 200", code)
	}
	if code, _ := c.Get("/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics in plain HTTP: %d, want 404: nothing but the probes there", code)
	}

	url := c.MetricsURL + "/metrics"
	client := tlsClient(roots, serviceDNSName)
	prometheus := token(t, monitoringNamespace, prometheusAccount)
	nobody := token(t, monitoringNamespace, nobodyAccount)
	for _, tc := range []struct {
		who, token string
		want       int
	}{
		{"openshift-monitoring/prometheus-k8s, allowed to get /metrics by manifests/", prometheus, http.StatusOK},
		{"an authenticated ServiceAccount bound to nothing", nobody, http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
		{"a token the API server never issued", "not-a-token", http.StatusUnauthorized},
	} {
		code, body, err := scrapeAs(t, client, url, tc.token)
		if err != nil {
			t.Fatalf("%s: %v", tc.who, err)
		}
		hasMetrics := strings.Contains(body, "registries_controller_syncs_total")
		if code != tc.want || hasMetrics != (tc.want == http.StatusOK) {
			t.Errorf("%s: %d, metrics in the body: %v; want %d", tc.who, code, hasMetrics, tc.want)
		}
		t.Logf("%s: %d %s", tc.who, code, strings.SplitN(body, "\n", 2)[0])
	}

	// The certificate verifies with the service CA for the Service's name, and with nothing else.
	for name, client := range map[string]*http.Client{
		"the system's roots":      tlsClient(nil, serviceDNSName),
		"another name":            tlsClient(roots, "other.openshift-registries-controller.svc"),
		"another CA of that name": tlsClient(otherRoots(t), serviceDNSName),
	} {
		_, _, err := scrapeAs(t, client, url, prometheus)
		var unknown x509.UnknownAuthorityError
		var hostname x509.HostnameError
		if !errors.As(err, &unknown) && !errors.As(err, &hostname) {
			t.Errorf("a client trusting %s: %v, want a certificate verification error", name, err)
		}
	}

	// The ClusterOperator, written by the ServiceAccount.
	framework.Eventually(t, 30*time.Second, "the ClusterOperator created and Available", func() (bool, string) {
		co := cp.ClusterOperator(t, operatorName)
		return framework.OperatorCondition(co, configv1.OperatorAvailable).Status == configv1.ConditionTrue, conditions(co)
	})
}

// otherRoots trusts a CA of its own that signed nothing.
func otherRoots(t *testing.T) *x509.CertPool {
	t.Helper()
	other, err := framework.NewCA("openshift-service-serving-signer")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(other.CertPEM)
	return pool
}
