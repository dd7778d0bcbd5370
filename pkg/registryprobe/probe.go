// Package registryprobe asks a container registry, with read requests only, whether it holds one manifest: the
// request a node's pull makes first at each place it tries (HEAD of /v2/<repository>/manifests/<tag or digest>,
// falling back to GET when a registry does not answer HEAD). It authenticates as containers/image does (a
// Bearer token from the registry's realm, or Basic), trusts the CAs of a certs.d directory per host as CRI-O
// does, skips TLS verification and falls back to plain HTTP for insecure registries, and says what went wrong
// in terms a person can act on: not found, unauthorized or forbidden (with which credentials), the certificate
// problem, unreachable, timed out.
//
// A Prober is safe for concurrent use: it bounds the requests in flight overall and per registry, times each
// request out, retries 429 and 5xx answers with backoff, and keeps connections alive between requests.
// Credential values are sent to the registry and to its token realm only; they are never in a Result, an error or
// a log line.
package registryprobe

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/containers/image/v5/docker/reference"
)

// Answer is a registry's answer to a manifest request, in a person's words.
type Answer string

const (
	// Has: the registry holds the manifest (HTTP 200).
	Has Answer = "has it"
	// NotFound: the registry answered 404 (MANIFEST_UNKNOWN, NAME_UNKNOWN).
	NotFound Answer = "not found"
	// Unauthorized: 401, with the credentials sent, or without any.
	Unauthorized Answer = "unauthorized"
	// Forbidden: 403, the credentials are known but may not pull the repository.
	Forbidden Answer = "forbidden"
	// TLSFailure: the TLS handshake failed; Result.Detail names the certificate problem.
	TLSFailure Answer = "TLS failure"
	// Unreachable: no connection (refused, no route, no such host).
	Unreachable Answer = "unreachable"
	// TimedOut: no answer within the per-request timeout.
	TimedOut Answer = "timed out"
	// Failed: any other answer, e.g. HTTP 500 after every retry.
	Failed Answer = "failed"
)

// Credential is what is sent to a registry for one repository. Its values never leave this package: only From
// is reported.
type Credential struct {
	Username, Password string
	// IdentityToken is an OAuth2 refresh token (an auth file's "identitytoken"), exchanged at the token realm.
	IdentityToken string
	// From names where the credentials come from, e.g. `auth file entry "mirror.example.com"`; "" with none.
	From string
}

func (c Credential) empty() bool {
	return c.Username == "" && c.Password == "" && c.IdentityToken == ""
}

// Target is one manifest to ask for.
type Target struct {
	// Ref names the registry, the repository and the tag or digest, e.g. "mirror.example.com/ocp/release@sha256:…".
	Ref reference.Named
	// Insecure: skip TLS verification, and fall back to plain HTTP when HTTPS fails (registries.conf insecure).
	Insecure bool
	// Credential is sent when the registry asks for authentication.
	Credential Credential
}

// Result is a registry's answer for one Target.
type Result struct {
	Answer Answer `json:"answer"`
	// Detail says more, e.g. "HTTP 404: MANIFEST_UNKNOWN" or "x509: certificate signed by unknown authority".
	Detail string `json:"detail,omitempty"`
	// Credentials names the credentials sent (Credential.From), "" when none were.
	Credentials string `json:"credentials,omitempty"`
	// Digest is the manifest digest the registry reported (Docker-Content-Digest), when it has it.
	Digest string `json:"digest,omitempty"`
}

// Options say how a Prober behaves. Zero fields take the defaults below.
type Options struct {
	// Timeout bounds each request, connection included (default 10s).
	Timeout time.Duration
	// Retries is how often a 429 or 5xx answer is retried (default 3), after Backoff, doubled each time (default
	// 200ms); a Retry-After of at most MaxBackoff is honoured.
	Retries int
	Backoff time.Duration
	// Concurrency bounds the requests in flight overall (default 32) and PerRegistry those to one host (default 8).
	Concurrency, PerRegistry int
	// CertsDir is a certs.d directory: the *.crt files of CertsDir/HOST are CAs trusted for HOST, and
	// *.cert/*.key pairs client certificates, as containers/image reads /etc/containers/certs.d. "" adds none.
	CertsDir string
}

const (
	defaultTimeout     = 10 * time.Second
	defaultRetries     = 3
	defaultBackoff     = 200 * time.Millisecond
	maxBackoff         = 5 * time.Second
	defaultConcurrency = 32
	defaultPerRegistry = 8
)

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.Retries <= 0 {
		o.Retries = defaultRetries
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	if o.Concurrency <= 0 {
		o.Concurrency = defaultConcurrency
	}
	if o.PerRegistry <= 0 {
		o.PerRegistry = defaultPerRegistry
	}
	return o
}

// Stats count what a Prober did, for benchmarks and for the summary.
type Stats struct {
	// Requests are the HTTP requests sent (token requests included).
	Requests int64 `json:"requests"`
	// Connections are the TCP connections opened.
	Connections int64 `json:"connections"`
}

// Prober asks registries for manifests. Make one with New.
type Prober struct {
	opts   Options
	global chan struct{}

	mu      sync.Mutex
	hosts   map[string]*host
	tokens  map[tokenKey]string
	dialer  *net.Dialer
	request atomic.Int64
	conns   atomic.Int64
}

// host is what a Prober keeps per registry host: its clients (one verifying TLS with the host's CAs, one for
// insecure access) and the bound of its requests in flight.
type host struct {
	secure, insecure *http.Client
	tlsErr           error
	slots            chan struct{}
	// plainHTTP is set once an insecure host answered over plain HTTP after HTTPS failed.
	plainHTTP atomic.Bool
}

// New returns a Prober.
func New(opts Options) *Prober {
	opts = opts.withDefaults()
	return &Prober{
		opts:   opts,
		global: make(chan struct{}, opts.Concurrency),
		hosts:  map[string]*host{},
		tokens: map[tokenKey]string{},
		dialer: &net.Dialer{Timeout: opts.Timeout, KeepAlive: 30 * time.Second},
	}
}

// Stats returns the counts so far.
func (p *Prober) Stats() Stats {
	return Stats{Requests: p.request.Load(), Connections: p.conns.Load()}
}

// Close closes idle connections.
func (p *Prober) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.hosts {
		h.secure.CloseIdleConnections()
		h.insecure.CloseIdleConnections()
	}
}

// Probe asks t's registry whether it holds t's manifest.
func (p *Prober) Probe(ctx context.Context, t Target) Result {
	h := p.host(reference.Domain(t.Ref))
	if !t.Insecure && h.tlsErr != nil {
		return Result{Answer: TLSFailure, Detail: h.tlsErr.Error()}
	}
	m := manifestRequest{p: p, h: h, t: t}
	return m.run(ctx)
}
