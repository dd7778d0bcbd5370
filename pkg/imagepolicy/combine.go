package imagepolicy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/signature"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// scopeUse is one scope of one policy that takes effect: every ClusterImagePolicy scope, and every
// ImagePolicy scope not nested in a ClusterImagePolicy scope.
type scopeUse struct {
	scope string
	// namespace is the ImagePolicy's namespace, "" for a ClusterImagePolicy.
	namespace string
	// at is the field, e.g. ClusterImagePolicy "a" spec.scopes[1].
	at  inputs.FieldRef
	req signature.PolicyRequirement
}

// combined is how the policies combine (docs/semantics.md §9.2), before the merge is consulted.
type combined struct {
	// cluster are the ClusterImagePolicy scope uses, by name then scope order (docs/semantics.md §9.9 D1).
	cluster []scopeUse
	// namespaced are the surviving ImagePolicy scope uses, by namespace, name, then scope order.
	namespaced []scopeUse
	// objects are the outcomes of every policy object, ClusterImagePolicies first, each kind sorted.
	objects []ObjectStatus
	// dropped reports each dropped ImagePolicy scope, naming the ClusterImagePolicy scope that wins.
	dropped []inputs.Problem
}

// combine builds each policy's requirement and decides which scopes take effect. Problems of the objects
// themselves (a requirement that cannot be built, a scope that is not one) are returned; the objects with
// problems take no part in the result.
func combine(in *inputs.Inputs) (*combined, []inputs.Problem) {
	c := &combined{}
	var all []inputs.Problem
	cips := slices.Clone(in.ClusterImagePolicies)
	slices.SortFunc(cips, func(a, b *configv1.ClusterImagePolicy) int { return strings.Compare(a.Name, b.Name) })
	for _, cip := range cips {
		ref := inputs.ObjectRef{Kind: inputs.KindClusterImagePolicy, Name: cip.Name}
		uses, ps := policyUses(ref, cip.Spec.Scopes, &cip.Spec.Policy)
		all = append(all, ps...)
		c.cluster = append(c.cluster, uses...)
		c.objects = append(c.objects, ObjectStatus{Ref: ref, Generation: cip.Generation, Invalid: len(ps) > 0})
	}
	ips := slices.Clone(in.ImagePolicies)
	slices.SortFunc(ips, func(a, b *configv1.ImagePolicy) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for _, ip := range ips {
		ref := inputs.ObjectRef{Kind: inputs.KindImagePolicy, Namespace: ip.Namespace, Name: ip.Name}
		uses, ps := policyUses(ref, ip.Spec.Scopes, &ip.Spec.Policy)
		all = append(all, ps...)
		st := ObjectStatus{Ref: ref, Generation: ip.Generation, Invalid: len(ps) > 0}
		for _, u := range uses {
			if by := c.clusterCovering(u.scope); by != nil {
				st.DroppedScopes = append(st.DroppedScopes, u.scope)
				c.dropped = append(c.dropped, inputs.Problem{At: u.at, Value: u.scope,
					Message: fmt.Sprintf("not applied: equal to or nested in the scope %q of %s, which takes precedence", by.scope, by.at.Object),
					Fix:     "remove the scope from the ImagePolicy, or narrow the ClusterImagePolicy"})
				continue
			}
			u.namespace = ip.Namespace
			c.namespaced = append(c.namespaced, u)
		}
		c.objects = append(c.objects, st)
	}
	return c, all
}

// clusterCovering returns the first ClusterImagePolicy scope use that scope is nested in, which then wins
// (docs/semantics.md §9.2); nil when there is none.
func (c *combined) clusterCovering(scope string) *scopeUse {
	for i := range c.cluster {
		if Nested(scope, c.cluster[i].scope) {
			return &c.cluster[i]
		}
	}
	return nil
}

// uses returns every scope use that takes effect, cluster first.
func (c *combined) uses() []scopeUse { return append(slices.Clone(c.cluster), c.namespaced...) }

// policyUses returns one use per scope of a policy object, or its problems.
func policyUses(ref inputs.ObjectRef, scopes []configv1.ImageScope, policy *configv1.ImageSigstoreVerificationPolicy) ([]scopeUse, []inputs.Problem) {
	req, ps := requirement(policy, inputs.FieldRef{Object: ref, Field: "spec.policy"})
	var uses []scopeUse
	if len(scopes) == 0 {
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: ref, Field: "spec.scopes"}, Message: "at least one scope is required"})
	}
	for i, s := range scopes {
		at := inputs.FieldRef{Object: ref, Field: fmt.Sprintf("spec.scopes[%d]", i)}
		if p := checkScope(string(s), at); p != nil {
			ps = append(ps, *p)
			continue
		}
		uses = append(uses, scopeUse{scope: string(s), at: at, req: req})
	}
	if len(ps) > 0 {
		return nil, ps
	}
	return uses, nil
}

// checkScope accepts what containers/image accepts as a docker scope of policy.json and what the mirror
// lookup of sigstore-registries.yaml can parse (docs/semantics.md §9.5): a host, repository or reference, or "*.domain".
func checkScope(s string, at inputs.FieldRef) *inputs.Problem {
	fix := "write host[/namespace[/repository]][:tag|@digest] or *.domain, e.g. quay.io/team"
	if err := docker.Transport.ValidatePolicyConfigurationScope(s); err != nil {
		return &inputs.Problem{At: at, Value: s, Message: fmt.Sprintf("not a scope containers/image accepts: %v", err), Fix: fix}
	}
	if _, _, err := lookupName(s); err != nil {
		return &inputs.Problem{At: at, Value: s, Message: err.Error(), Fix: fix}
	}
	return nil
}

// lookupName returns the repository the mirror lookup of docs/semantics.md §9.5 asks about for scope s: a leading "*" becomes
// "matched", "/a" is appended to a bare host (added says so), and any tag or digest is dropped.
func lookupName(s string) (repo reference.Named, added bool, err error) {
	name := s
	if strings.HasPrefix(name, "*.") {
		name = "matched" + name[1:]
	}
	if !strings.Contains(name, "/") {
		name += dummyPath
		added = true
	}
	parsed, err := reference.Parse(name)
	if err != nil {
		return nil, false, fmt.Errorf("not an image reference, so its mirrors cannot be looked up: %v", err)
	}
	named, ok := parsed.(reference.Named)
	if !ok {
		return nil, false, fmt.Errorf("not a named image reference, so its mirrors cannot be looked up")
	}
	return reference.TrimNamed(named), added, nil
}

const dummyPath = "/a"
