package registryprobe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containers/image/v5/docker/reference"
)

const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// testRegistry is a test registry: handle answers manifest requests of repository "team/app".
func testRegistry(t *testing.T, tls bool, handle http.HandlerFunc) *httptest.Server {
	t.Helper()
	var s *httptest.Server
	if tls {
		s = httptest.NewTLSServer(handle)
	} else {
		s = httptest.NewServer(handle)
	}
	t.Cleanup(s.Close)
	return s
}

func target(t *testing.T, s *httptest.Server, suffix string) Target {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimPrefix(s.URL, "https://"), "http://")
	named, err := reference.ParseNormalizedNamed(host + "/team/app" + suffix)
	if err != nil {
		t.Fatal(err)
	}
	return Target{Ref: named}
}

// has answers 200 for the manifest path of team/app at testDigest and tag v1, 404 otherwise.
func has(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v2/team/app/manifests/" + testDigest, "/v2/team/app/manifests/v1":
		w.Header().Set("Docker-Content-Digest", testDigest)
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func fastOptions() Options {
	return Options{Timeout: 2 * time.Second, Backoff: time.Millisecond, Retries: 2}
}

func TestAManifestTheRegistryHoldsIsFoundByDigestAndTagAndAMissingOneIsNotFound(t *testing.T) {
	var heads atomic.Int64
	s := testRegistry(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			heads.Add(1)
		}
		if r.Method != http.MethodHead {
			t.Errorf("a %s request, want only HEAD", r.Method)
		}
		has(w, r)
	})
	p := New(fastOptions())
	defer p.Close()
	for suffix, want := range map[string]Answer{"@" + testDigest: Has, ":v1": Has, ":v2": NotFound} {
		tg := target(t, s, suffix)
		tg.Insecure = true // plain HTTP
		if got := p.Probe(context.Background(), tg); got.Answer != want {
			t.Errorf("%s: %+v, want %s", suffix, got, want)
		}
	}
	if heads.Load() != 3 {
		t.Errorf("%d HEAD requests, want 3", heads.Load())
	}
}

func TestARegistryThatRefusesHeadIsAskedWithGet(t *testing.T) {
	s := testRegistry(t, true, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		has(w, r)
	})
	tg := target(t, s, ":v1")
	tg.Insecure = true
	if got := New(fastOptions()).Probe(context.Background(), tg); got.Answer != Has || got.Digest != testDigest {
		t.Errorf("%+v, want has it with digest %s", got, testDigest)
	}
}

