package registries_test

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/test/fixtures"
)

// An input script describes an Inputs in a few lines, so that fuzz seeds read as configurations and a
// failing input found by any test can be pasted back as a seed. One item per line, tokens separated
// by spaces, `""` for an empty string:
//
//	idms  OBJECT SOURCE [policy=P] MIRROR...   an ImageDigestMirrorSet entry (ICSP: icsp, ITMS: itms;
//	                                          P is NeverContactSource, AllowContactingSource or anything)
//	insecure SCOPE...                         spec.registrySources.insecureRegistries
//	blocked SCOPE...                          ... blockedRegistries
//	allowed SCOPE...                          ... allowedRegistries
//	search HOST...                            ... containerRuntimeSearchRegistries
//	release REF                               the release image ("" for none); fixtures.ReleaseImage by default
//
// Entries with the same kind and object name go into one object, in order. Unknown lines are skipped.

// Limits that keep one fuzz execution fast; larger inputs explore nothing new.
const (
	maxScriptLines  = 48
	maxScriptTokens = 12
)

func parseScript(script string) *inputs.Inputs {
	in := &inputs.Inputs{ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage)}
	icsps := map[string]*operatorv1alpha1.ImageContentSourcePolicy{}
	idmss := map[string]*configv1.ImageDigestMirrorSet{}
	itmss := map[string]*configv1.ImageTagMirrorSet{}
	lines := strings.Split(script, "\n")
	if len(lines) > maxScriptLines {
		lines = lines[:maxScriptLines]
	}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) > maxScriptTokens {
			f = f[:maxScriptTokens]
		}
		for i := range f {
			if f[i] == `""` {
				f[i] = ""
			}
		}
		if len(f) == 0 {
			continue
		}
		rs := fixtures.RegistrySources(in)
		switch kind, args := f[0], f[1:]; kind {
		case "icsp", "idms", "itms":
			if len(args) < 2 {
				continue
			}
			name, entry := args[0], fixtures.Mirror(args[1])
			if name == "" {
				name = "unnamed" // every cluster object has a name
			}
			for _, tok := range args[2:] {
				if p, ok := strings.CutPrefix(tok, "policy="); ok {
					entry.Policy = configv1.MirrorSourcePolicy(p)
				} else {
					entry.Mirrors = append(entry.Mirrors, tok)
				}
			}
			switch kind {
			case "icsp":
				if icsps[name] == nil {
					icsps[name] = fixtures.ICSP(name)
					in.ImageContentSourcePolicies = append(in.ImageContentSourcePolicies, icsps[name])
				}
				icsps[name].Spec.RepositoryDigestMirrors = append(icsps[name].Spec.RepositoryDigestMirrors, fixtures.ICSP("", entry).Spec.RepositoryDigestMirrors...)
			case "idms":
				if idmss[name] == nil {
					idmss[name] = fixtures.IDMS(name)
					in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, idmss[name])
				}
				idmss[name].Spec.ImageDigestMirrors = append(idmss[name].Spec.ImageDigestMirrors, fixtures.IDMS("", entry).Spec.ImageDigestMirrors...)
			case "itms":
				if itmss[name] == nil {
					itmss[name] = fixtures.ITMS(name)
					in.ImageTagMirrorSets = append(in.ImageTagMirrorSets, itmss[name])
				}
				itmss[name].Spec.ImageTagMirrors = append(itmss[name].Spec.ImageTagMirrors, fixtures.ITMS("", entry).Spec.ImageTagMirrors...)
			}
		case "insecure":
			rs.InsecureRegistries = append(rs.InsecureRegistries, args...)
		case "blocked":
			rs.BlockedRegistries = append(rs.BlockedRegistries, args...)
		case "allowed":
			rs.AllowedRegistries = append(rs.AllowedRegistries, args...)
		case "search":
			rs.ContainerRuntimeSearchRegistries = append(rs.ContainerRuntimeSearchRegistries, args...)
		case "release":
			in.ClusterVersion = nil
			if len(args) > 0 {
				in.ClusterVersion = fixtures.ClusterVersion(args[0])
			}
		}
	}
	return in
}

