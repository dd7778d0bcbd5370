package endpoints

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// reviewer answers TokenReviews and SubjectAccessReviews as an API server would, from fixed tables, and counts
// them. The real API server's answers are checked by test/integration (TestOnlyPrometheusReadsTheMetrics); this
// test checks the handler's reading of them: the status codes and bodies, the caching, the retries.
type reviewer struct {
	mu sync.Mutex
	// users maps a token to its user name; any other token is not authenticated.
	users map[string]string
	// allowed are the users allowed to get /metrics.
	allowed map[string]bool
	// failures is how many of the next reviews the API server answers with 500.
	failures int
	// forbidReviews makes the API server refuse the controller's own reviews (403).
	forbidReviews          bool
	tokenReviews, sars     int
	lastVerb, lastPath     string
	lastGroups             []string
	sawAuthorizationHeader bool
}

func (r *reviewer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	writeJSON := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	if r.forbidReviews {
		writeJSON(http.StatusForbidden, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden, Message: "reviews are forbidden"})
		return
	}
	if r.failures > 0 {
		r.failures--
		writeJSON(http.StatusInternalServerError, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Reason: metav1.StatusReasonInternalError, Code: http.StatusInternalServerError, Message: "etcd is away"})
		return
	}
	body, _ := io.ReadAll(req.Body)
	switch req.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		r.tokenReviews++
		var tr authenticationv1.TokenReview
		_ = json.Unmarshal(body, &tr)
		if name, ok := r.users[tr.Spec.Token]; ok {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: name, Groups: []string{"system:authenticated"}}}
		}
		writeJSON(http.StatusCreated, tr)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		r.sars++
		var sar authorizationv1.SubjectAccessReview
		_ = json.Unmarshal(body, &sar)
		r.lastVerb, r.lastPath, r.lastGroups = sar.Spec.NonResourceAttributes.Verb, sar.Spec.NonResourceAttributes.Path, sar.Spec.Groups
		sar.Status.Allowed = r.allowed[sar.Spec.User] && sar.Spec.NonResourceAttributes.Verb == "get" && sar.Spec.NonResourceAttributes.Path == "/metrics"
		writeJSON(http.StatusCreated, sar)
	default:
		http.NotFound(w, req)
	}
}

func (r *reviewer) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tokenReviews, r.sars
}

func startReviewer(t *testing.T) (*reviewer, *delegatedHandler, *httptest.Server) {
	t.Helper()
	rv := &reviewer{users: map[string]string{"prom-token": "prometheus", "nobody-token": "nobody"}, allowed: map[string]bool{"prometheus": true}}
	apiServer := httptest.NewServer(rv)
	t.Cleanup(apiServer.Close)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Authorization") != "" {
			rv.mu.Lock()
			rv.sawAuthorizationHeader = true
			rv.mu.Unlock()
		}
		_, _ = io.WriteString(w, "registries_controller_test_total 1\n")
	})
	// JSON: the fake decodes nothing else (the generated clients send protobuf by default).
	h, err := delegated(metrics, &rest.Config{Host: apiServer.URL, ContentConfig: rest.ContentConfig{ContentType: "application/json"}})
	if err != nil {
		t.Fatal(err)
	}
	d := h.(*delegatedHandler)
	d.backoff.Duration = time.Millisecond // the retries, not their pace, are under test
	server := httptest.NewServer(d)
	t.Cleanup(server.Close)
	return rv, d, server
}