// basicRegistry wants user:secret with Basic authentication.
func basicRegistry(w http.ResponseWriter, r *http.Request) {
	u, pw, ok := r.BasicAuth()
	if !ok || u != "user" || pw != "secret" {
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	has(w, r)
}

func TestALoginIsSentWhenTheRegistryAsksAndNamedInTheResultButNeverItsValue(t *testing.T) {
	s := testRegistry(t, false, basicRegistry)
	p := New(fastOptions())
	tg := target(t, s, ":v1")
	tg.Insecure = true
	got := p.Probe(context.Background(), tg)
	if got.Answer != Unauthorized || got.Credentials != "" || !strings.Contains(got.Detail, "no credentials") {
		t.Errorf("without credentials: %+v", got)
	}
	tg.Credential = Credential{Username: "user", Password: "wrong", From: `auth file entry "x"`}
	got = p.Probe(context.Background(), tg)
	if got.Answer != Unauthorized || got.Credentials != `auth file entry "x"` || !strings.Contains(got.Detail, "refused the credentials") {
		t.Errorf("with wrong credentials: %+v", got)
	}
	tg.Credential.Password = "secret"
	got = p.Probe(context.Background(), tg)
	if got.Answer != Has || got.Credentials != `auth file entry "x"` {
		t.Errorf("with credentials: %+v", got)
	}
	if strings.Contains(got.Detail+got.Credentials, "secret") {
		t.Errorf("the result carries the password: %+v", got)
	}
}

func TestABearerTokenIsAskedOfTheRealmWithThePullScopeAndReused(t *testing.T) {
	var tokens atomic.Int64
	var s *httptest.Server
	s = testRegistry(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			tokens.Add(1)
			u, pw, _ := r.BasicAuth()
			if r.URL.Query().Get("scope") != "repository:team/app:pull" || r.URL.Query().Get("service") != "reg" || u != "user" || pw != "secret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(`{"token": "t0k"}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer t0k" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+s.URL+`/token",service="reg"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		has(w, r)
	})
	p := New(fastOptions())
	tg := target(t, s, ":v1")
	tg.Insecure = true
	tg.Credential = Credential{Username: "user", Password: "secret", From: "f"}
	for range 3 {
		if got := p.Probe(context.Background(), tg); got.Answer != Has {
			t.Fatalf("%+v, want has it", got)
		}
	}
	if tokens.Load() != 1 {
		t.Errorf("%d token requests, want 1 (the token is reused)", tokens.Load())
	}
}

func TestA503IsRetriedAndA429ThatLastsIsReportedAfterTheRetries(t *testing.T) {
	var n atomic.Int64
	s := testRegistry(t, false, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":busy") || strings.HasSuffix(r.URL.Path, "/busy") {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		has(w, r)
	})
	p := New(fastOptions())
	tg := target(t, s, ":v1")
	tg.Insecure = true
	if got := p.Probe(context.Background(), tg); got.Answer != Has {
		t.Errorf("after one 503: %+v, want has it", got)
	}
	tg = target(t, s, ":busy")
	tg.Insecure = true
	got := p.Probe(context.Background(), tg)
	if got.Answer != Failed || got.Detail != "HTTP 429 after 2 retries" {
		t.Errorf("always 429: %+v", got)
	}
}

func TestAnUnknownCANamesTheCertificateProblemAndInsecureSkipsVerification(t *testing.T) {
	s := testRegistry(t, true, has)
	p := New(fastOptions())
	tg := target(t, s, ":v1")
	got := p.Probe(context.Background(), tg)
	if got.Answer != TLSFailure || !strings.Contains(got.Detail, "unknown authority") {
		t.Errorf("%+v, want a TLS failure naming the unknown authority", got)
	}
	tg.Insecure = true
	if got := p.Probe(context.Background(), tg); got.Answer != Has {
		t.Errorf("insecure: %+v, want has it", got)
	}
}

func TestAPlainHTTPRegistryThatIsNotInsecureIsATLSFailure(t *testing.T) {
	s := testRegistry(t, false, has)
	got := New(fastOptions()).Probe(context.Background(), target(t, s, ":v1"))
	if got.Answer != TLSFailure || !strings.Contains(got.Detail, "does not speak TLS") {
		t.Errorf("%+v", got)
	}
}

func TestAClosedPortIsUnreachableAndASilentRegistryTimesOutWithinTheTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	ref, _ := reference.ParseNormalizedNamed(closed + "/team/app:v1")
	p := New(Options{Timeout: 300 * time.Millisecond})
	if got := p.Probe(context.Background(), Target{Ref: ref}); got.Answer != Unreachable || !strings.Contains(got.Detail, "refused") {
		t.Errorf("closed port: %+v", got)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0") // accepts (backlog) and never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	ref, _ = reference.ParseNormalizedNamed(silent.Addr().String() + "/team/app:v1")
	start := time.Now()
	got := p.Probe(context.Background(), Target{Ref: ref})
	if got.Answer != TimedOut {
		t.Errorf("silent: %+v, want timed out", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("silent: took %v, want about the 300ms timeout", d)
	}
}

func TestRequestsToOneRegistryStayWithinThePerRegistryBoundAndReuseConnections(t *testing.T) {
	var inFlight, peak atomic.Int64
	s := testRegistry(t, false, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		has(w, r)
	})
	s.Close()
	s = testRegistry(t, true, s.Config.Handler.ServeHTTP)
	p := New(Options{PerRegistry: 3, Concurrency: 10})
	done := make(chan struct{})
	const probes = 60
	for range probes {
		go func() {
			tg := target(t, s, ":v1")
			tg.Insecure = true
			if got := p.Probe(context.Background(), tg); got.Answer != Has {
				t.Errorf("%+v", got)
			}
			done <- struct{}{}
		}()
	}
	for range probes {
		<-done
	}
	if peak.Load() > 3 {
		t.Errorf("%d requests in flight at once, want at most 3", peak.Load())
	}
	st := p.Stats()
	if st.Requests != probes {
		t.Errorf("%d requests, want %d", st.Requests, probes)
	}
	if st.Connections > 3 {
		t.Errorf("%d connections for %d requests: keep-alive does not reuse them", st.Connections, probes)
	}
}

func TestParseChallengeReadsQuotedValuesWithCommas(t *testing.T) {
	ch := parseChallenge(`Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull,push"`)
	if ch.scheme != "bearer" || ch.params["realm"] != "https://auth.example.com/token" || ch.params["service"] != "registry.example.com" || ch.params["scope"] != "repository:a/b:pull,push" {
		t.Errorf("%+v", ch)
	}
}

func TestAnInsecureHostThatAnsweredPlainHTTPIsAskedSoDirectly(t *testing.T) {
	s := testRegistry(t, false, has)
	p := New(Options{PerRegistry: 1})
	for range 10 {
		tg := target(t, s, ":v1")
		tg.Insecure = true
		if got := p.Probe(context.Background(), tg); got.Answer != Has {
			t.Fatalf("%+v", got)
		}
	}
	// The first question tries HTTPS (one request, one connection), then plain HTTP; the others go straight to
	// plain HTTP over the kept-alive connection.
	if st := p.Stats(); st.Requests != 11 || st.Connections != 2 {
		t.Errorf("%+v, want 11 requests over 2 connections", st)
	}
}
