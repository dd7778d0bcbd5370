// Package imagepolicy renders the signature side of the node configuration (docs/semantics.md §9):
// /etc/containers/policy.json (the Image's allowed and blocked registries, and one sigstoreSigned requirement
// per ClusterImagePolicy and ImagePolicy under each of its scopes), one /etc/crio/policies/<namespace>.json per
// namespace with ImagePolicy scopes, and /etc/containers/registries.d/sigstore-registries.yaml, which turns on
// sigstore attachments for every policy scope and for the mirrors that serve it.
//
// It is pure: it reads the inputs and the merge's result (the allowed and blocked scopes, and the registries.conf
// model held in memory), and returns bytes, per-object outcomes and problems. Requirements are built with
// containers/image's constructors only; render.Render's Checker loads every policy file back with
// signature.NewPolicyFromBytes before any of them is used.
//
//	merge, _ := registries.Merge(in)
//	res, err := imagepolicy.RenderPolicies(in, merge)
//	res.PolicyJSON          // nil: the node keeps its base policy.json
//	res.SigstoreRegistries  // nil: no signature policy applies
//	res.NamespacePolicies   // sorted by namespace
//	res.Objects             // per policy object: the ImagePolicy scopes dropped because a ClusterImagePolicy wins
package imagepolicy
