package endpoints

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	authenticationclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// Delegated authentication and authorization, with the defaults of Kubernetes components (k8s.io/apiserver's
// DelegatingAuthenticationOptions and DelegatingAuthorizationOptions, as kube-controller-manager uses them).
const (
	// tokenCacheTTL is how long a TokenReview's answer (authenticated or not) is reused for the same token.
	tokenCacheTTL = 10 * time.Second
	// reviewTimeout bounds one TokenReview, its retries included.
	reviewTimeout = 10 * time.Second
	// allowCacheTTL and denyCacheTTL are how long a SubjectAccessReview's answer is reused.
	allowCacheTTL = 10 * time.Second
	denyCacheTTL  = 10 * time.Second
	// cacheEntries bounds each cache; when it is full, the entry used least recently goes.
	cacheEntries = 1024
)

// webhookRetryBackoff is k8s.io/apiserver's DefaultAuthWebhookRetryBackoff, which retries a review the API server
// could not answer.
func webhookRetryBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// delegated wraps h in what the handler chain of Kubernetes components (k8s.io/controller-manager's
// BuildHandlerChain: k8s.io/apiserver's WithAuthentication with the delegating token authenticator, and
// WithAuthorization with the delegating authorizer) does for a request to a non-resource path, written against the
// TokenReview and SubjectAccessReview clients directly: k8s.io/apiserver's filters link most of an API server
// (audit, admission, storage, CEL, egress selection, their metrics registries), whose package initialisation every
// command of this one binary paid for at start (docs/benchmarks.md, "The offline render and the process start").
//
//   - The request's bearer token (`Authorization: Bearer …`) is authenticated by the API server (TokenReview, no
//     audiences); no token, one it does not accept, or a review that failed: 401 with the API server's
//     Unauthorized Status. An answer is reused for 10 s; a failed review is not remembered.
//   - The user is authorized by the API server (SubjectAccessReview of the request's method, lower-cased, on its
//     path: `get` on the non-resource URL /metrics); not allowed: 403 with the API server's Forbidden Status,
//     `forbidden: User "…" cannot get path "/metrics"`; a review that failed: 500. Answers are reused for 10 s.
//   - A review the API server could not answer (connection reset, 500, 504, 429, Retry-After) is retried with
//     k8s.io/apiserver's backoff.
//
// The authenticated request reaches h without its Authorization header.
func delegated(h http.Handler, cfg *rest.Config) (http.Handler, error) {
	authn, err := authenticationclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client of the API server's TokenReviews: %w", err)
	}
	authz, err := authorizationclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client of the API server's SubjectAccessReviews: %w", err)
	}
	return &delegatedHandler{
		next:    h,
		tokens:  authn.TokenReviews(),
		reviews: authz.SubjectAccessReviews(),
		backoff: webhookRetryBackoff(),
		users:   cache.NewLRUExpireCache(cacheEntries),
		answers: cache.NewLRUExpireCache(cacheEntries),
	}, nil
}

type delegatedHandler struct {
	next    http.Handler
	tokens  authenticationclient.TokenReviewInterface
	reviews authorizationclient.SubjectAccessReviewInterface
	backoff wait.Backoff
	// users and answers remember the API server's answers for a while: TokenReviewStatus by tokenKey,
	// SubjectAccessReviewStatus by the review's spec.
	users   *cache.LRUExpireCache
	answers *cache.LRUExpireCache
}

func (d *delegatedHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	ctx := req.Context()
	logger := klog.FromContext(ctx)
	token, ok := bearerToken(req)
	if !ok {
		writeStatus(w, apierrors.NewUnauthorized("Unauthorized"))
		return
	}
	user, err := d.authenticate(ctx, token)
	if err != nil {
		logger.Error(err, "Unable to authenticate the request")
	}
	if user == nil {
		writeStatus(w, apierrors.NewUnauthorized("Unauthorized"))
		return
	}
	req.Header.Del("Authorization")

	verb, path := strings.ToLower(req.Method), req.URL.Path
	answer, err := d.authorize(ctx, user, verb, path)
	switch {
	case answer != nil && answer.Allowed && !answer.Denied:
		d.next.ServeHTTP(w, req)
	case err != nil || (answer != nil && answer.Allowed && answer.Denied):
		if err == nil {
			err = errors.New("webhook subject access review returned both allow and deny response")
		}
		logger.Error(err, "Unable to authorize the request")
		http.Error(w, sanitizer.Replace(fmt.Sprintf("Internal Server Error: %q: %v", req.RequestURI, err)), http.StatusInternalServerError)
	default:
		logger.V(4).Info("Forbidden", "URI", req.RequestURI, "reason", answer.Reason)
		msg := sanitizer.Replace(fmt.Sprintf("User %q cannot %s path %q", user.Username, verb, path))
		if answer.Reason != "" {
			msg += ": " + answer.Reason
		}
		writeStatus(w, apierrors.NewForbidden(schema.GroupResource{}, "", errors.New(msg)))
	}
}

