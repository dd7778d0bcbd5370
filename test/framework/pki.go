package framework

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Files of a pki directory, relative to it.
const (
	// caCertFile is the CA that signs the API server's serving certificate and the admin's client certificate;
	// kube-apiserver trusts it for client certificates (--client-ca-file).
	caCertFile = "ca.crt"
	// servingCertFile and servingKeyFile are the API server's serving certificate, for 127.0.0.1 and localhost.
	servingCertFile = "apiserver.crt"
	servingKeyFile  = "apiserver.key"
	// serviceAccountKeyFile and serviceAccountPubFile sign and verify service account tokens.
	serviceAccountKeyFile = "sa.key"
	serviceAccountPubFile = "sa.pub"
)

// Names in the kubeconfig and the admin's client certificate.
const (
	kubeconfigName = "registries-controller-test"
	adminUser      = "admin"
	adminGroup     = "system:masters"
)

// certValidity is how long the certificates are valid: longer than any test, and than most hack/local-up
// sessions.
const certValidity = 365 * 24 * time.Hour

// pki is what kube-apiserver and its admin client need to trust each other. It is created once, in a directory
// the API server reads at every start, so that a restarted API server serves the same certificate and accepts
// the same client certificate.
type pki struct {
	// dir holds the files named by the *File constants.
	dir string
	// caPEM, adminCertPEM and adminKeyPEM go into the admin's rest.Config and kubeconfig.
	caPEM, adminCertPEM, adminKeyPEM []byte
}

// newPKI creates a CA, the API server's serving certificate, the admin's client certificate and the service
// account key pair, and writes the files the API server reads into dir.
func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	ca, caPEM, err := newCA(kubeconfigName + "-ca")
	if err != nil {
		return nil, fmt.Errorf("creating the CA: %w", err)
	}
	servingPEM, servingKeyPEM, err := ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the serving certificate: %w", err)
	}
	adminPEM, adminKeyPEM, err := ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: adminUser, Organization: []string{adminGroup}},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the admin's client certificate: %w", err)
	}
	saKeyPEM, saPubPEM, err := newKeyPair()
	if err != nil {
		return nil, fmt.Errorf("creating the service account key: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{caCertFile, caPEM},
		{servingCertFile, servingPEM},
		{servingKeyFile, servingKeyPEM},
		{serviceAccountKeyFile, saKeyPEM},
		{serviceAccountPubFile, saPubPEM},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return &pki{dir: dir, caPEM: caPEM, adminCertPEM: adminPEM, adminKeyPEM: adminKeyPEM}, nil
}

// path returns the path of one of the *File constants.
func (p *pki) path(file string) string {
	return filepath.Join(p.dir, file)
}

// certAuthority signs certificates.
type certAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// newCA returns a new self-signed CA named commonName, and its certificate in PEM.
func newCA(commonName string) (*certAuthority, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	cert, certPEM, err := signCert(template, template, key.Public(), key)
	if err != nil {
		return nil, nil, err
	}
	return &certAuthority{cert: cert, key: key}, certPEM, nil
}

// issue returns a certificate for template, for a new key, signed by ca, and the key, both in PEM.
func (ca *certAuthority) issue(template *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if _, certPEM, err = signCert(template, ca.cert, key.Public(), ca.key); err != nil {
		return nil, nil, err
	}
	if keyPEM, err = privateKeyPEM(key); err != nil {
		return nil, nil, err
	}
	return certPEM, keyPEM, nil
}

// signCert sets the serial number and validity of template, and signs it for pub with parent and parentKey (a CA
// signs its own: template is parent). It returns the certificate, parsed and in PEM.
func signCert(template, parent *x509.Certificate, pub crypto.PublicKey, parentKey crypto.Signer) (*x509.Certificate, []byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	template.SerialNumber = serial
	template.NotBefore = time.Now().Add(-time.Hour)
	template.NotAfter = template.NotBefore.Add(certValidity)
	der, err := x509.CreateCertificate(rand.Reader, template, parent, pub, parentKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// newKeyPair returns a new private key and its public key, in PEM.
func newKeyPair() (keyPEM, pubPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if keyPEM, err = privateKeyPEM(key); err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(key.Public())
	if err != nil {
		return nil, nil, err
	}
	return keyPEM, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

func privateKeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// adminConfig returns the admin's rest.Config for the API server at host (https://127.0.0.1:<port>), allowed to
// go fast, as envtest's: the test API server has no other clients to protect.
func (p *pki) adminConfig(host string) *rest.Config {
	return &rest.Config{
		Host: host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   p.caPEM,
			CertData: p.adminCertPEM,
			KeyData:  p.adminKeyPEM,
		},
		QPS:   1000,
		Burst: 2000,
	}
}

// kubeconfig returns a kubeconfig file with cfg's server and credentials, as its current context.
func kubeconfig(cfg *rest.Config) ([]byte, error) {
	return clientcmd.Write(clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{
			kubeconfigName: {Server: cfg.Host, CertificateAuthorityData: cfg.CAData},
		},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{
			adminUser: {ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData},
		},
		Contexts: map[string]*clientcmdapi.Context{
			kubeconfigName: {Cluster: kubeconfigName, AuthInfo: adminUser},
		},
		CurrentContext: kubeconfigName,
	})
}

// CA is a certificate authority for a test that serves TLS itself, e.g. the controller's /metrics with the serving
// certificate the service CA would issue:
//
//	ca, _ := framework.NewCA("service-ca")
//	cert, key, _ := ca.IssueServing("registries-controller.openshift-registries-controller.svc")
//	pool := x509.NewCertPool(); pool.AppendCertsFromPEM(ca.CertPEM)
type CA struct {
	// CertPEM is the CA's certificate, what clients trust.
	CertPEM []byte
	ca      *certAuthority
}

// NewCA returns a new self-signed CA named commonName.
func NewCA(commonName string) (*CA, error) {
	ca, certPEM, err := newCA(commonName)
	if err != nil {
		return nil, err
	}
	return &CA{CertPEM: certPEM, ca: ca}, nil
}

// IssueServing returns a serving certificate for dnsNames and 127.0.0.1, signed by the CA, and its key, in PEM.
func (c *CA) IssueServing(dnsNames ...string) (certPEM, keyPEM []byte, err error) {
	return c.ca.issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: dnsNames[0]},
		DNSNames:    dnsNames,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
}
