package registries_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	refregistries "github.com/openshift/runtime-utils/pkg/registries"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/test/fixtures"
)

// TestDifferential compares Merge with MCO's merge (openshift/runtime-utils pkg/registries, the
// library MCO renders with) on random inputs. Both files are loaded with containers/image, and for a
// corpus of image references derived from each input the pulls are compared attempt by attempt:
// rewritten reference, pull-from-mirror, insecure, blocked. Every difference must be explained by one of
// MCO defects this project fixes on purpose (docs/semantics.md §7), checked by testing the condition
// that triggers the defect for the references involved; an unexplained difference fails the test. Inputs
// that trigger no defect at all must render byte-identical files (drop-in compatibility).
//
// Reproduce one input with -differential.seed=S -differential.inputs=1.
var (
	differentialInputs = flag.Int("differential.inputs", envInt("REGISTRIES_DIFFERENTIAL_INPUTS", 2000), "random inputs TestDifferential compares with MCO (env REGISTRIES_DIFFERENTIAL_INPUTS)")
	differentialSeed   = flag.Uint64("differential.seed", uint64(envInt("REGISTRIES_DIFFERENTIAL_SEED", 1)), "seed of the first input of TestDifferential; input i uses seed+i (env REGISTRIES_DIFFERENTIAL_SEED)")
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// diffReleaseImage is on a host the generator never uses, so the release payload rule never applies.
const diffReleaseImage = "payload.invalid/ocp/release@sha256:2222222222222222222222222222222222222222222222222222222222222222"

// Defect classes (docs/semantics.md §7) a difference can be explained by.
const (
	defectSourceFirst     = "docs/semantics.md §7.1 source ahead of mirrors / repeated mirror"
	defectFarthest        = "docs/semantics.md §7.2 farthest instead of nearest ancestor"
	defectNeverNotNested  = "docs/semantics.md §7.3 NeverContactSource not reaching inheriting entries"
	defectInheritInsecure = "docs/semantics.md §7.4 inherited mirrors keep their old insecure flag"
	defectWildcardNested  = "docs/semantics.md §7.5 wildcard source with nested entries (MCO fails)"
)

func TestDifferential(t *testing.T) {
	n := *differentialInputs
	if testing.Short() && n > 200 {
		n = 200
	}
	st := newDiffStats()
	for i := 0; i < n; i++ {
		seed := *differentialSeed + uint64(i)
		in := generateInputs(seed)
		compareWithReference(t, seed, in, st)
		if t.Failed() {
			return
		}
	}
	st.log(t, n)
}

// diffStats counts what the comparison found.
type diffStats struct {
	rejected        map[string]int // inputs our Merge rejects, by problem class (an input may count in several)
	rejectedInputs  int
	compared        int
	references      int
	mcoErrors       int
	identicalBytes  int // inputs without any defect condition, whose files were compared byte for byte
	inputsByDefect  map[string]int
	diffsByDefect   map[string]int // differing (input, image reference) pairs, by the first explaining defect
	inputsWithDiffs int
}

func newDiffStats() *diffStats {
	return &diffStats{rejected: map[string]int{}, inputsByDefect: map[string]int{}, diffsByDefect: map[string]int{}}
}

func (st *diffStats) log(t *testing.T, n int) {
	t.Logf("%d inputs: %d rejected by our validation, %d compared (%d image references), %d where MCO fails",
		n, st.rejectedInputs, st.compared, st.references, st.mcoErrors)
	for _, k := range slices.Sorted(maps.Keys(st.rejected)) {
		t.Logf("  rejected, problem class %q: %d inputs", k, st.rejected[k])
	}
	t.Logf("  inputs without any defect condition, files byte-identical: %d", st.identicalBytes)
	t.Logf("  inputs whose pulls differ: %d", st.inputsWithDiffs)
	for _, k := range []string{defectSourceFirst, defectFarthest, defectNeverNotNested, defectInheritInsecure, defectWildcardNested} {
		t.Logf("  %s: %d inputs, %d differing image references", k, st.inputsByDefect[k], st.diffsByDefect[k])
	}
}

// problemClass names the kind of a problem without its values, for counting.
func problemClass(p inputs.Problem) string {
	switch m := p.Message; {
	case strings.Contains(m, "wins the tie"):
		return "docs/semantics.md §7.6 exact host shadowed by a wildcard of the same length"
	case strings.Contains(m, "mirrorSourcePolicy") && strings.Contains(m, " here but "):
		return "conflicting mirrorSourcePolicy for one source"
	default:
		m = quoted.ReplaceAllString(m, `"…"`)
		m = parenthesized.ReplaceAllString(m, "")
		return scopeLike.ReplaceAllString(m, "…")
	}
}

var (
	quoted        = regexp.MustCompile(`"[^"]*"`)
	parenthesized = regexp.MustCompile(` \([^)]*\)`)
	scopeLike     = regexp.MustCompile(`[^\s"]*[./:][^\s",;]+`)
)

// Generator pools: few hosts and paths, so that sources, mirrors and scopes overlap, nest and collide.
var (
	genHosts = []string{
		"quay.io", "quay.io", "quay.io:443", "a.quay.io", "ab.quay.io", "x.ab.quay.io",
		"registry.example.com", "registry.example.com:5000", "docker.io",
	}
	genWildcards   = []string{"*.quay.io", "*.ab.quay.io", "*.example.com", "*.io"}
	genPaths       = []string{"", "", "/ns", "/ns", "/ns/app", "/ns/app/sub", "/ns2", "/team-a"}
	genSubPaths    = []string{"/ns", "/app", "/ns/app", "/sub", "/team-a/x"}
	genMirrorHosts = []string{"mirror.local", "mirror.local:8443", "m2.local", "backup.example.net", "a.mirror.local"}
	genScopeExtras = []string{"*.local", "mirror.local", "mirror.local:8443/ns", "*.mirror.local", "m2.local/ns", "*.example.net"}
)

type generator struct{ r *rand.Rand }

func (g *generator) chance(p float64) bool   { return g.r.Float64() < p }
func (g *generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }
func (g *generator) between(lo, hi int) int  { return lo + g.r.IntN(hi-lo+1) }
func (g *generator) shuffled(xs []string) []string {
	out := slices.Clone(xs)
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (g *generator) source() string {
	if g.chance(0.1) {
		return g.pick(genWildcards)
	}
	return g.pick(genHosts) + g.pick(genPaths)
}

// nestedIn returns a scope nested in s: a namespace below it, or a host below a wildcard.
func (g *generator) nestedIn(s string) string {
	if strings.HasPrefix(s, "*.") {
		host := g.pick([]string{"x", "xy", "q.r"}) + s[1:]
		if g.chance(0.3) {
			host += ":5000"
		}
		if g.chance(0.5) {
			host += g.pick(genSubPaths)
		}
		return host
	}
	return s + g.pick(genSubPaths)
}

// parentOf returns a scope enclosing s, or s itself when it has none.
func parentOf(s string) string {
	if i := strings.LastIndexByte(s, '/'); i > 0 {
		return s[:i]
	}
	if strings.HasPrefix(s, "*.") {
		return s
	}
	host := s
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if i := strings.IndexByte(host, '.'); i >= 0 && strings.Contains(host[i+1:], ".") {
		return "*" + host[i:]
	}
	return s
}

// generateInputs returns random mirror objects and registry scopes for seed. The inputs are mostly
// valid; a few (conflicting policies, wildcard ties, source as mirror with NeverContactSource) are not.
func generateInputs(seed uint64) *inputs.Inputs {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	in := &inputs.Inputs{ClusterVersion: fixtures.ClusterVersion(diffReleaseImage)}
	icsps := map[string]*operatorv1alpha1.ImageContentSourcePolicy{}
	idmss := map[string]*configv1.ImageDigestMirrorSet{}
	itmss := map[string]*configv1.ImageTagMirrorSet{}
	names := []string{"a", "b", "c"}

	var sources, mirrors []string
	neverOf := map[string]bool{}
	for range g.between(1, 5) {
		src := g.source()
		sources = append(sources, src)
		// A small pool of mirrors per source, in a preferred order that most entries follow.
		var pool []string
		for range g.between(1, 4) {
			var m string
			switch {
			case g.chance(0.12) && len(sources) > 1:
				m = sources[g.r.IntN(len(sources)-1)] // another source: a mirror inside a mirrored scope
			case g.chance(0.08) && !strings.HasPrefix(src, "*."):
				m = g.nestedIn(src)
			default:
				m = g.pick(genMirrorHosts) + g.pick(genPaths)
			}
			if !strings.HasPrefix(m, "*.") && !slices.Contains(pool, m) {
				pool = append(pool, m)
			}
		}
		if len(pool) == 0 {
			pool = []string{"mirror.local"}
		}
		mirrors = append(mirrors, pool...)
		never, ok := neverOf[src] // one policy per source, as valid inputs have
		if !ok {
			never = g.chance(0.25)
			neverOf[src] = never
		}
		for range g.between(1, 3) {
			var list []string
			if g.chance(0.75) {
				for _, m := range pool { // a subsequence of the preferred order
					if g.chance(0.7) {
						list = append(list, m)
					}
				}
			} else {
				list = g.shuffled(pool)[:g.between(1, len(pool))]
			}
			if len(list) == 0 {
				list = pool[:1]
			}
			if g.chance(0.06) && !strings.HasPrefix(src, "*.") && (!never || g.chance(0.2)) { // the source, explicitly
				at := g.r.IntN(len(list) + 1)
				list = slices.Insert(list, at, src)
			}
			if g.chance(0.05) { // a repeated mirror
				list = append(list, list[0])
			}
			if g.chance(0.03) { // an entry that configures nothing
				list = nil
			}
			policy := configv1.MirrorSourcePolicy("")
			if g.chance(0.3) {
				policy = configv1.AllowContactingSource
			}
			if never != g.chance(0.01) { // rarely, a conflicting policy
				policy = configv1.NeverContactSource
			}
			entry := fixtures.MirrorEntry{Source: src, Mirrors: list, Policy: policy}
			name := g.pick(names)
			switch kind := g.r.IntN(10); {
			case kind < 2 && (policy != configv1.NeverContactSource || g.chance(0.1)):
				if icsps[name] == nil {
					icsps[name] = fixtures.ICSP(name)
					in.ImageContentSourcePolicies = append(in.ImageContentSourcePolicies, icsps[name])
				}
				icsps[name].Spec.RepositoryDigestMirrors = append(icsps[name].Spec.RepositoryDigestMirrors, fixtures.ICSP(name, entry).Spec.RepositoryDigestMirrors...)
			case kind < 7:
				if idmss[name] == nil {
					idmss[name] = fixtures.IDMS(name)
					in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, idmss[name])
				}
				idmss[name].Spec.ImageDigestMirrors = append(idmss[name].Spec.ImageDigestMirrors, fixtures.IDMS(name, entry).Spec.ImageDigestMirrors...)
			default:
				if itmss[name] == nil {
					itmss[name] = fixtures.ITMS(name)
					in.ImageTagMirrorSets = append(in.ImageTagMirrorSets, itmss[name])
				}
				itmss[name].Spec.ImageTagMirrors = append(itmss[name].Spec.ImageTagMirrors, fixtures.ITMS(name, entry).Spec.ImageTagMirrors...)
			}
		}
	}

	scope := func() string {
		switch k := g.r.IntN(10); {
		case k < 4:
			return g.nestedIn(g.pick(sources))
		case k < 5:
			return g.pick(sources)
		case k < 6:
			return parentOf(g.pick(sources))
		case k < 7:
			return g.pick(mirrors)
		case k < 8:
			return g.pick(genScopeExtras)
		case k < 9:
			return g.pick(genWildcards)
		default:
			return g.pick(genHosts) + g.pick(genPaths)
		}
	}
	rs := fixtures.RegistrySources(in)
	for range g.between(0, 3) {
		rs.InsecureRegistries = append(rs.InsecureRegistries, scope())
	}
	for range g.between(0, 3) {
		rs.BlockedRegistries = append(rs.BlockedRegistries, scope())
	}
	return in
}

// mcoMerge runs MCO: the node's base registries.conf decoded with BurntSushi/toml,
// EditRegistriesConfig, and the TOML encoding, as MCO does.
func mcoMerge(in *inputs.Inputs) (conf []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("MCO's merge panicked: %v", r)
		}
	}()
	var c sysregistriesv2.V2RegistriesConf
	if _, err := toml.Decode(nodeBaseConf, &c); err != nil {
		return nil, err
	}
	rs := in.RegistrySources()
	if err := refregistries.EditRegistriesConfig(&c, rs.InsecureRegistries, rs.BlockedRegistries,
		in.ImageContentSourcePolicies, in.ImageDigestMirrorSets, in.ImageTagMirrorSets); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// nodeBaseConf is the node's base /etc/containers/registries.conf.