func getMetricsAs(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url+PathMetrics, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestMetricsAnswerAsTheAPIServersFiltersDo(t *testing.T) {
	rv, _, server := startReviewer(t)
	status := func(body string) metav1.Status {
		t.Helper()
		var s metav1.Status
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatalf("%q is not a Status: %v", body, err)
		}
		return s
	}

	code, body := getMetricsAs(t, server.URL, "")
	if s := status(body); code != http.StatusUnauthorized || s.Kind != "Status" || s.Reason != metav1.StatusReasonUnauthorized || s.Message != "Unauthorized" || s.Code != 401 {
		t.Errorf("no token: %d %s, want 401 and the Unauthorized Status", code, body)
	}
	if tr, _ := rv.counts(); tr != 0 {
		t.Errorf("no token: %d TokenReviews, want none", tr)
	}

	code, body = getMetricsAs(t, server.URL, "not-a-token")
	if s := status(body); code != http.StatusUnauthorized || s.Reason != metav1.StatusReasonUnauthorized {
		t.Errorf("a token the API server does not accept: %d %s, want 401", code, body)
	}

	code, body = getMetricsAs(t, server.URL, "nobody-token")
	want := `forbidden: User "nobody" cannot get path "/metrics"`
	if s := status(body); code != http.StatusForbidden || s.Reason != metav1.StatusReasonForbidden || s.Message != want {
		t.Errorf("a user not allowed: %d %s, want 403 with %q", code, body, want)
	}

	code, body = getMetricsAs(t, server.URL, "prom-token")
	if code != http.StatusOK || !strings.Contains(body, "registries_controller_test_total") {
		t.Errorf("prometheus: %d %q, want 200 and the metrics", code, body)
	}
	rv.mu.Lock()
	if rv.lastVerb != "get" || rv.lastPath != "/metrics" || len(rv.lastGroups) != 1 || rv.lastGroups[0] != "system:authenticated" {
		t.Errorf("the SubjectAccessReview asked for %q on %q with groups %q, want get on /metrics with the user's groups", rv.lastVerb, rv.lastPath, rv.lastGroups)
	}
	if rv.sawAuthorizationHeader {
		t.Error("the metrics handler saw the Authorization header")
	}
	rv.mu.Unlock()

	// Within 10 s, every answer is reused: no review is sent again, allowed, denied or not authenticated.
	tr, sars := rv.counts()
	for _, token := range []string{"prom-token", "nobody-token", "not-a-token"} {
		getMetricsAs(t, server.URL, token)
	}
	if tr2, sars2 := rv.counts(); tr2 != tr || sars2 != sars {
		t.Errorf("scrapes within the cache's 10 s sent %d TokenReviews and %d SubjectAccessReviews, want none", tr2-tr, sars2-sars)
	}
}

func TestMetricsReviewsAreRetriedAndAnswersExpire(t *testing.T) {
	rv, d, server := startReviewer(t)
	clock := clocktesting.NewFakeClock(time.Now())
	d.users = cache.NewLRUExpireCacheWithClock(cacheEntries, clock)
	d.answers = cache.NewLRUExpireCacheWithClock(cacheEntries, clock)

	rv.mu.Lock()
	rv.failures = 2 // the TokenReview twice
	rv.mu.Unlock()
	if code, body := getMetricsAs(t, server.URL, "prom-token"); code != http.StatusOK {
		t.Errorf("after two 500s of the API server: %d %q, want 200 (retried)", code, body)
	}
	if tr, sars := rv.counts(); tr != 1 || sars != 1 {
		t.Errorf("%d TokenReviews and %d SubjectAccessReviews answered, want 1 each", tr, sars)
	}

	clock.Step(tokenCacheTTL + time.Nanosecond) // an answer is good for the whole TTL, and not a moment longer
	if code, _ := getMetricsAs(t, server.URL, "prom-token"); code != http.StatusOK {
		t.Errorf("after the cache's TTL: %d, want 200", code)
	}
	if tr, sars := rv.counts(); tr != 2 || sars != 2 {
		t.Errorf("after the cache's TTL: %d TokenReviews and %d SubjectAccessReviews, want 2 each (asked again)", tr, sars)
	}

	// A review the API server refuses outright is not retried: 401 when it is the TokenReview.
	clock.Step(tokenCacheTTL + time.Nanosecond)
	rv.mu.Lock()
	rv.forbidReviews = true
	rv.mu.Unlock()
	if code, body := getMetricsAs(t, server.URL, "prom-token"); code != http.StatusUnauthorized {
		t.Errorf("TokenReviews forbidden to the controller: %d %q, want 401", code, body)
	}
}

func TestMetricsAnswer500WhenTheSubjectAccessReviewFails(t *testing.T) {
	rv, d, server := startReviewer(t)
	if code, _ := getMetricsAs(t, server.URL, "prom-token"); code != http.StatusOK {
		t.Fatalf("prometheus: %d, want 200", code)
	}
	// The token's answer is cached; a user not seen yet needs a SubjectAccessReview the API server now refuses.
	d.users.Add(tokenKey("other-token"), authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "other"}}, time.Minute)
	rv.mu.Lock()
	rv.forbidReviews = true
	rv.mu.Unlock()
	if code, body := getMetricsAs(t, server.URL, "other-token"); code != http.StatusInternalServerError || !strings.Contains(body, "Internal Server Error") {
		t.Errorf("SubjectAccessReview refused: %d %q, want 500", code, body)
	}
}
