package registries

import (
	"strings"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// PolicyScopes is what /etc/containers/policy.json needs from the merge (docs/semantics.md §3.2, §4): the
// Image's allowed registries, the blocked scopes that apply once the release payload rule has run, and the
// payload repository policy.json must accept because blocking was kept thanks to a mirror. pkg/imagepolicy
// renders policy.json from it, together with the signature policies.
//
// PayloadRepository is deliberately not one of Allowed: it only accepts the payload's own repository and
// never turns the default to reject or constrains the scopes of signature policies (docs/semantics.md §9.9 D4).
type PolicyScopes struct {
	// Allowed are spec.registrySources.allowedRegistries, in list order, e.g. "quay.io", "*.trusted.io".
	Allowed []ScopeOrigin
	// Blocked are the blocked scopes that apply (docs/semantics.md §4), in list order.
	Blocked []ScopeOrigin
	// PayloadRepository is the release payload's repository, e.g. "quay.io/openshift-release-dev/ocp-release",
	// when a blocked scope covers it and a mirror keeps it pullable; "" otherwise.
	PayloadRepository string
}

// ScopeOrigin is a scope and the field it was written in.
type ScopeOrigin struct {
	// Scope is the scope as written, e.g. "quay.io/team".
	Scope Scope
	// At is the field, e.g. Image "cluster" spec.registrySources.blockedRegistries[1].
	At inputs.FieldRef
}

// Empty reports whether policy.json has nothing to say about allowed or blocked registries.
func (p PolicyScopes) Empty() bool {
	return len(p.Allowed) == 0 && len(p.Blocked) == 0 && p.PayloadRepository == ""
}

func policyScopes(allowed []scopeItem, plan *blockingPlan) PolicyScopes {
	out := PolicyScopes{PayloadRepository: plan.payloadRepository}
	for _, a := range allowed {
		out.Allowed = append(out.Allowed, ScopeOrigin{Scope: a.scope, At: a.origin})
	}
	for _, b := range plan.blocked {
		out.Blocked = append(out.Blocked, ScopeOrigin{Scope: b.scope, At: b.origin})
	}
	return out
}

// AtomicScope reports whether a scope is accepted by the legacy "atomic" transport of policy.json, which
// allows at most hostname/namespace/stream (fewer than three "/").
func AtomicScope(scope string) bool { return strings.Count(scope, "/") < 3 }