// authenticate returns the token's user, or nil when the API server does not accept it (with the reason it gave,
// if any, as the error).
func (d *delegatedHandler) authenticate(ctx context.Context, token string) (*authenticationv1.UserInfo, error) {
	key := tokenKey(token)
	status, ok := cachedAs[authenticationv1.TokenReviewStatus](d.users, key)
	if !ok {
		ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
		defer cancel()
		var result *authenticationv1.TokenReview
		err := withBackoff(ctx, d.backoff, func() (err error) {
			result, err = d.tokens.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("TokenReview: %w", err)
		}
		status = result.Status
		if status.Authenticated || status.Error == "" { // a review that says why it failed is not remembered
			d.users.Add(key, status, tokenCacheTTL)
		}
	}
	if !status.Authenticated {
		if status.Error != "" {
			return nil, errors.New(status.Error)
		}
		return nil, nil
	}
	return &status.User, nil
}

// tokenKey is what the token cache is keyed by: the token's digest, so the cache holds no credential.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return string(sum[:])
}

// authorize returns the API server's answer to whether user may do verb on the non-resource path.
func (d *delegatedHandler) authorize(ctx context.Context, user *authenticationv1.UserInfo, verb, path string) (*authorizationv1.SubjectAccessReviewStatus, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User:                  user.Username,
		UID:                   user.UID,
		Groups:                user.Groups,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	if len(user.Extra) > 0 {
		spec.Extra = make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	key, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	if status, ok := cachedAs[authorizationv1.SubjectAccessReviewStatus](d.answers, string(key)); ok {
		return &status, nil
	}
	var result *authorizationv1.SubjectAccessReview
	if err := withBackoff(ctx, d.backoff, func() (err error) {
		result, err = d.reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
		return err
	}); err != nil {
		return nil, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	ttl := denyCacheTTL
	if result.Status.Allowed {
		ttl = allowCacheTTL
	}
	d.answers.Add(string(key), result.Status, ttl)
	return &result.Status, nil
}

// bearerToken is k8s.io/apiserver's bearer token authenticator's reading of the Authorization header.
func bearerToken(req *http.Request) (string, bool) {
	auth := strings.TrimSpace(req.Header.Get("Authorization"))
	parts := strings.SplitN(auth, " ", 3)
	if len(parts) < 2 || strings.ToLower(parts[0]) != "bearer" || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

// withBackoff is k8s.io/apiserver's webhook.WithExponentialBackoff with its DefaultShouldRetry: call is retried
// while the API server's error says the review may succeed later.
func withBackoff(ctx context.Context, backoff wait.Backoff, call func() error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, backoff, func(context.Context) (bool, error) {
		last = call()
		if shouldRetry(last) {
			return false, nil
		}
		return last == nil, last
	})
	switch {
	case last != nil:
		return last
	case err != nil:
		return fmt.Errorf("webhook call failed: %s", err.Error())
	}
	return nil
}

func shouldRetry(err error) bool {
	if err == nil {
		return false
	}
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) || apierrors.IsInternalError(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, delay := apierrors.SuggestsClientDelay(err)
	return delay
}

// sanitizer is k8s.io/apiserver's responsewriters' escaping of user-controlled text in an error.
var sanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// writeStatus writes err's metav1.Status as the API server writes it for a client that asks for JSON.
func writeStatus(w http.ResponseWriter, err *apierrors.StatusError) {
	status := err.Status()
	status.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	body, marshalErr := json.Marshal(&status)
	if marshalErr != nil {
		http.Error(w, status.Message, int(status.Code))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(int(status.Code))
	_, _ = w.Write(append(body, '\n'))
}

// cachedAs returns the value c holds for key, if it holds one that has not expired.
func cachedAs[V any](c *cache.LRUExpireCache, key string) (V, bool) {
	v, ok := c.Get(key)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}
