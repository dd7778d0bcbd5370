package nodeaction

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// policyScopes flattens a decoded policy.json into its requirement lists, keyed "default" and
// `transports.<transport> "<scope>"`. A value that is not a list (the file would not load) is one item.
func policyScopes(v any) map[string][]any {
	out := map[string][]any{}
	asList := func(x any) []any {
		if l, ok := x.([]any); ok {
			return l
		}
		return []any{x}
	}
	m, _ := v.(map[string]any)
	for k, x := range m {
		if k != "transports" {
			out[k] = asList(x)
			continue
		}
		ts, _ := x.(map[string]any)
		for t, scopes := range ts {
			sm, ok := scopes.(map[string]any)
			if !ok {
				out["transports."+t] = asList(scopes)
				continue
			}
			for s, reqs := range sm {
				out[fmt.Sprintf("transports.%s %q", t, s)] = asList(reqs)
			}
		}
	}
	return out
}

// diffPolicy lists the policy scopes (and the default) added, removed or changed. A scope whose list of
// requirements changes gives one change per requirement added or removed, or one "changed" when a single
// requirement is replaced or the list is only reordered.
func diffPolicy(file string, old, new any) []Change {
	return diffScopes(file, policyScopes(old), policyScopes(new), "")
}

func diffScopes(file string, o, n map[string][]any, suffix string) []Change {
	var out []Change
	for _, k := range sortedKeys(o, n) {
		ov, inOld := o[k]
		nv, inNew := n[k]
		switch {
		case !inOld:
			out = append(out, Change{File: file, Kind: Added, Detail: fmt.Sprintf("%s: %s%s", k, describeList(nv), suffix)})
		case !inNew:
			out = append(out, Change{File: file, Kind: Removed, Detail: fmt.Sprintf("%s: %s%s", k, describeList(ov), suffix)})
		case !reflect.DeepEqual(ov, nv):
			out = append(out, diffRequirements(file, k, ov, nv, suffix)...)
		}
	}
	return out
}

func diffRequirements(file, key string, o, n []any, suffix string) []Change {
	removed, added := multisetDiff(o, n), multisetDiff(n, o)
	if len(removed)+len(added) == 0 || len(removed) == 1 && len(added) == 1 && len(o) == len(n) {
		return []Change{{File: file, Kind: Changed, Detail: fmt.Sprintf("%s: %s -> %s%s", key, describeList(o), describeList(n), suffix)}}
	}
	var out []Change
	for _, r := range removed {
		out = append(out, Change{File: file, Kind: Removed, Detail: fmt.Sprintf("%s: requirement %s%s", key, describeValue(r), suffix)})
	}
	for _, r := range added {
		out = append(out, Change{File: file, Kind: Added, Detail: fmt.Sprintf("%s: requirement %s%s", key, describeValue(r), suffix)})
	}
	return out
}

// multisetDiff returns the items of a that b does not have (counting repeats), in a's order.
func multisetDiff(a, b []any) []any {
	left := slices.Clone(b)
	var out []any
	for _, x := range a {
		i := slices.IndexFunc(left, func(y any) bool { return reflect.DeepEqual(x, y) })
		if i < 0 {
			out = append(out, x)
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	return out
}

// diffNamespacePolicy describes a namespace policy: an added file against its side's policy.json, since it
// replaces policy.json for the namespace's pods; a removed one by what the pods use again; a changed one by
// scope, as policy.json.
func diffNamespacePolicy(in *input, p string) []Change {
	ns, _ := nodefiles.IsNamespacePolicy(p)
	old, inOld := in.Old.Policies[p]
	new, inNew := in.New.Policies[p]
	switch {
	case !inOld:
		out := []Change{{File: p, Kind: Added, Detail: fmt.Sprintf("namespace %q: its pods use this policy instead of policy.json", ns)}}
		return append(out, diffScopes(p, policyScopes(in.New.Policies[nodefiles.PolicyJSON]), policyScopes(new), " (compared with policy.json)")...)
	case !inNew:
		return []Change{{File: p, Kind: Removed, Detail: fmt.Sprintf("namespace %q: its pods use policy.json again", ns)}}
	}
	return diffPolicy(p, old, new)
}

// diffRegistriesD lists the registries.d keys added, removed or changed: each `docker` scope and
// `default-docker`, with their settings (use-sigstore-attachments, lookaside, ...).
func diffRegistriesD(file string, old, new *registriesD) []Change {
	o, n := registriesDKeys(old), registriesDKeys(new)
	var out []Change
	for _, k := range sortedKeys(o, n) {
		ov, inOld := o[k]
		nv, inNew := n[k]
		switch {
		case !inOld:
			out = append(out, Change{File: file, Kind: Added, Detail: fmt.Sprintf("%s: %s", k, describeSettings(nv))})
		case !inNew:
			out = append(out, Change{File: file, Kind: Removed, Detail: fmt.Sprintf("%s: %s", k, describeSettings(ov))})
		default:
			for _, s := range sortedKeys(ov, nv) {
				if !reflect.DeepEqual(ov[s], nv[s]) {
					out = append(out, Change{File: file, Kind: Changed, Detail: fmt.Sprintf("%s: %s %s -> %s", k, s, describeSetting(ov, s), describeSetting(nv, s))})
				}
			}
		}
	}
	return out
}

// registriesDKeys flattens a registries.d file into `docker "<scope>"` and `default-docker` keys; a file
// not on this side has none.
func registriesDKeys(d *registriesD) map[string]map[string]any {
	out := map[string]map[string]any{}
	if d == nil {
		return out
	}
	if d.DefaultDocker != nil {
		out["default-docker"] = d.DefaultDocker
	}
	for scope, settings := range d.Docker {
		if settings == nil {
			settings = map[string]any{}
		}
		out[fmt.Sprintf("docker %q", scope)] = settings
	}
	return out
}

func describeSettings(m map[string]any) string {
	if len(m) == 0 {
		return "no settings"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %s", k, describeValue(m[k])))
	}
	return strings.Join(parts, ", ")
}

func describeSetting(m map[string]any, k string) string {
	v, ok := m[k]
	if !ok {
		return "(unset)"
	}
	return describeValue(v)
}

func describeList(l []any) string {
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = describeValue(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// describeValue renders a decoded JSON value compactly by meaning: an object with a "type" as
// `type{key: value, ...}` (`reject`, `sigstoreSigned{keyData: sha256:1a2b3c4d…, signedIdentity:
// matchRepoDigestOrExact}`), other objects as `{key: value}`, long strings (key material) by a short hash.
func describeValue(v any) string {
	switch x := v.(type) {
	case map[string]any:
		typ, _ := x["type"].(string)
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if k == "type" && typ != "" {
				continue
			}
			parts = append(parts, k+": "+describeValue(x[k]))
		}
		if typ != "" && len(parts) == 0 {
			return typ
		}
		return typ + "{" + strings.Join(parts, ", ") + "}"
	case []any:
		return describeList(x)
	case string:
		if len(x) > 64 {
			sum := sha256.Sum256([]byte(x))
			return "sha256:" + hex.EncodeToString(sum[:4]) + "…"
		}
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys[V any](a, b map[string]V) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	keys := slices.Collect(maps.Keys(set))
	sort.Strings(keys)
	return keys
}