// formatInputs writes in as an input script (the inverse of parseScript, for messages).
func formatInputs(in *inputs.Inputs) string {
	var b strings.Builder
	line := func(tokens ...string) {
		for i, t := range tokens {
			if i > 0 {
				b.WriteByte(' ')
			}
			switch {
			case t == "":
				b.WriteString(`""`)
			case strings.ContainsAny(t, " \t\r\n\""):
				b.WriteString(strconv.Quote(t))
			default:
				b.WriteString(t)
			}
		}
		b.WriteByte('\n')
	}
	entry := func(kind, name, source string, policy configv1.MirrorSourcePolicy, mirrors []string) {
		tokens := []string{kind, name, source}
		if policy != "" {
			tokens = append(tokens, "policy="+string(policy))
		}
		line(append(tokens, mirrors...)...)
	}
	for _, o := range in.ImageContentSourcePolicies {
		for _, e := range o.Spec.RepositoryDigestMirrors {
			entry("icsp", o.Name, e.Source, "", e.Mirrors)
		}
	}
	for _, o := range in.ImageDigestMirrorSets {
		for _, e := range o.Spec.ImageDigestMirrors {
			entry("idms", o.Name, e.Source, e.MirrorSourcePolicy, imageMirrorStrings(e.Mirrors))
		}
	}
	for _, o := range in.ImageTagMirrorSets {
		for _, e := range o.Spec.ImageTagMirrors {
			entry("itms", o.Name, e.Source, e.MirrorSourcePolicy, imageMirrorStrings(e.Mirrors))
		}
	}
	rs := in.RegistrySources()
	for _, l := range []struct {
		key    string
		values []string
	}{{"insecure", rs.InsecureRegistries}, {"blocked", rs.BlockedRegistries}, {"allowed", rs.AllowedRegistries}, {"search", rs.ContainerRuntimeSearchRegistries}} {
		if len(l.values) > 0 {
			line(append([]string{l.key}, l.values...)...)
		}
	}
	if release, _ := in.ReleaseImage(); release != fixtures.ReleaseImage {
		line("release", release)
	}
	return b.String()
}

func imageMirrorStrings(ms []configv1.ImageMirror) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