const nodeBaseConf = "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n"

func compareWithReference(t *testing.T, seed uint64, in *inputs.Inputs, st *diffStats) {
	t.Helper()
	ours, err := registries.Merge(in)
	if err != nil {
		var invalid *inputs.InvalidError
		if !errors.As(err, &invalid) {
			t.Fatalf("seed %d: Merge failed with an internal error: %v\ninput:\n%s", seed, err, formatInputs(in))
		}
		st.rejectedInputs++
		classes := map[string]bool{}
		for _, p := range invalid.Problems {
			classes[problemClass(p)] = true
		}
		for c := range classes {
			st.rejected[c]++
		}
		return
	}
	st.compared++
	m := newDefectModel(in)
	refConf, refErr := mcoMerge(in)
	if refErr != nil {
		if len(m.wildcardNested) == 0 {
			t.Fatalf("seed %d: MCO fails without a wildcard source with nested entries: %v\ninput:\n%s", seed, refErr, formatInputs(in))
		}
		st.mcoErrors++
		st.inputsByDefect[defectWildcardNested]++
		return
	}
	ourConf := ours.RegistriesConf
	if ourConf == nil {
		ourConf = []byte(nodeBaseConf)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d: %s\ninput:\n%s\nours:\n%s\nMCO:\n%s", seed, fmt.Sprintf(format, args...), formatInputs(in), ourConf, refConf)
	}
	if !m.anyDefect() {
		if !bytes.Equal(ourConf, refConf) {
			fail("no defect condition holds, but the files differ")
		}
		st.identicalBytes++
	}
	oc, err := registriesconf.Load(ourConf, nil)
	if err != nil {
		fail("our file does not load: %v", err)
	}
	defer oc.Close()
	if err := checkNotShadowed(oc); err != nil {
		fail("%v", err)
	}
	rc, err := registriesconf.Load(refConf, nil)
	if err != nil {
		fail("MCO's file does not load: %v", err)
	}
	defer rc.Close()

	seen := map[string]bool{}
	for _, name := range m.corpus() {
		ref, err := registriesconf.ParseReference(name)
		if err != nil {
			continue
		}
		st.references++
		op, oerr := pullOf(oc, ref)
		rp, rerr := pullOf(rc, ref)
		kind := pullDifference(op, oerr, rp, rerr)
		if kind == "" {
			continue
		}
		involved := append(involvedScopes(oc, ref, op), involvedScopes(rc, ref, rp)...)
		defect := m.explain(kind, involved)
		if defect == "" {
			fail("unexplained difference (%s) for %s (entries involved: %q)\nours:      %s\nMCO:       %s", kind, name, involved, formatPull(op, oerr), formatPull(rp, rerr))
		}
		st.diffsByDefect[defect]++
		if !seen[defect] {
			seen[defect] = true
			st.inputsByDefect[defect]++
		}
	}
	if len(seen) > 0 {
		st.inputsWithDiffs++
	}
}

