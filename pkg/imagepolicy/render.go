package imagepolicy

import (
	"fmt"
	"slices"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registries"
)

// Result is the signature side of a render.
type Result struct {
	// Enabled is the SigstoreImageVerification gate (Gate): when false, ClusterImagePolicies and ImagePolicies
	// have no effect at all and Objects is empty.
	Enabled bool
	// PolicyJSON is /etc/containers/policy.json; nil when the node keeps its base file.
	PolicyJSON []byte
	// SigstoreRegistries is /etc/containers/registries.d/sigstore-registries.yaml; nil when no policy applies.
	SigstoreRegistries []byte
	// NamespacePolicies are the /etc/crio/policies/<namespace>.json files, sorted by namespace.
	NamespacePolicies nodefiles.Files
	// Objects are the outcomes of every policy object: ClusterImagePolicies by name, then ImagePolicies by
	// namespace and name.
	Objects []ObjectStatus
	// Warnings are things not applied as written, e.g. a feature gate decided from a fallback.
	Warnings []inputs.Problem
}

// ObjectStatus is what a render decided about one ClusterImagePolicy or ImagePolicy.
type ObjectStatus struct {
	Ref inputs.ObjectRef
	// Generation is the object's metadata.generation the outcome is about.
	Generation int64
	// Invalid is true when the object has problems of its own (they are in the render's InvalidError).
	Invalid bool
	// DroppedScopes are the ImagePolicy scopes that do not take effect because they equal or are nested in a
	// ClusterImagePolicy scope (docs/semantics.md §9.2), in spec order.
	DroppedScopes []string
}

// Render renders the policy files for the inputs and the merge's result (docs/semantics.md §9). Invalid input
// gives an *inputs.InvalidError naming every offending object and field.
func RenderPolicies(in *inputs.Inputs, merge *registries.Result) (*Result, error) {
	res := &Result{}
	on, warning := Gate(in)
	res.Enabled = on
	if warning != nil && (len(in.ClusterImagePolicies) > 0 || len(in.ImagePolicies) > 0) {
		res.Warnings = append(res.Warnings, *warning)
	}
	c := &combined{}
	if on {
		var problems []inputs.Problem
		c, problems = combine(in)
		res.Objects = c.objects
		res.Warnings = append(res.Warnings, c.dropped...)
		problems = append(problems, checkRegistrySources(c, merge.Policy)...)
		if len(problems) > 0 {
			inputs.SortProblems(problems)
			return res, &inputs.InvalidError{Problems: problems}
		}
	}
	var err error
	if res.PolicyJSON, err = clusterPolicy(merge.Policy, c); err != nil {
		return res, err
	}
	uses := c.uses()
	if len(uses) == 0 {
		return res, nil
	}
	loaded, err := merge.Loaded()
	if err != nil {
		return res, err
	}
	keys, problems := sigstoreKeys(uses, loaded)
	problems = append(problems, baseCollisions(keys)...)
	if len(problems) > 0 {
		inputs.SortProblems(problems)
		return res, &inputs.InvalidError{Problems: problems}
	}
	if res.SigstoreRegistries, err = encodeSigstore(keys); err != nil {
		return res, err
	}
	for _, ns := range namespaces(c.namespaced) {
		data, err := namespacePolicy(res.PolicyJSON, inNamespace(c.namespaced, ns))
		if err != nil {
			return res, err
		}
		res.NamespacePolicies = append(res.NamespacePolicies, nodefiles.File{Path: nodefiles.NamespacePolicy(ns), Data: data})
	}
	return res, nil
}

// Problems returns the problems of the policy objects themselves, without the merge: what render.Render
// adds to the merge's problems when the mirror configuration is invalid, so that every object is reported.
func Problems(in *inputs.Inputs) []inputs.Problem {
	if on, _ := Gate(in); !on {
		return nil
	}
	_, problems := combine(in)
	return problems
}

// checkRegistrySources checks the scopes that take effect against the Image's registry sources (docs/semantics.md §9.2): with
// allowed registries, each must be nested in one of them; none may be nested in a blocked scope that applies.
// The payload repository accepted by docs/semantics.md §4 is neither (docs/semantics.md §9.9 D4).
func checkRegistrySources(c *combined, scopes registries.PolicyScopes) []inputs.Problem {
	var out []inputs.Problem
	for _, u := range c.uses() {
		if len(scopes.Allowed) > 0 && !slices.ContainsFunc(scopes.Allowed, func(a registries.ScopeOrigin) bool { return Nested(u.scope, string(a.Scope)) }) {
			out = append(out, inputs.Problem{At: u.at, Value: u.scope,
				Message: fmt.Sprintf("not nested in any of the allowed registries (%s spec.registrySources.allowedRegistries), so no image of it can be pulled", inputs.ImageRef),
				Fix:     "add the scope, or one that contains it, to allowedRegistries"})
		}
		for _, b := range scopes.Blocked {
			if Nested(u.scope, string(b.Scope)) {
				out = append(out, inputs.Problem{At: u.at, Value: u.scope,
					Message: fmt.Sprintf("nested in the blocked registry %q (%s), so no image of it can be pulled", b.Scope, b.At),
					Fix:     "remove the scope, or unblock the registry"})
			}
		}
	}
	return out
}

func namespaces(uses []scopeUse) []string {
	var out []string
	for _, u := range uses {
		if !slices.Contains(out, u.namespace) {
			out = append(out, u.namespace)
		}
	}
	slices.Sort(out)
	return out
}

func inNamespace(uses []scopeUse, ns string) []scopeUse {
	var out []scopeUse
	for _, u := range uses {
		if u.namespace == ns {
			out = append(out, u)
		}
	}
	return out
}

// ConflictMessage is the message of the Pending condition of an ImagePolicy whose scopes are dropped because
// ClusterImagePolicy scopes cover them, in MCO's words.
func ConflictMessage(dropped []string) string {
	return fmt.Sprintf("has conflicting scope(s) %q that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied", dropped)
}
