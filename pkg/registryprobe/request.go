package registryprobe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/containers/image/v5/docker/reference"
)

// manifestAccept are the manifest types a node's pull accepts, as containers/image's docker client sends them.
var manifestAccept = strings.Join([]string{
	"application/vnd.oci.image.index.v1+json",
	"application/vnd.oci.image.manifest.v1+json",
	"application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.docker.distribution.manifest.v2+json",
	"application/vnd.docker.distribution.manifest.v1+prettyjws",
	"application/vnd.docker.distribution.manifest.v1+json",
}, ", ")

// manifestRequest is one Probe: the manifest of t at h, over HTTPS (and plain HTTP for an insecure registry).
type manifestRequest struct {
	p *Prober
	h *host
	t Target
}

// run asks over HTTPS; an insecure registry that fails there is asked over plain HTTP, as containers/image does.
func (m *manifestRequest) run(ctx context.Context) Result {
	client := m.h.secure
	if m.t.Insecure {
		client = m.h.insecure
	}
	if m.t.Insecure && m.h.plainHTTP.Load() {
		// Once a host answered over plain HTTP only, it is asked so directly, as containers/image's client
		// remembers the scheme its ping found.
		res, err := m.ask(ctx, client, "http")
		if err == nil {
			return res
		}
		r := classify(err)
		r.Credentials = res.Credentials
		return r
	}
	res, err := m.ask(ctx, client, "https")
	if err != nil && m.t.Insecure && ctx.Err() == nil {
		if res, err = m.ask(ctx, client, "http"); err == nil {
			m.h.plainHTTP.Store(true)
		}
	}
	if err != nil {
		r := classify(err)
		r.Credentials = res.Credentials
		return r
	}
	return res
}

// ask asks with HEAD and, when the registry does not answer HEAD usefully, with GET. It authenticates when asked
// to, and retries 429 and 5xx answers.
func (m *manifestRequest) ask(ctx context.Context, client *http.Client, scheme string) (Result, error) {
	url := fmt.Sprintf("%s://%s/v2/%s/manifests/%s", scheme, reference.Domain(m.t.Ref), reference.Path(m.t.Ref), tagOrDigest(m.t.Ref))
	var res Result
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		status, header, err := m.send(ctx, client, method, url, &res)
		if err != nil {
			return res, err
		}
		switch {
		case status == http.StatusOK:
			res.Answer, res.Digest = Has, header.Get("Docker-Content-Digest")
			res.Detail = ""
			return res, nil
		case status == http.StatusNotFound:
			res.Answer, res.Detail = NotFound, "HTTP 404"
			return res, nil
		case status == http.StatusUnauthorized:
			res.Answer, res.Detail = Unauthorized, "HTTP 401"
			if res.Credentials == "" {
				res.Detail += ": the registry requires authentication and there are no credentials for it"
			} else {
				res.Detail += ": the registry refused the credentials"
			}
			return res, nil
		case status == http.StatusForbidden:
			res.Answer, res.Detail = Forbidden, "HTTP 403: the credentials may not pull this repository"
			return res, nil
		case status == http.StatusTooManyRequests || status >= 500:
			res.Answer, res.Detail = Failed, fmt.Sprintf("HTTP %d after %d retries", status, m.p.opts.Retries)
			return res, nil
		}
		// 405 and other answers to HEAD: ask with GET.
		res.Answer, res.Detail = Failed, fmt.Sprintf("HTTP %d to %s", status, method)
	}
	return res, nil
}

// send sends one request, with a token or Basic credentials once the registry asked for them, retrying 429 and
// 5xx with backoff. It returns the final status and headers; the body is drained and closed.
func (m *manifestRequest) send(ctx context.Context, client *http.Client, method, url string, res *Result) (int, http.Header, error) {
	repo := reference.Path(m.t.Ref)
	auth := m.p.cachedAuth(reference.Domain(m.t.Ref), repo, m.t.Credential.From)
	authenticated := false
	backoff := m.p.opts.Backoff
	for attempt := 0; ; attempt++ {
		status, header, err := m.do(ctx, client, method, url, auth)
		if err != nil {
			return 0, nil, err
		}
		if status == http.StatusUnauthorized && !authenticated {
			authenticated = true
			ch := parseChallenge(header.Get("WWW-Authenticate"))
			if m.t.Credential.empty() && ch.scheme != bearerScheme {
				return status, header, nil
			}
			a, err := m.p.authorize(ctx, client, m, ch)
			if err != nil {
				return 0, nil, err
			}
			if a.credentialsSent {
				res.Credentials = m.t.Credential.From
			}
			if a.header == "" {
				return status, header, nil
			}
			auth = a.header
			continue
		}
		if (status == http.StatusTooManyRequests || status >= 500) && attempt < m.p.opts.Retries {
			if err := sleep(ctx, retryAfter(header, backoff)); err != nil {
				return 0, nil, err
			}
			backoff *= 2
			continue
		}
		if auth != "" && res.Credentials == "" && !m.t.Credential.empty() {
			res.Credentials = m.t.Credential.From
		}
		return status, header, nil
	}
}

// do sends one request under the bounds of concurrency and the per-request timeout.
func (m *manifestRequest) do(ctx context.Context, client *http.Client, method, url, auth string) (int, http.Header, error) {
	if err := m.p.acquire(ctx, m.h); err != nil {
		return 0, nil, err
	}
	defer m.p.release(m.h)
	ctx, cancel := context.WithTimeout(ctx, m.p.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", manifestAccept)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	m.p.request.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	// Drained so that the connection is reused; a manifest is small, and a HEAD has no body.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	return resp.StatusCode, resp.Header, nil
}

// maxDrain bounds what is read of an answer's body to reuse its connection.
const maxDrain = 4 << 20

// tagOrDigest returns the digest of a canonical reference, else its tag ("latest" when it has none).
func tagOrDigest(ref reference.Named) string {
	if c, ok := ref.(reference.Canonical); ok {
		return c.Digest().String()
	}
	if t, ok := ref.(reference.Tagged); ok {
		return t.Tag()
	}
	return "latest"
}

// retryAfter returns the wait before a retry: the answer's Retry-After in seconds when it is at most maxBackoff,
// else backoff.
func retryAfter(h http.Header, backoff time.Duration) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		if d := time.Duration(s) * time.Second; d <= maxBackoff {
			return d
		}
	}
	return min(backoff, maxBackoff)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errNoToken is returned when a token realm answers without a token.
var errNoToken = errors.New("the token realm answered without a token")

func domainOf(m *manifestRequest) string { return reference.Domain(m.t.Ref) }
func pathOf(m *manifestRequest) string   { return reference.Path(m.t.Ref) }