// fuzzSeeds are the interesting shapes of input; each is also run by plain `go test`.
var fuzzSeeds = []string{
	// One source, two mirrors, and the same source by tag.
	"idms a quay.io/ns mirror.local/ns m2.local/ns\nitms b quay.io/ns mirror.local/ns",
	// NeverContactSource with an inheriting blocked and insecure namespace.
	"idms a quay.io policy=NeverContactSource mirror.local\nblocked quay.io/team\ninsecure quay.io/other",
	// Conflicting orders and a repeated mirror (docs/semantics.md §7.1).
	"idms a reg.io/ns z.local y.local\nidms b reg.io/ns y.local z.local",
	"icsp a reg.io/ns m.local m2.local m.local",
	// A cycle that releases the source together with a mirror both lists put before it.
	"idms a quay.io/ns a.local z.local b.local\nidms b quay.io/ns b.local z.local a.local",
	"idms a reg.io b.local c.local\nidms a reg.io a.local b.local\nidms b reg.io z.local\nidms c reg.io a.local z.local",
	// The source listed explicitly, ahead of and behind mirrors.
	"idms a reg.io/ns reg.io/ns m.local\nidms b reg.io/ns m.local reg.io/ns m2.local",
	"itms a reg.io/ns m.local reg.io/ns",
	// Nearest vs farthest ancestor (docs/semantics.md §7.2), never reaching nested entries (docs/semantics.md §7.3), insecure inherited mirrors (docs/semantics.md §7.4).
	"idms a quay.io m.local\nidms a quay.io/ns m2.local policy=NeverContactSource\nblocked quay.io/ns/app\ninsecure m2.local/ns/app",
	"itms a quay.io m.local\nidms b quay.io/ns m2.local\ninsecure quay.io/ns/app/x m.local/ns",
	// Wildcard sources with nested entries (docs/semantics.md §7.5), ports on both sides, and wildcard ties (docs/semantics.md §7.6).
	"idms a *.example.com m.local\nblocked a.example.com/team x.y.example.com:5000/ns",
	"idms a *.example.com m.local:5000\ninsecure x.example.com:443",
	"idms a *.b.com m.local\nblocked a.b.com",
	"insecure *.b.com\nblocked a.b.com",
	"insecure *.quay.io quay.io:443/ns *.local\nblocked *.example.com x.example.com/team",
	// All three kinds together, with search and allowed registries.
	"icsp a quay.io/ns m.local/ns\nidms b quay.io/ns m2.local/ns\nitms c quay.io/ns m3.local/ns policy=AllowContactingSource\nsearch quay.io reg.io:5000\nallowed quay.io m.local",
	// The release payload rule: blocked with and without a mirror, unknown and invalid release images.
	"blocked quay.io",
	"idms a quay.io/openshift-release-dev m.local/ocp\nblocked quay.io",
	"idms a quay.io/openshift-release-dev/ocp-release m.local/ocp policy=NeverContactSource\nblocked *.io",
	"blocked docker.io\nrelease \"\"",
	"blocked docker.io\nrelease Not/A:Ref@x",
	// Invalid values of every kind.
	"idms a https://quay.io/ns m.local/ns:tag m.local@sha256:abc m.local/ m.local/UPPER \"\"",
	"idms a quay.io/ns *.local\nitms a *.quay.io/ns m.local",
	"idms a quay.io/ns quay.io/ns policy=NeverContactSource\nidms a quay.io/x policy=NeverContactSource\nidms b quay.io/y policy=Sometimes m.local",
	"icsp a quay.io/ns m.local\nidms a quay.io/ns m.local policy=NeverContactSource",
	"insecure \"\" *quay.io quay.*.io\nblocked a.io/x\nallowed b.io\nsearch quay.io/ns",
	// Entries that configure nothing.
	"idms a quay.io/ns\nitms a quay.io/ns quay.io/ns",
}

// FuzzMerge checks what must hold for every input: Merge returns either a complete invalid-input error
// or files containers/image loads; the source is never tried ahead of a mirror nobody ordered after it;
// NeverContactSource holds for the source and for entries inheriting its mirrors; and the output does
// not depend on anything but the inputs' meaning.
//
//	go test -tags=containers_image_openpgp -run '^$' -fuzz FuzzMerge -fuzztime 60s ./pkg/registries
func FuzzMerge(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		in := parseScript(script)
		res, err := registries.Merge(in)
		if err != nil {
			checkInvalidInputError(t, in, err)
		} else {
			checkResultLoads(t, in, res)
			checkSourceOrder(t, in, res)
			checkNeverContactSource(t, in, res)
		}
		checkDeterministic(t, in, res, err)
	})
}

func checkInvalidInputError(t *testing.T, in *inputs.Inputs, err error) {
	t.Helper()
	var invalid *inputs.InvalidError
	if !errors.As(err, &invalid) {
		t.Fatalf("Merge failed with an internal error:\n%v\ninput:\n%s", err, formatInputs(in))
	}
	if len(invalid.Problems) == 0 {
		t.Fatalf("invalid-input error without problems\ninput:\n%s", formatInputs(in))
	}
	for _, p := range invalid.Problems {
		if p.At.Object.Kind == "" || p.At.Object.Name == "" || p.At.Field == "" || p.Message == "" {
			t.Fatalf("incomplete problem %#v\ninput:\n%s", p, formatInputs(in))
		}
	}
}

