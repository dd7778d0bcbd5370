package registries

import (
	"encoding/json"
	"fmt"

	"github.com/containers/image/v5/signature"
)

// renderPolicy builds /etc/containers/policy.json from the node's base policy (semantics §3): with
// allowed registries, everything else is rejected; with blocked registries, only they are. The same
// scopes go under the legacy "atomic" transport when it can express them. Returns nil when neither list
// applies.
func renderPolicy(allowed []string, plan *blockingPlan) ([]byte, error) {
	if len(allowed) == 0 && len(plan.blocked) == 0 {
		return nil, nil
	}
	accept := signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}
	reject := signature.PolicyRequirements{signature.NewPRReject()}
	policy := &signature.Policy{
		Default: accept,
		Transports: map[string]signature.PolicyTransportScopes{
			"docker-daemon": {"": accept},
		},
	}
	docker := signature.PolicyTransportScopes{}
	atomic := signature.PolicyTransportScopes{}
	set := func(scope string, reqs signature.PolicyRequirements) {
		docker[scope] = reqs
		if atomicScope(scope) {
			atomic[scope] = reqs
		}
	}
	if len(allowed) > 0 {
		policy.Default = reject
		for _, s := range allowed {
			set(s, accept)
		}
	}
	for _, b := range plan.blocked {
		set(string(b.scope), reject)
	}
	if plan.payloadRepository != "" {
		set(plan.payloadRepository, accept)
	}
	policy.Transports["docker"] = docker
	policy.Transports["atomic"] = atomic
	data, err := json.MarshalIndent(policy, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding policy.json: %w", err)
	}
	return data, nil
}
