package registryprobe

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"path/filepath"

	"github.com/containers/image/v5/pkg/tlsclientconfig"
)

// host returns the clients and request slots of a registry host, made on first use.
func (p *Prober) host(name string) *host {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h, ok := p.hosts[name]; ok {
		return h
	}
	secureTLS := &tls.Config{MinVersion: tls.VersionTLS12}
	var tlsErr error
	if p.opts.CertsDir != "" {
		// The same lookup as containers/image's docker client: certs.d/HOST[:PORT]/*.crt, *.cert and *.key.
		if err := tlsclientconfig.SetupCertificates(filepath.Join(p.opts.CertsDir, name), secureTLS); err != nil {
			tlsErr = fmt.Errorf("reading the certificates of %s in %s: %w", name, p.opts.CertsDir, err)
		}
	}
	h := &host{
		secure:   p.client(secureTLS),
		insecure: p.client(&tls.Config{InsecureSkipVerify: true}), //nolint:gosec // registries.conf insecure = true
		tlsErr:   tlsErr,
		slots:    make(chan struct{}, p.opts.PerRegistry),
	}
	p.hosts[name] = h
	return h
}

// client returns an HTTP client with keep-alive, enough idle connections per host for PerRegistry requests in
// flight, and a dialer that counts connections. Redirects are followed (registries send blob and manifest
// requests to storage); the per-request timeout is the request context's.
func (p *Prober) client(tlsConfig *tls.Config) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := p.dialer.DialContext(ctx, network, addr)
			if err == nil {
				p.conns.Add(1)
			}
			return c, err
		},
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: p.opts.Timeout,
		MaxIdleConnsPerHost: p.opts.PerRegistry,
		MaxConnsPerHost:     p.opts.PerRegistry,
		IdleConnTimeout:     idleConnTimeout,
		ForceAttemptHTTP2:   true,
	}}
}

// acquire takes a slot overall and one of h, in that order, waiting while ctx lasts; release gives them back.
func (p *Prober) acquire(ctx context.Context, h *host) error {
	select {
	case p.global <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		<-p.global
		return ctx.Err()
	}
}

func (p *Prober) release(h *host) {
	<-h.slots
	<-p.global
}
