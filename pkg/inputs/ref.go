package inputs

import (
	"fmt"
	"strings"
)

// ParseObjectRef reads an object named on the command line (`preview --delete`): KIND/NAME for cluster-scoped
// kinds, KIND/NAMESPACE/NAME for namespaced ones (ImagePolicy), KIND as written in YAML
// ("ImageDigestMirrorSet"), in any case, or as its resource ("imagedigestmirrorsets"). For example
// "ImageDigestMirrorSet/team-a", "ImagePolicy/payments/signed". Only the names that a render reads are
// accepted: for a singleton kind, its one name ("Image/cluster").
func ParseObjectRef(s string) (*Kind, ObjectRef, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, ObjectRef{}, fmt.Errorf("%q: write KIND/NAME, or KIND/NAMESPACE/NAME for a namespaced kind, e.g. ImageDigestMirrorSet/team-a or ImagePolicy/payments/signed", s)
	}
	k := kindFromCommandLine(parts[0])
	if k == nil {
		return nil, ObjectRef{}, fmt.Errorf("%q: %q is not an input kind; the kinds are %s", s, parts[0], kindNames())
	}
	ref := ObjectRef{Kind: k.Name, Name: parts[len(parts)-1]}
	switch {
	case k.Namespaced && len(parts) != 3:
		return nil, ObjectRef{}, fmt.Errorf("%q: %s is namespaced: write %s/NAMESPACE/NAME", s, k.Name, k.Name)
	case !k.Namespaced && len(parts) != 2:
		return nil, ObjectRef{}, fmt.Errorf("%q: %s is cluster-scoped: write %s/NAME", s, k.Name, k.Name)
	case k.Namespaced:
		ref.Namespace = parts[1]
	}
	if ref.Name == "" || (k.Namespaced && ref.Namespace == "") {
		return nil, ObjectRef{}, fmt.Errorf("%q: empty name", s)
	}
	if !k.Counts(ref.Name) {
		return nil, ObjectRef{}, fmt.Errorf("%q: only the %s named %q is read; no other %s changes anything", s, k.Name, k.Singleton, k.Name)
	}
	return k, ref, nil
}

// kindFromCommandLine finds a kind by its name in any case, or its resource.
func kindFromCommandLine(s string) *Kind {
	for _, k := range Kinds {
		if strings.EqualFold(k.Name, s) || strings.EqualFold(k.Resource, s) {
			return k
		}
	}
	return nil
}

func kindNames() string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}
