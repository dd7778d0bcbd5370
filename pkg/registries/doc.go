// Package registries merges the mirror configuration of a cluster into /etc/containers/registries.conf and the
// search-registries drop-in, and decides which blocked scopes apply: the rules of docs/semantics.md §2 to §5,
// with MCO's defects of §7 fixed.
//
// Merge is pure: it reads an *inputs.Inputs (ImageContentSourcePolicies, ImageDigestMirrorSets,
// ImageTagMirrorSets, the Image "cluster" registrySources and the release image) and returns bytes, the
// registries.conf model, and a Report of where every mirror came from. Nothing is read from or written to the
// machine: the release payload rule asks containers/image's own matching and pull-source logic in memory
// (registriesconf.FromModel), and render.Render loads the result back with containers/image once, through its
// Checker.
//
// The steps, each in its own file:
//
//	validate.go    every value of every kind, all problems at once, as *inputs.InvalidError (§5)
//	entries.go     the mirror objects flattened into entries, in a fixed order
//	mirrorsets.go  entries grouped per exact source, digest group (IDMS, ICSP) and tag group (ITMS) apart (§2.1)
//	order.go       one mirror order per source: MCO's breadth-first merge, cycles broken safely (§2.2, §7.1)
//	payload.go     blocked scopes that would leave the release payload unpullable are left out (§4)
//	build.go       the [[registry]] entries: insecure and blocked scopes, nested entries inheriting mirrors (§2.3–§2.7)
//	scope.go       scopes and their nesting, with ancestors for indexed lookups (§2, §7.7)
//	policy.go      what policy.json needs from the merge: allowed and blocked scopes, the payload exception
//
// For example, an ImageDigestMirrorSet mirroring quay.io/team to mirror.local/team, with NeverContactSource:
//
//	[[registry]]
//	  prefix = ""
//	  location = "quay.io/team"
//	  blocked = true
//
//	  [[registry.mirror]]
//	    location = "mirror.local/team"
//	    pull-from-mirror = "digest-only"
package registries