func checkResultLoads(t *testing.T, in *inputs.Inputs, res *registries.Result) {
	t.Helper()
	if res.RegistriesConf == nil {
		if res.Registries != nil {
			t.Fatalf("a registries model without its file\ninput:\n%s", formatInputs(in))
		}
		return
	}
	dropIns := map[string][]byte{}
	if res.SearchRegistries != nil {
		dropIns["01-image-searchRegistries.conf"] = res.SearchRegistries
	}
	c, err := registriesconf.Load(res.RegistriesConf, dropIns)
	if err != nil {
		t.Fatalf("the rendered registries.conf does not load: %v\ninput:\n%s\nfile:\n%s", err, formatInputs(in), res.RegistriesConf)
	}
	defer c.Close()
	if err := checkNotShadowed(c); err != nil {
		t.Fatalf("%v\ninput:\n%s\nfile:\n%s", err, formatInputs(in), res.RegistriesConf)
	}
	mem, err := res.Loaded()
	if err != nil {
		t.Fatalf("the in-memory model: %v\ninput:\n%s", err, formatInputs(in))
	}
	if err := checkSameLookups(mem, c); err != nil {
		t.Fatalf("the in-memory lookups differ from containers/image's: %v\ninput:\n%s\nfile:\n%s", err, formatInputs(in), res.RegistriesConf)
	}
}

// checkSameLookups checks that the merge's in-memory view of its registries.conf (Result.Loaded) answers as
// containers/image does once it loads the file: the same entries, and for a digest and a tag pull of a
// repository below every entry and mirror, the same attempts in the same order, blocked and insecure alike.
func checkSameLookups(mem, loaded *registriesconf.Config) error {
	want, err := loaded.Registries()
	if err != nil {
		return err
	}
	got, err := mem.Registries()
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("entries:\n in memory: %+v\n loaded:    %+v", got, want)
	}
	var names []string
	for _, e := range want {
		names = append(names, strings.Replace(e.Prefix, "*", "x", 1))
		for _, m := range e.Mirrors {
			names = append(names, m.Location)
		}
	}
	for _, name := range names {
		for _, suffix := range []string{"/fz" + fuzzDigest, "/fz:v1", ":5000/fz:v1"} {
			ref, err := registriesconf.ParseReference(name + suffix)
			if err != nil {
				continue // not every combination is a reference
			}
			a, errA := mem.PullSources(ref)
			b, errB := loaded.PullSources(ref)
			if (errA == nil) != (errB == nil) || errA == nil && !reflect.DeepEqual(a, b) {
				return fmt.Errorf("%s:\n in memory: %+v %v\n loaded:    %+v %v", ref, a, errA, b, errB)
			}
		}
	}
	return nil
}

// checkNotShadowed checks docs/semantics.md §7.6 as containers/image reads the file: a digest pull of a
// repository directly below an entry's location goes where that entry says, even when a wildcard entry of
// the same length wins the match.
func checkNotShadowed(c *registriesconf.Config) error {
	regs, err := c.Registries()
	if err != nil {
		return err
	}
	for _, e := range regs {
		if e.Location == "" || e.Prefix != e.Location {
			continue
		}
		name := e.Location + "/fz"
		ref, err := registriesconf.ParseReference(name + fuzzDigest)
		if err != nil || ref.Name() != name {
			continue // a name the docker transport normalizes differently (e.g. docker.io/library/...)
		}
		pull, err := c.PullSources(ref)
		if err != nil {
			continue // a mirror rewrites the name into one the library refuses (e.g. "docker.io/fz"): every implementation fails alike
		}
		if pull.Registry == nil || pull.Registry.Prefix == e.Prefix || !strings.HasPrefix(pull.Registry.Prefix, "*.") {
			continue
		}
		// A wildcard governs the pull instead of e: it must mean the same.
		var want []string
		for _, m := range e.Mirrors {
			if m.PullFromMirror == "" || m.PullFromMirror == "all" || m.PullFromMirror == "digest-only" {
				want = append(want, fmt.Sprintf("%s/fz%s insecure=%v", m.Location, fuzzDigest, m.Insecure))
			}
		}
		want = append(want, fmt.Sprintf("%s%s insecure=%v", name, fuzzDigest, e.Insecure))
		var got []string
		for _, s := range pull.Sources {
			got = append(got, fmt.Sprintf("%s insecure=%v", s.Reference, s.Insecure))
		}
		if pull.Registry.Blocked != e.Blocked || !slices.Equal(got, want) {
			return fmt.Errorf("entry %q is shadowed by the wildcard entry %q: a pull of %s tries %v (blocked=%v), the entry says %v (blocked=%v)",
				e.Prefix, pull.Registry.Prefix, ref, got, pull.Registry.Blocked, want, e.Blocked)
		}
	}
	return nil
}

