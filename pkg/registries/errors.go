package registries

import (
	"fmt"
	"sort"
	"strings"
)

// Kind names used in problems and reports, as an admin types them after `kubectl describe`.
const (
	KindImageContentSourcePolicy = "ImageContentSourcePolicy"
	KindImageDigestMirrorSet     = "ImageDigestMirrorSet"
	KindImageTagMirrorSet        = "ImageTagMirrorSet"
	KindImage                    = "Image"
	KindClusterVersion           = "ClusterVersion"
)

// ObjectRef names the cluster object a problem or a mirror comes from. All the inputs are cluster-scoped,
// so kind and name identify the object.
type ObjectRef struct {
	Kind string
	Name string
}

func (o ObjectRef) String() string { return fmt.Sprintf("%s %q", o.Kind, o.Name) }

// Problem is one thing wrong with the input, precise enough to act on:
//
//	ImageDigestMirrorSet "team-a": spec.imageDigestMirrors[1].mirrors[0]: "https://m.example.com":
//	a mirror must not carry a scheme; write it as host[:port][/path], e.g. "m.example.com"
type Problem struct {
	// Object is the object holding the offending value.
	Object ObjectRef
	// Field is the path of the value inside the object, e.g. "spec.imageDigestMirrors[2].mirrors[0]".
	Field string
	// Value is the offending value as written.
	Value string
	// Message says what is wrong.
	Message string
	// Fix says what to change.
	Fix string
}

func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %q: %s", p.Object, p.Field, p.Value, p.Message)
	if p.Fix != "" {
		b.WriteString("; ")
		b.WriteString(p.Fix)
	}
	return b.String()
}

// sortProblems orders problems by object, field and message, so that reports do not depend on the
// order in which objects were listed.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Object.Kind != b.Object.Kind {
			return a.Object.Kind < b.Object.Kind
		}
		if a.Object.Name != b.Object.Name {
			return a.Object.Name < b.Object.Name
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Message < b.Message
	})
}

// InvalidInputError is returned when the mirror configuration cannot be rendered because of what the
// cluster's objects say. It lists every problem found, not only the first. Callers tell it apart from
// internal failures with errors.As; it is not worth retrying until an object changes.
type InvalidInputError struct {
	Problems []Problem
}

func (e *InvalidInputError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	lines = append(lines, fmt.Sprintf("invalid mirror configuration, %d %s:", len(e.Problems), noun))
	for _, p := range e.Problems {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// Objects returns the distinct objects named by the problems, in order.
func (e *InvalidInputError) Objects() []ObjectRef {
	seen := map[ObjectRef]bool{}
	var out []ObjectRef
	for _, p := range e.Problems {
		if !seen[p.Object] {
			seen[p.Object] = true
			out = append(out, p.Object)
		}
	}
	return out
}
