package imagepolicy

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/containers/image/v5/signature"

	// Registers the docker transport, so that decoding a policy validates its docker scopes.
	_ "github.com/containers/image/v5/docker"

	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
)

// Transports of policy.json.
const (
	transportDocker = "docker"
	transportAtomic = "atomic"
)

// clusterPolicy renders /etc/containers/policy.json (docs/semantics.md §3.2, §9.3): nil when the node keeps its
// base file, the base file's bytes verbatim when only ImagePolicy scopes survive (docs/semantics.md §9.9 D6).
func clusterPolicy(scopes registries.PolicyScopes, c *combined) ([]byte, error) {
	if scopes.Empty() && len(c.cluster) == 0 {
		if len(c.namespaced) > 0 {
			return nodefiles.Base(nodefiles.PolicyJSON), nil
		}
		return nil, nil
	}
	policy, err := basePolicy()
	if err != nil {
		return nil, err
	}
	cipScope := map[string]bool{}
	for _, u := range c.cluster {
		cipScope[u.scope] = true
	}
	accept := signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}
	reject := signature.PolicyRequirements{signature.NewPRReject()}
	m := signature.PolicyTransportScopes{}
	if len(scopes.Allowed) > 0 {
		policy.Default = reject
		for _, a := range scopes.Allowed {
			if !cipScope[string(a.Scope)] { // it gets only the requirements (docs/semantics.md §9.9 D6)
				m[string(a.Scope)] = accept
			}
		}
	}
	if len(scopes.Blocked) > 0 {
		policy.Default = accept
		for _, b := range scopes.Blocked {
			m[string(b.Scope)] = reject
		}
	}
	if p := scopes.PayloadRepository; p != "" {
		if cipScope[p] {
			delete(m, p)
		} else {
			m[p] = accept
		}
	}
	for _, u := range c.cluster {
		m[u.scope] = append(slices.Clone(m[u.scope]), u.req)
	}
	if len(m) > 0 {
		atomic := signature.PolicyTransportScopes{}
		for scope, reqs := range m {
			if registries.AtomicScope(scope) {
				atomic[scope] = reqs
			}
		}
		policy.Transports[transportDocker] = m
		policy.Transports[transportAtomic] = atomic
	}
	return encode(policy)
}

// namespacePolicy renders /etc/crio/policies/<namespace>.json (docs/semantics.md §9.4): the final cluster policy with the
// namespace's requirements appended under each of its scopes.
func namespacePolicy(cluster []byte, uses []scopeUse) ([]byte, error) {
	policy, err := signature.NewPolicyFromBytes(cluster)
	if err != nil {
		return nil, fmt.Errorf("internal error: decoding the rendered policy.json: %w", err)
	}
	if policy.Transports == nil {
		policy.Transports = map[string]signature.PolicyTransportScopes{}
	}
	docker := policy.Transports[transportDocker]
	if docker == nil {
		docker = signature.PolicyTransportScopes{}
		policy.Transports[transportDocker] = docker
	}
	atomic := policy.Transports[transportAtomic]
	if atomic == nil {
		atomic = signature.PolicyTransportScopes{} // written even when empty, as MCO does (docs/semantics.md §9.9 D6)
		policy.Transports[transportAtomic] = atomic
	}
	for _, u := range uses {
		docker[u.scope] = append(docker[u.scope], u.req)
		if registries.AtomicScope(u.scope) {
			atomic[u.scope] = append(atomic[u.scope], u.req)
		}
	}
	return encode(policy)
}

// basePolicy decodes the node's base policy.json, which every rendered policy starts from.
func basePolicy() (*signature.Policy, error) {
	policy, err := signature.NewPolicyFromBytes(nodefiles.Base(nodefiles.PolicyJSON))
	if err != nil {
		return nil, fmt.Errorf("internal error: decoding the base policy.json: %w", err)
	}
	return policy, nil
}

// encode writes a policy as MCO does (docs/semantics.md §9.3 step 5): encoding/json, indented by two spaces, HTML
// escaping on, no trailing newline. The render's Checker loads every policy file back strictly (docs/semantics.md §9.7) with
// signature.NewPolicyFromBytes, so that a node never gets a file it would refuse.
func encode(policy *signature.Policy) ([]byte, error) {
	data, err := json.MarshalIndent(policy, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding policy.json: %w", err)
	}
	return data, nil
}