// inputLists returns the mirror lists the input gives for source in group, in input order.
func inputLists(in *inputs.Inputs, group registries.Group, source string) [][]string {
	var out [][]string
	if group == registries.DigestGroup {
		for _, o := range in.ImageContentSourcePolicies {
			for _, e := range o.Spec.RepositoryDigestMirrors {
				if e.Source == source {
					out = append(out, e.Mirrors)
				}
			}
		}
		for _, o := range in.ImageDigestMirrorSets {
			for _, e := range o.Spec.ImageDigestMirrors {
				if e.Source == source {
					out = append(out, imageMirrorStrings(e.Mirrors))
				}
			}
		}
		return out
	}
	for _, o := range in.ImageTagMirrorSets {
		for _, e := range o.Spec.ImageTagMirrors {
			if e.Source == source {
				out = append(out, imageMirrorStrings(e.Mirrors))
			}
		}
	}
	return out
}

// listsPutBefore reports whether some list has a before b.
func listsPutBefore(lists [][]string, a, b string) bool {
	for _, l := range lists {
		ia, ib := -1, -1
		for i, m := range l {
			if m == a && ia < 0 {
				ia = i
			}
			if m == b && ib < 0 {
				ib = i
			}
		}
		if ia >= 0 && ib > ia {
			return true
		}
	}
	return false
}

// registryByScope indexes the rendered entries by scope (prefix, or location when the prefix is empty).
func registryByScope(res *registries.Result) map[string]int {
	out := map[string]int{}
	for i, r := range res.Registries.Registries {
		scope := r.Prefix
		if scope == "" {
			scope = r.Location
		}
		out[scope] = i
	}
	return out
}

func pullFromMirrorOf(g registries.Group) string {
	if g == registries.DigestGroup {
		return "digest-only"
	}
	return "tag-only"
}

// checkSourceOrder checks that a source is written ahead of one of its real mirrors only when some input
// entry lists the source before that mirror (orderMirrors), and that entries inheriting mirrors keep the
// position of the source among them.
func checkSourceOrder(t *testing.T, in *inputs.Inputs, res *registries.Result) {
	t.Helper()
	if res.Registries == nil {
		return
	}
	byScope := registryByScope(res)
	for _, sr := range res.Report.SourceReports() {
		i, ok := byScope[sr.Source]
		if !ok {
			t.Fatalf("mirrored source %q has no entry\ninput:\n%s\nfile:\n%s", sr.Source, formatInputs(in), res.RegistriesConf)
		}
		var written []string
		for _, m := range res.Registries.Registries[i].Mirrors {
			if m.PullFromMirror == pullFromMirrorOf(sr.Group) {
				written = append(written, m.Location)
			}
		}
		lists := inputLists(in, sr.Group, sr.Source)
		for a, m := range written {
			if m != sr.Source {
				continue
			}
			for _, later := range written[a+1:] {
				if later != sr.Source && !listsPutBefore(lists, sr.Source, later) {
					t.Fatalf("source %q is written ahead of mirror %q (%s mirrors %v), but no entry lists it before that mirror\ninput:\n%s\nfile:\n%s",
						sr.Source, later, sr.Group, written, formatInputs(in), res.RegistriesConf)
				}
			}
		}
	}
	for _, inh := range res.Report.Inherited {
		e, from := res.Registries.Registries[byScope[inh.Scope]], res.Registries.Registries[byScope[inh.From]]
		if len(e.Mirrors) != len(from.Mirrors) {
			t.Fatalf("%q inherits %d mirrors from %q, which has %d\ninput:\n%s\nfile:\n%s", inh.Scope, len(e.Mirrors), inh.From, len(from.Mirrors), formatInputs(in), res.RegistriesConf)
		}
		for k := range e.Mirrors {
			if (e.Mirrors[k].Location == inh.Scope) != (from.Mirrors[k].Location == inh.From) || e.Mirrors[k].PullFromMirror != from.Mirrors[k].PullFromMirror {
				t.Fatalf("%q inherits mirror %d as %+v from %q's %+v\ninput:\n%s\nfile:\n%s", inh.Scope, k, e.Mirrors[k], inh.From, from.Mirrors[k], formatInputs(in), res.RegistriesConf)
			}
		}
	}
}