// attempt is one place a pull tries, as compared.
type attempt struct {
	Reference      string
	PullFromMirror string
	Insecure       bool
	Blocked        bool
}

func pullOf(c *registriesconf.Config, ref reference.Named) ([]attempt, error) {
	p, err := c.PullSources(ref)
	if err != nil {
		return nil, err
	}
	out := make([]attempt, len(p.Sources))
	for i, s := range p.Sources {
		out[i] = attempt{Reference: s.Reference.String(), PullFromMirror: s.Endpoint.PullFromMirror, Insecure: s.Insecure, Blocked: s.Blocked}
	}
	return out, nil
}

func formatPull(p []attempt, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var parts []string
	for _, a := range p {
		s := a.Reference
		if a.PullFromMirror != "" {
			s += " (" + a.PullFromMirror + ")"
		}
		if a.Insecure {
			s += " insecure"
		}
		if a.Blocked {
			s += " BLOCKED"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Kinds of difference between two pulls of the same reference.
const (
	diffSources  = "sources"  // the attempts (rewritten references, pull-from-mirror) or the failure differ
	diffInsecure = "insecure" // same attempts, an insecure flag differs
	diffBlocked  = "blocked"  // same attempts, a blocked flag differs
)

func pullDifference(a []attempt, aerr error, b []attempt, berr error) string {
	if (aerr != nil) != (berr != nil) || len(a) != len(b) {
		return diffSources
	}
	kind := ""
	for i := range a {
		switch {
		case a[i].Reference != b[i].Reference || a[i].PullFromMirror != b[i].PullFromMirror:
			return diffSources
		case a[i].Insecure != b[i].Insecure:
			kind = diffInsecure
		case a[i].Blocked != b[i].Blocked && kind == "":
			kind = diffBlocked
		}
	}
	return kind
}

// involvedScopes returns the scopes of the entries that govern ref and each attempt of its pull.
func involvedScopes(c *registriesconf.Config, ref reference.Named, p []attempt) []string {
	var out []string
	add := func(name string) {
		if reg, err := c.FindRegistry(name); err == nil && reg != nil {
			out = append(out, reg.Prefix)
		}
	}
	add(ref.Name())
	for _, a := range p {
		if r, err := registriesconf.ParseReference(a.Reference); err == nil {
			add(r.Name())
		}
	}
	return out
}

// defectModel holds what the input says, computed here from the spec (docs/semantics.md §2) and independently of
// the code under test, to tell which defect conditions hold for which entries.
type defectModel struct {
	digest, tag    []string                   // mirrored sources of each group, sorted (MCO's order)
	lists          map[string][][]string      // group+"\x00"+source -> lists of entries with a real mirror
	never          map[string]bool            // source -> NeverContactSource
	own            map[string]bool            // mirrored sources, either group
	insecure       []string                   // insecure scopes
	blocked        []string                   // blocked scopes
	nonOwn         []string                   // entries without mirrors of their own: blocked and insecure scopes
	wildcardNested []string                   // non-own entries nested in a wildcard mirrored source
	entry          map[string]map[string]bool // scope -> defects whose condition holds for its entry
	mirrorsOf      map[string][]string        // mirrored source -> every location listed for it
	in             *inputs.Inputs
}

func newDefectModel(in *inputs.Inputs) *defectModel {
	m := &defectModel{in: in, lists: map[string][][]string{}, never: map[string]bool{}, own: map[string]bool{},
		entry: map[string]map[string]bool{}, mirrorsOf: map[string][]string{}}
	add := func(group, source string, mirrors []string, policy configv1.MirrorSourcePolicy) {
		real := false
		for _, x := range mirrors {
			real = real || x != source
		}
		if !real {
			return // configures nothing, policy included
		}
		key := group + "\x00" + source
		if m.lists[key] == nil {
			if group == "digest" {
				m.digest = append(m.digest, source)
			} else {
				m.tag = append(m.tag, source)
			}
		}
		m.lists[key] = append(m.lists[key], mirrors)
		m.never[source] = m.never[source] || policy == configv1.NeverContactSource
		m.own[source] = true
		for _, x := range mirrors {
			if !slices.Contains(m.mirrorsOf[source], x) {
				m.mirrorsOf[source] = append(m.mirrorsOf[source], x)
			}
		}
	}
	for _, o := range in.ImageDigestMirrorSets {
		for _, e := range o.Spec.ImageDigestMirrors {
			add("digest", e.Source, imageMirrorStrings(e.Mirrors), e.MirrorSourcePolicy)
		}
	}
	for _, o := range in.ImageContentSourcePolicies {
		for _, e := range o.Spec.RepositoryDigestMirrors {
			add("digest", e.Source, e.Mirrors, "")
		}
	}
	for _, o := range in.ImageTagMirrorSets {
		for _, e := range o.Spec.ImageTagMirrors {
			add("tag", e.Source, imageMirrorStrings(e.Mirrors), e.MirrorSourcePolicy)
		}
	}
	sort.Strings(m.digest)
	sort.Strings(m.tag)
	m.insecure = in.RegistrySources().InsecureRegistries
	m.blocked = in.RegistrySources().BlockedRegistries
	for _, s := range append(slices.Clone(m.blocked), m.insecure...) {
		if !m.own[s] && !slices.Contains(m.nonOwn, s) {
			m.nonOwn = append(m.nonOwn, s)
		}
	}
	for _, s := range append(slices.Clone(m.digest), m.tag...) {
		if m.cyclic(s) {
			m.mark(s, defectSourceFirst)
		}
	}
	for _, e := range m.nonOwn {
		m.classifyNonOwn(e)
	}
	return m
}

func (m *defectModel) mark(scope, defect string) {
	if m.entry[scope] == nil {
		m.entry[scope] = map[string]bool{}
	}
	m.entry[scope][defect] = true
}

// anyDefect reports whether some defect condition holds anywhere in the input.
func (m *defectModel) anyDefect() bool { return len(m.entry) > 0 }

// classifyNonOwn checks the defect conditions of an entry that inherits mirrors, if any.
func (m *defectModel) classifyNonOwn(e string) {
	near, far := m.nearestMirrored(e), m.mcoMirrored(e)
	for _, s := range append(slices.Clone(m.digest), m.tag...) {
		if strings.HasPrefix(s, "*.") && s != e && nested(e, s) {
			m.wildcardNested = append(m.wildcardNested, e)
			m.mark(e, defectWildcardNested)
		}
	}
	if near == "" {
		return
	}
	if near != far {
		m.mark(e, defectFarthest)
	}
	for _, a := range []string{near, far} {
		if m.cyclic(a) {
			m.mark(e, defectSourceFirst) // the inherited list is the ancestor's
		}
	}
	if m.never[near] && !covered(e, m.blocked) {
		m.mark(e, defectNeverNotNested)
	}
	for _, a := range []string{near, far} {
		if a == "" || strings.HasPrefix(a, "*.") {
			continue
		}
		endpoints := m.mirrorsOf[a] // the source among them when an entry lists it explicitly
		if m.cyclic(a) {
			endpoints = append([]string{a}, endpoints...) // MCO's cycle breaking can list it too
		}
		for _, x := range endpoints {
			if covered(x+e[len(a):], m.insecure) != covered(x, m.insecure) {
				m.mark(e, defectInheritInsecure)
			}
		}
	}
}

// nearestMirrored is the mirrored source e inherits from (docs/semantics.md §7.2 fixed): the longest enclosing
// namespace, else the longest enclosing wildcard.
func (m *defectModel) nearestMirrored(e string) string {
	best := ""
	better := func(a, b string) bool { // a nearer than b
		aw, bw := strings.HasPrefix(a, "*."), strings.HasPrefix(b, "*.")
		if aw != bw {
			return bw
		}
		return len(a) > len(b)
	}
	for s := range m.own {
		if s != e && nested(e, s) && (best == "" || better(s, best)) {
			best = s
		}
	}
	return best
}

// mcoMirrored is the mirrored source MCO gives e the mirrors of: the first enclosing one
// in its processing order, digest sources sorted, then tag sources sorted.
func (m *defectModel) mcoMirrored(e string) string {
	for _, s := range append(slices.Clone(m.digest), m.tag...) {
		if s != e && nested(e, s) {
			return s
		}
	}
	return ""
}

// cyclic reports whether MCO's ordering constraints for source, in either group, contain a
// cycle, a repeated mirror included: only then can its cycle breaking put the source first (docs/semantics.md §7.1).
func (m *defectModel) cyclic(source string) bool {
	for _, group := range []string{"digest", "tag"} {
		succ := map[string][]string{}
		for _, l := range m.lists[group+"\x00"+source] {
			for i := 0; i+1 < len(l); i++ {
				succ[l[i]] = append(succ[l[i]], l[i+1])
			}
			if !slices.Contains(l, source) {
				succ[l[len(l)-1]] = append(succ[l[len(l)-1]], source)
			}
		}
		state := map[string]int{} // 1 visiting, 2 done
		var visit func(string) bool
		visit = func(n string) bool {
			switch state[n] {
			case 1:
				return true
			case 2:
				return false
			}
			state[n] = 1
			for _, s := range succ[n] {
				if visit(s) {
					return true
				}
			}
			state[n] = 2
			return false
		}
		for n := range succ {
			if visit(n) {
				return true
			}
		}
	}
	return false
}

// explain returns the defect that explains a difference of the given kind for a reference whose pulls
// involve the entries of the given scopes, or "" when none does.
func (m *defectModel) explain(kind string, scopes []string) string {
	allowed := map[string][]string{
		diffSources:  {defectSourceFirst, defectFarthest},
		diffInsecure: {defectInheritInsecure},
		diffBlocked:  {defectNeverNotNested},
	}[kind]
	for _, d := range allowed {
		for _, s := range scopes {
			if m.entry[s][d] {
				return d
			}
		}
	}
	return ""
}

// corpus returns image references that probe every scope of the input: repositories in and below it,
// beside it (another port, a longer name), and for wildcards single- and multi-label subdomains and the
// bare domain; each by tag and by digest.
func (m *defectModel) corpus() []string {
	var scopes []string
	scopes = append(scopes, m.digest...)
	scopes = append(scopes, m.tag...)
	scopes = append(scopes, m.insecure...)
	scopes = append(scopes, m.blocked...)
	for _, s := range append(slices.Clone(m.digest), m.tag...) {
		scopes = append(scopes, m.mirrorsOf[s]...)
	}
	names := map[string]bool{}
	for _, s := range scopes {
		if strings.HasPrefix(s, "*.") {
			d := s[2:]
			for _, h := range []string{"a." + d, "xy." + d, "b.c." + d, d, "a." + d + ":5000"} {
				names[h+"/r"] = true
				names[h+"/ns/app"] = true
			}
			continue
		}
		names[s+"/r"] = true
		names[s+"/ns/app/r"] = true
		if strings.Contains(s, "/") {
			names[s] = true
			names[s+"x/r"] = true
		}
		host, path, _ := strings.Cut(s, "/")
		if path != "" {
			path = "/" + path
		}
		if h, _, ok := strings.Cut(host, ":"); ok {
			names[h+path+"/r"] = true
		} else {
			names[host+":443"+path+"/r"] = true
		}
	}
	out := make([]string, 0, 2*len(names))
	for _, n := range slices.Sorted(maps.Keys(names)) {
		out = append(out, n+":latest", n+fuzzDigest)
	}
	return out
}

// nested reports whether sub is nested in sup (docs/semantics.md §2): equal; or sup followed by "/"; or sup is
// "*.d" and the host of sub ends with ".d".
func nested(sub, sup string) bool {
	if sub == sup {
		return true
	}
	if d, ok := strings.CutPrefix(sup, "*"); ok {
		host := sub
		if i := strings.IndexAny(host, ":/"); i >= 0 && !strings.HasPrefix(sub, "*.") {
			host = host[:i]
		}
		return strings.HasSuffix(host, d)
	}
	return strings.HasPrefix(sub, sup+"/")
}

func covered(s string, scopes []string) bool {
	for _, sc := range scopes {
		if nested(s, sc) {
			return true
		}
	}
	return false
}
