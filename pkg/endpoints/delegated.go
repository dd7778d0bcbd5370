package endpoints

import (
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	genericfilters "k8s.io/apiserver/pkg/endpoints/filters"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Delegated authentication and authorization, with the defaults of Kubernetes components (k8s.io/apiserver's
// DelegatingAuthenticationOptions and DelegatingAuthorizationOptions, as kube-controller-manager uses them).
const (
	// tokenCacheTTL is how long a TokenReview's answer is reused for the same token.
	tokenCacheTTL = 10 * time.Second
	// reviewTimeout bounds one TokenReview.
	reviewTimeout = 10 * time.Second
	// allowCacheTTL and denyCacheTTL are how long a SubjectAccessReview's answer is reused.
	allowCacheTTL = 10 * time.Second
	denyCacheTTL  = 10 * time.Second
)

// webhookRetryBackoff is k8s.io/apiserver's DefaultAuthWebhookRetryBackoff, which retries a review the API server
// could not answer (its options package is not imported for one value).
func webhookRetryBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// delegated wraps h in the handler chain Kubernetes components put in front of their own /metrics
// (k8s.io/controller-manager's BuildHandlerChain): the request's bearer token is authenticated by the API server
// (TokenReview; none, or one it does not accept: 401), and the user's request authorized by it
// (SubjectAccessReview of the verb on the path, here `get` on the non-resource URL /metrics; denied: 403). Both
// answers are cached briefly, and a review the API server could not answer is retried.
func delegated(h http.Handler, cfg *rest.Config) (http.Handler, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client of the API server: %w", err)
	}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                &apiserver.AnonymousAuthConfig{Enabled: false},
		CacheTTL:                 tokenCacheTTL,
		TokenAccessReviewClient:  kube.AuthenticationV1(),
		TokenAccessReviewTimeout: reviewTimeout,
		WebhookRetryBackoff:      webhookRetryBackoff(),
	}.New()
	if err != nil {
		return nil, fmt.Errorf("delegated authentication: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: kube.AuthorizationV1(),
		AllowCacheTTL:             allowCacheTTL,
		DenyCacheTTL:              denyCacheTTL,
		WebhookRetryBackoff:       webhookRetryBackoff(),
	}.New()
	if err != nil {
		return nil, fmt.Errorf("delegated authorization: %w", err)
	}
	codecs := statusCodecs()
	h = genericfilters.WithAuthorization(h, authz, codecs)
	h = genericfilters.WithAuthentication(h, authn, genericfilters.Unauthorized(codecs), nil, nil)
	h = genericfilters.WithRequestInfo(h, &apirequest.RequestInfoFactory{
		APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")})
	return h, nil
}

// statusCodecs encode the metav1.Status of a refused request, as the API server writes it.
func statusCodecs() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme)
}
