package inputs

import (
	"fmt"
	"sort"
	"strings"
)

// ObjectRef names one input object. Namespace is empty for cluster-scoped kinds.
type ObjectRef struct {
	Kind      string
	Namespace string
	Name      string
}

// RefOf returns the reference of an object of kind k.
func RefOf(k *Kind, o Object) ObjectRef {
	return ObjectRef{Kind: k.Name, Namespace: o.GetNamespace(), Name: o.GetName()}
}

// String names the object as people read it: `ImageDigestMirrorSet "team-a"`, `ImagePolicy "team-a/signed"`.
func (o ObjectRef) String() string {
	if o.Namespace != "" {
		return fmt.Sprintf("%s %q", o.Kind, o.Namespace+"/"+o.Name)
	}
	return fmt.Sprintf("%s %q", o.Kind, o.Name)
}

// Less orders references by kind, namespace and name.
func (o ObjectRef) Less(p ObjectRef) bool {
	if o.Kind != p.Kind {
		return o.Kind < p.Kind
	}
	if o.Namespace != p.Namespace {
		return o.Namespace < p.Namespace
	}
	return o.Name < p.Name
}

// FieldRef names a field of an object: where a value came from, or where a problem is, e.g.
// ImageDigestMirrorSet "team-a" spec.imageDigestMirrors[2].mirrors[0].
type FieldRef struct {
	Object ObjectRef
	// Field is the path of the field inside the object, e.g. "spec.imageDigestMirrors[2]"; "" for the object.
	Field string
}

func (f FieldRef) String() string {
	if f.Field == "" {
		return f.Object.String()
	}
	return f.Object.String() + " " + f.Field
}

// Child returns the reference to a field below f: FieldRef{…, "spec.x[0]"}.Child(".mirrors[1]").
func (f FieldRef) Child(suffix string) FieldRef {
	return FieldRef{Object: f.Object, Field: f.Field + suffix}
}

// Problem is one thing wrong with the input, precise enough to act on:
//
//	ImageDigestMirrorSet "team-a": spec.imageDigestMirrors[1].mirrors[0]: "https://m.example.com":
//	a mirror must not carry a scheme; write it as host[:port][/path], e.g. "m.example.com"
type Problem struct {
	// At is the object and field holding the offending value.
	At FieldRef
	// Value is the offending value as written.
	Value string
	// Message says what is wrong.
	Message string
	// Fix says what to change.
	Fix string
	// FromCRD is true when the API server refuses the value by the kind's CRD (its OpenAPI schema, unknown fields
	// under strict field validation, or an x-kubernetes-validations rule): Message is then the API server's own
	// words, which carry the value as it prints it, e.g. `Invalid value: "integer": spec.x in body must be of
	// type string: "integer"` or `unknown field "spec.imageDigestMirrors[0].mirorrs"`. It is false for the
	// project's own checks (MCO's rules that no CRD says). docs/semantics.md lists which is which.
	FromCRD bool
	// Where names the file and document the object was read from, e.g. "manifests/idms.yaml (document 2)"; ""
	// for an object read from a cluster.
	Where string
}

// String is the one way a problem is written, offline and by the controller alike:
//
//	ImageDigestMirrorSet "team-a": spec.imageDigestMirrors[1].mirrors[0]: "https://m.example.com": a mirror must not carry a scheme; write it as ...
//	ImageDigestMirrorSet "team-a": spec.imageDigestMirrors[0].mirrors[0]: Invalid value: "integer": spec.imageDigestMirrors[0].mirrors[0] in body must be of type string: "integer" (in idms.yaml (document 1))
func (p Problem) String() string { return p.At.Object.String() + ": " + p.OnObject() }

// OnObject renders the problem without naming its object, for an event recorded on that object.
func (p Problem) OnObject() string {
	var b strings.Builder
	switch {
	case p.At.Field == "" && (p.FromCRD || p.Value == ""):
		b.WriteString(p.Message)
	case p.FromCRD:
		fmt.Fprintf(&b, "%s: %s", p.At.Field, p.Message)
	default:
		fmt.Fprintf(&b, "%s: %q: %s", p.At.Field, p.Value, p.Message)
	}
	if p.Fix != "" {
		b.WriteString("; ")
		b.WriteString(p.Fix)
	}
	if p.Where != "" {
		fmt.Fprintf(&b, " (in %s)", p.Where)
	}
	return b.String()
}

// SortProblems orders problems by object, field and message, so that reports do not depend on the order in
// which objects were listed.
func SortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.At.Object != b.At.Object {
			return a.At.Object.Less(b.At.Object)
		}
		if a.At.Field != b.At.Field {
			return a.At.Field < b.At.Field
		}
		return a.Message < b.Message
	})
}

// InvalidError is returned when the configuration cannot be rendered because of what the cluster's objects
// say. It lists every problem found, not only the first. Callers tell it apart from internal failures with
// errors.As; it is not worth retrying until an object changes.
type InvalidError struct {
	Problems []Problem
}

func (e *InvalidError) Error() string {
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
func (e *InvalidError) Objects() []ObjectRef {
	seen := map[ObjectRef]bool{}
	var out []ObjectRef
	for _, p := range e.Problems {
		if !seen[p.At.Object] {
			seen[p.At.Object] = true
			out = append(out, p.At.Object)
		}
	}
	return out
}

// notAppliedPrefix begins the message of the Warning event recorded on each object whose problems keep the
// configuration from being rendered.
const notAppliedPrefix = "Not applied, every MachineConfig keeps its last good content: "

// ObjectMessage is what is said about one object.
type ObjectMessage struct {
	Object  ObjectRef
	Message string
}

// EventMessages returns, for each object the problems name, in the order of its first problem, the message of
// the Warning event the controller records on it: notAppliedPrefix, then each of its problems without the
// object's name, one per line. `preview` prints the same messages.
//
//	ImageDigestMirrorSet "team-a": Not applied, every MachineConfig keeps its last good content:
//	spec.imageDigestMirrors[0].mirrors[0]: "https://m.example.com": a mirror must not carry a scheme; ...
func (e *InvalidError) EventMessages() []ObjectMessage {
	lines := map[ObjectRef][]string{}
	for _, p := range e.Problems {
		lines[p.At.Object] = append(lines[p.At.Object], p.OnObject())
	}
	objs := e.Objects()
	out := make([]ObjectMessage, len(objs))
	for i, o := range objs {
		out[i] = ObjectMessage{Object: o, Message: notAppliedPrefix + strings.Join(lines[o], "\n")}
	}
	return out
}