// fuzzDigest is a digest for references built by the tests.
const fuzzDigest = "@sha256:1111111111111111111111111111111111111111111111111111111111111111"

// checkNeverContactSource checks that every source with NeverContactSource, and every entry inheriting
// its mirrors, is blocked, in the model and as containers/image reads the file: a digest pull of a
// repository directly under the entry never falls back to the source.
func checkNeverContactSource(t *testing.T, in *inputs.Inputs, res *registries.Result) {
	t.Helper()
	never := map[string]bool{}
	for _, sr := range res.Report.SourceReports() {
		if sr.NeverContactSource {
			never[sr.Source] = true
		}
	}
	mustBlock := map[string]string{} // scope -> why
	for s := range never {
		mustBlock[s] = "it has NeverContactSource"
	}
	for _, inh := range res.Report.Inherited {
		if never[inh.From] {
			mustBlock[inh.Scope] = fmt.Sprintf("it inherits the mirrors of %q, which has NeverContactSource", inh.From)
		}
	}
	if len(mustBlock) == 0 {
		return
	}
	if res.Registries == nil {
		t.Fatalf("NeverContactSource without a registries.conf\ninput:\n%s", formatInputs(in))
	}
	byScope := registryByScope(res)
	c, err := registriesconf.Load(res.RegistriesConf, nil)
	if err != nil {
		t.Fatalf("the rendered registries.conf does not load: %v", err)
	}
	defer c.Close()
	for scope, why := range mustBlock {
		reg := res.Registries.Registries[byScope[scope]]
		if !reg.Blocked {
			t.Fatalf("entry %q is not blocked although %s\ninput:\n%s\nfile:\n%s", scope, why, formatInputs(in), res.RegistriesConf)
		}
		name := scope + "/fz"
		if strings.HasPrefix(scope, "*.") {
			name = "fz" + scope[1:] + "/fz"
		}
		ref, err := registriesconf.ParseReference(name + fuzzDigest)
		if err != nil {
			continue
		}
		pull, err := c.PullSources(ref)
		if err != nil || pull.Registry == nil {
			continue // the pull fails, or is governed by no entry: nothing reaches the source either way
		}
		if got := pull.Registry.Prefix; got != scope {
			continue // a nested entry with its own mirrors and policy governs it
		}
		if last := pull.Sources[len(pull.Sources)-1]; !last.Blocked {
			t.Fatalf("a pull of %s falls back to the source %s although %s\ninput:\n%s\nfile:\n%s", ref, last.Reference, why, formatInputs(in), res.RegistriesConf)
		}
	}
}

