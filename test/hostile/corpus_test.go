package hostile

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// object is one input object as unstructured JSON, so that any value reaches the controller: the mirror CRDs are
// installed without schema validation in this package.
type object struct {
	kind string
	body map[string]any
}

func (o object) name() string { return o.body["metadata"].(map[string]any)["name"].(string) }

// resources maps each kind of the corpus to its API resource.
var resources = map[string]schema.GroupVersionResource{
	"ImageDigestMirrorSet":     {Group: "config.openshift.io", Version: "v1", Resource: "imagedigestmirrorsets"},
	"ImageTagMirrorSet":        {Group: "config.openshift.io", Version: "v1", Resource: "imagetagmirrorsets"},
	"ImageContentSourcePolicy": {Group: "operator.openshift.io", Version: "v1alpha1", Resource: "imagecontentsourcepolicies"},
	"Image":                    {Group: "config.openshift.io", Version: "v1", Resource: "images"},
}

func newObject(kind, name string, spec map[string]any) object {
	gvr := resources[kind]
	return object{kind: kind, body: map[string]any{
		"apiVersion": schema.GroupVersion{Group: gvr.Group, Version: gvr.Version}.String(),
		"kind":       kind,
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
}

// at is where a problem must be reported: the object, the field path and the offending value.
type at struct {
	kind, name, field, value string
}

// outcome is what a case must lead to.
type outcome int

const (
	// rejected: nothing is written; each object of the case gets a Warning naming each field and value.
	rejected outcome = iota
	// notApplied: the rest is written; the Image gets a Warning MirrorConfigurationNotApplied naming the value.
	notApplied
	// accepted: written as it is, and every file loads with containers/image.
	accepted
)

// hostileCase is one hostile input, where its problems must be reported, and the fix after which it applies.
type hostileCase struct {
	name    string
	objects []object
	want    outcome
	at      []at
	fixed   []object
}

// slot is a string field of an input kind, and how to build an object with a value in it, or with a valid value
// of case n instead.
type slot struct {
	name  string
	build func(name, value string) (object, at)
	valid func(n int) string
}

func mirrorEntry(source string, mirrors []string, policy string) map[string]any {
	e := map[string]any{"source": source, "mirrors": toAny(mirrors)}
	if policy != "" {
		e["mirrorSourcePolicy"] = policy
	}
	return e
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// mirrorSlots are the string fields of the three mirror kinds.
func mirrorSlots() []slot {
	type kindField struct{ kind, list string }
	var out []slot
	for _, k := range []kindField{
		{"ImageDigestMirrorSet", "imageDigestMirrors"},
		{"ImageTagMirrorSet", "imageTagMirrors"},
		{"ImageContentSourcePolicy", "repositoryDigestMirrors"},
	} {
		field := "spec." + k.list + "[0]"
		spec := func(e map[string]any) map[string]any { return map[string]any{k.list: []any{e}} }
		out = append(out,
			slot{name: k.kind + " source", build: func(name, v string) (object, at) {
				return newObject(k.kind, name, spec(mirrorEntry(v, []string{"mirror.example.com/" + name}, ""))), at{k.kind, name, field + ".source", v}
			}, valid: func(n int) string { return fmt.Sprintf("quay.io/fixed-%d", n) }},
			slot{name: k.kind + " mirror", build: func(name, v string) (object, at) {
				return newObject(k.kind, name, spec(mirrorEntry("quay.io/"+name, []string{v}, ""))), at{k.kind, name, field + ".mirrors[0]", v}
			}, valid: func(n int) string { return fmt.Sprintf("fixed-%d.example.com/x", n) }},
		)
		if k.kind != "ImageContentSourcePolicy" {
			out = append(out, slot{name: k.kind + " mirrorSourcePolicy", build: func(name, v string) (object, at) {
				return newObject(k.kind, name, spec(mirrorEntry("quay.io/"+name, []string{"mirror.example.com/" + name}, v))),
					at{k.kind, name, field + ".mirrorSourcePolicy", v}
			}, valid: func(int) string { return "NeverContactSource" }})
		}
	}
	return out
}

// imageSlots are the lists of spec.registrySources of the Image "cluster".
func imageSlots() []slot {
	var out []slot
	for _, list := range []string{"insecureRegistries", "blockedRegistries", "allowedRegistries", "containerRuntimeSearchRegistries"} {
		out = append(out, slot{name: "Image " + list, build: func(_, v string) (object, at) {
			return newObject("Image", "cluster", map[string]any{"registrySources": map[string]any{list: []any{v}}}),
				at{"Image", "cluster", "spec.registrySources." + list + "[0]", v}
		}, valid: func(n int) string { return fmt.Sprintf("fixed-%d.example.com", n) }})
	}
	return out
}

// payloadRegistry is the registry of fixtures.ReleaseImage.
const payloadRegistry = "quay.io/openshift-release-dev"

// corpus returns the hostile inputs. Case names are unique; object names are h-NNN.
func corpus() []hostileCase {
	var cases []hostileCase
	n := 0
	next := func() (int, string) { n++; return n, fmt.Sprintf("h-%03d", n) }
	// bad puts value into slot s: rejected, reported at that field; fixed with the slot's valid value.
	bad := func(what string, s slot, value string) {
		i, name := next()
		obj, where := s.build(name, value)
		fix, _ := s.build(name, s.valid(i))
		cases = append(cases, hostileCase{name: s.name + ": " + what, objects: []object{obj}, want: rejected, at: []at{where}, fixed: []object{fix}})
	}
	slots := map[string]slot{}
	for _, s := range append(mirrorSlots(), imageSlots()...) {
		slots[s.name] = s
	}
	idmsSource, idmsMirror := slots["ImageDigestMirrorSet source"], slots["ImageDigestMirrorSet mirror"]
	icspMirror, itmsSource := slots["ImageContentSourcePolicy mirror"], slots["ImageTagMirrorSet source"]

	bad("empty", idmsSource, "")
	bad("empty", idmsMirror, "")
	bad("empty", slots["Image insecureRegistries"], "")
	bad("empty", slots["Image blockedRegistries"], "")
	bad("https scheme", idmsSource, "https://quay.io/team")
	bad("http scheme", icspMirror, "http://mirror.example.com/team")
	bad("tag", itmsSource, "quay.io/team:v1")
	bad("digest", idmsSource, "quay.io/team@sha256:"+strings.Repeat("a", 64))
	bad("tag", idmsMirror, "mirror.example.com/team:latest")
	bad("digest", icspMirror, "mirror.example.com/team@sha256:"+strings.Repeat("b", 64))
	bad("uppercase path", idmsSource, "quay.io/Team")
	bad("uppercase path", slots["ImageTagMirrorSet mirror"], "mirror.example.com/Team")
	bad("wildcard mirror", idmsMirror, "*.mirror.example.com")
	bad("wildcard in the middle", idmsSource, "quay.*.io/team")
	bad("wildcard in the middle", slots["Image blockedRegistries"], "reg.*.example.com")
	bad("bare wildcard", slots["Image insecureRegistries"], "*")
	bad("trailing slash", idmsSource, "quay.io/team/")
	bad("trailing slash", icspMirror, "mirror.example.com/team/")
	bad("port without digits", idmsMirror, "mirror.example.com:/team")
	bad("port not a number", idmsMirror, "mirror.example.com:https/team")
	bad("path in a search registry", slots["Image containerRuntimeSearchRegistries"], "quay.io/team")
	bad("a Docker Hub namespace read as a host", idmsMirror, "mirror/team")
	bad("unknown policy", slots["ImageDigestMirrorSet mirrorSourcePolicy"], "Sometimes")
	bad("unicode look-alike host (Cyrillic a)", idmsSource, "qu\u0430y.io/team")
	bad("unicode look-alike host (fullwidth dot)", idmsMirror, "mirror\uff0eexample.com/team")
	bad("right-to-left override", slots["Image allowedRegistries"], "quay.io/\u202eteam")
	bad("64 KiB ending in an uppercase letter", idmsMirror, "mirror.example.com/"+strings.Repeat("a", 64<<10)+"X")
	bad("64 KiB of scheme", slots["Image insecureRegistries"], "https://"+strings.Repeat("a", 64<<10))

	// Every TOML- or JSON-breaking byte in every string field.
	breakers := []struct{ name, b string }{{"quote", `"`}, {"newline", "\n"}, {"bracket", "]"}, {"NUL", "\x00"}, {"backslash", `\`}}
	var names []string
	for name := range slots {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, sn := range names {
		s := slots[sn]
		for _, br := range breakers {
			value := "quay.io/x" + br.b + "y"
			switch {
			case strings.HasSuffix(sn, "mirrorSourcePolicy"):
				value = "NeverContactSource" + br.b
			case strings.HasSuffix(sn, "mirror"):
				value = "mirror.example.com/x" + br.b + "y"
			case strings.HasSuffix(sn, "SearchRegistries"):
				value = "reg" + br.b + ".example.com"
			}
			bad(br.name, s, value)
		}
	}

	// NeverContactSource with the source as its only mirror, or with no mirror.
	{
		_, name := next()
		obj := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry("quay.io/"+name, []string{"quay.io/" + name}, "NeverContactSource")}})
		fix := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry("quay.io/"+name, []string{"mirror.example.com/" + name}, "NeverContactSource")}})
		cases = append(cases, hostileCase{name: "NeverContactSource with the source as its own mirror", objects: []object{obj}, want: rejected,
			at: []at{{"ImageDigestMirrorSet", name, "spec.imageDigestMirrors[0].mirrors[0]", "quay.io/" + name}}, fixed: []object{fix}})
	}
	{
		_, name := next()
		obj := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry("quay.io/"+name, nil, "NeverContactSource")}})
		fix := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry("quay.io/"+name, []string{"mirror.example.com/" + name}, "NeverContactSource")}})
		cases = append(cases, hostileCase{name: "NeverContactSource without a mirror", objects: []object{obj}, want: rejected,
			at: []at{{"ImageDigestMirrorSet", name, "spec.imageDigestMirrors[0].mirrorSourcePolicy", "NeverContactSource"}}, fixed: []object{fix}})
	}
	// The same source Never in an ImageDigestMirrorSet and (implicitly Allow) in an ImageContentSourcePolicy.
	{
		_, name := next()
		source := "quay.io/" + name
		idms := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry(source, []string{"mirror.example.com/" + name}, "NeverContactSource")}})
		icsp := newObject("ImageContentSourcePolicy", name, map[string]any{"repositoryDigestMirrors": []any{
			mirrorEntry(source, []string{"mirror2.example.com/" + name}, "")}})
		fixedICSP := newObject("ImageContentSourcePolicy", name, map[string]any{"repositoryDigestMirrors": []any{
			mirrorEntry(source+"-other", []string{"mirror2.example.com/" + name}, "")}})
		cases = append(cases, hostileCase{name: "conflicting mirrorSourcePolicy across kinds", objects: []object{idms, icsp}, want: rejected,
			at: []at{
				{"ImageDigestMirrorSet", name, "spec.imageDigestMirrors[0].mirrorSourcePolicy", "NeverContactSource"},
				{"ImageContentSourcePolicy", name, "spec.repositoryDigestMirrors[0]", "AllowContactingSource"},
			}, fixed: []object{idms, fixedICSP}})
	}
	// Allowed and blocked registries together.
	{
		i, _ := next()
		obj := newObject("Image", "cluster", map[string]any{"registrySources": map[string]any{
			"allowedRegistries": []any{"quay.io"}, "blockedRegistries": []any{"docker.io"}}})
		fix := newObject("Image", "cluster", map[string]any{"registrySources": map[string]any{
			"blockedRegistries": []any{fmt.Sprintf("fixed-%d.example.com", i)}}})
		cases = append(cases, hostileCase{name: "allowed and blocked registries together", objects: []object{obj}, want: rejected,
			at: []at{{"Image", "cluster", "spec.registrySources", ""}}, fixed: []object{fix}})
	}
	// 10,000 entries in one object, the last one bad.
	{
		_, name := next()
		entries := func(last string) []any {
			var out []any
			for j := range 10000 {
				m := fmt.Sprintf("mirror.example.com/%s/m%05d", name, j)
				if j == 9999 {
					m = last
				}
				out = append(out, mirrorEntry("quay.io/"+name, []string{m}, ""))
			}
			return out
		}
		bigBad := "https://mirror.example.com/" + name
		obj := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": entries(bigBad)})
		fix := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": entries("mirror.example.com/" + name + "/last")})
		cases = append(cases, hostileCase{name: "10,000 entries in one object, the last one with a scheme", objects: []object{obj}, want: rejected,
			at: []at{{"ImageDigestMirrorSet", name, "spec.imageDigestMirrors[9999].mirrors[0]", bigBad}}, fixed: []object{fix}})
	}
	// The release payload's registry blocked, without and with a mirror.
	{
		next()
		obj := newObject("Image", "cluster", map[string]any{"registrySources": map[string]any{"blockedRegistries": []any{payloadRegistry}}})
		cases = append(cases, hostileCase{name: "the payload registry blocked without a mirror", objects: []object{obj}, want: notApplied,
			at: []at{{"Image", "cluster", "spec.registrySources.blockedRegistries[0]", payloadRegistry}}})
		_, name := next()
		mirror := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry(payloadRegistry, []string{"mirror.example.com/release"}, "")}})
		cases = append(cases, hostileCase{name: "the payload registry blocked with a mirror", objects: []object{mirror, obj}, want: accepted})
	}
	// 64 KiB that follow every rule: written, and loadable.
	{
		_, name := next()
		obj := newObject("ImageDigestMirrorSet", name, map[string]any{"imageDigestMirrors": []any{
			mirrorEntry("quay.io/"+name, []string{"mirror.example.com/" + strings.Repeat("a", 64<<10)}, "")}})
		cases = append(cases, hostileCase{name: "a 64 KiB mirror that follows every rule", objects: []object{obj}, want: accepted})
	}
	return cases
}