// checkDeterministic merges the inputs again, as they are and with objects and entries shuffled, and
// compares the outcome: the same bytes, or an invalid-input error with as many problems.
func checkDeterministic(t *testing.T, in *inputs.Inputs, res *registries.Result, err error) {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(formatInputs(in)))
	r := rand.New(rand.NewPCG(h.Sum64(), 0))
	for i, again := range []*inputs.Inputs{in, shuffledInputs(in, r)} {
		res2, err2 := registries.Merge(again)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("merge %d: error %v, then %v\ninput:\n%s\nshuffled:\n%s", i, err, err2, formatInputs(in), formatInputs(again))
		}
		if err != nil {
			var a, b *inputs.InvalidError
			if errors.As(err, &a) && errors.As(err2, &b) && len(a.Problems) != len(b.Problems) {
				t.Fatalf("merge %d: %d problems, then %d:\n%v\n%v\ninput:\n%s\nshuffled:\n%s", i, len(a.Problems), len(b.Problems), err, err2, formatInputs(in), formatInputs(again))
			}
			continue
		}
		for _, f := range []struct {
			name string
			a, b []byte
		}{{"registries.conf", res.RegistriesConf, res2.RegistriesConf}, {"policy.json", renderPolicyJSON(t, in, res), renderPolicyJSON(t, again, res2)}, {"search drop-in", res.SearchRegistries, res2.SearchRegistries}} {
			if !bytes.Equal(f.a, f.b) {
				t.Fatalf("merge %d: %s differs\ninput:\n%s\nshuffled:\n%s\nfirst:\n%s\nthen:\n%s", i, f.name, formatInputs(in), formatInputs(again), f.a, f.b)
			}
		}
	}
}

// shuffledInputs returns a deep copy of in with the objects of each kind, and the entries of each object,
// in another order. The registrySources lists keep their order, which the output follows on purpose.
func shuffledInputs(in *inputs.Inputs, r *rand.Rand) *inputs.Inputs {
	out := *in
	out.ImageContentSourcePolicies = nil
	for _, o := range in.ImageContentSourcePolicies {
		o = o.DeepCopy()
		shuffle(r, o.Spec.RepositoryDigestMirrors)
		out.ImageContentSourcePolicies = append(out.ImageContentSourcePolicies, o)
	}
	out.ImageDigestMirrorSets = nil
	for _, o := range in.ImageDigestMirrorSets {
		o = o.DeepCopy()
		shuffle(r, o.Spec.ImageDigestMirrors)
		out.ImageDigestMirrorSets = append(out.ImageDigestMirrorSets, o)
	}
	out.ImageTagMirrorSets = nil
	for _, o := range in.ImageTagMirrorSets {
		o = o.DeepCopy()
		shuffle(r, o.Spec.ImageTagMirrors)
		out.ImageTagMirrorSets = append(out.ImageTagMirrorSets, o)
	}
	shuffle(r, out.ImageContentSourcePolicies)
	shuffle(r, out.ImageDigestMirrorSets)
	shuffle(r, out.ImageTagMirrorSets)
	return &out
}

func shuffle[T any](r *rand.Rand, s []T) {
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
}

// TestValueFastPath checks that the fast path of value validation judges exactly like the API patterns
// it stands in for, on random strings over the characters that matter.
func TestValueFastPath(t *testing.T) {
	const alphabet = "aZ09-._:/*@"
	r := rand.New(rand.NewPCG(7, 7))
	n := 300000
	if testing.Short() {
		n = 30000
	}
	b := make([]byte, 0, 16)
	for range n {
		b = b[:0]
		for range r.IntN(16) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		checkFastPath(t, string(b))
	}
}

// FuzzValueFastPath is TestValueFastPath driven by the fuzzer.
func FuzzValueFastPath(f *testing.F) {
	for _, s := range []string{"quay.io:443/ns/a__b--c.d", "*.example.com", "a-.b", "x/-a", "h:/p", "m.local/ns_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) { checkFastPath(t, v) })
}

func checkFastPath(t *testing.T, v string) {
	t.Helper()
	for _, kind := range []string{"mirror", "source", "host"} {
		if pattern, fast := registries.MatchesValue(kind, v); pattern != fast {
			t.Fatalf("%s %q: the pattern says %v, the fast path %v", kind, v, pattern, fast)
		}
	}
}
