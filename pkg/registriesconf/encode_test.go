package registriesconf

import (
	"bytes"
	"encoding"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// Encode is checked against BurntSushi's encoder itself, called as the reference calls it, never against
// strings written by hand alone: by the table below, by the fuzz target and, for the shape of real
// output, by the example.

// burntSushi is the reference encoding.
func burntSushi(tb testing.TB, conf *sysregistriesv2.V2RegistriesConf) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
		tb.Fatalf("BurntSushi/toml: %v", err)
	}
	return buf.Bytes()
}

// requireSameAsBurntSushi fails unless Encode(conf) is the reference encoding, and, on the fast path,
// unless the buffer was sized exactly.
func requireSameAsBurntSushi(tb testing.TB, conf *sysregistriesv2.V2RegistriesConf) {
	tb.Helper()
	want := burntSushi(tb, conf)
	got, err := Encode(conf)
	if err != nil {
		tb.Fatalf("Encode: %v", err)
	}
	if !bytes.Equal(got, want) {
		tb.Fatalf("Encode differs from BurntSushi/toml for %#v\ngot:\n%q\nwant:\n%q", conf, got, want)
	}
	if fastPathCovers(conf) && cap(got) != len(got) {
		tb.Fatalf("the buffer was sized %d for %d bytes", cap(got), len(got))
	}
}

// hostileStrings need escaping, or look like TOML syntax, or are not ASCII, or not even UTF-8.
var hostileStrings = []string{
	`"`, `\`, "\n", "\t", "\x00", "\x7f", "\x1f", "\b\f\r", "\x1b[31m", "\v",
	"é", "日本語/レジストリ", "\u2028\u00a0", "\U0001F600", "\xff\xfe", "\xc3", "a\x80b",
	`quay.io/ns/"repo"`, `C:\registry\path`, "line1\r\nline2", `\u0041`,
	"[[registry]]\nprefix = \"x\"", "' # not a comment", "key = value", "   ", "",
}

func TestEncodeMatchesBurntSushi(t *testing.T) {
	type conf = sysregistriesv2.V2RegistriesConf
	type reg = sysregistriesv2.Registry
	type ep = sysregistriesv2.Endpoint
	cases := map[string]*conf{
		"zero value":                 {},
		"empty lists, not nil":       {Registries: []reg{}, UnqualifiedSearchRegistries: []string{}, CredentialHelpers: []string{}},
		"empty registry list only":   {Registries: []reg{}},
		"search list drop-in":        {UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"}},
		"one search registry":        {UnqualifiedSearchRegistries: []string{"quay.io"}},
		"credential helpers":         {CredentialHelpers: []string{"containers-auth.json", "pass", "secretservice"}},
		"short-name mode and helper": {ShortNameMode: "enforcing", AdditionalLayerStoreAuthHelper: "/usr/local/bin/als-helper"},
		"zero registry":              {Registries: []reg{{}}},
		"zero mirror":                {Registries: []reg{{Mirrors: []ep{{}, {}}}}},
		"empty mirror list":          {Registries: []reg{{Prefix: "a.example.com", Mirrors: []ep{}}}},
		"every field": {
			Registries: []reg{{
				Prefix:             "quay.io/ns",
				Endpoint:           ep{Location: "quay.io/other-ns", Insecure: true, PullFromMirror: "all"},
				Mirrors:            []ep{{Location: "m1.example.com:5000/ns", Insecure: true, PullFromMirror: "digest-only"}, {Location: "m2.example.com/ns", PullFromMirror: "tag-only"}},
				Blocked:            true,
				MirrorByDigestOnly: true,
			}},
			UnqualifiedSearchRegistries:    []string{"registry.access.redhat.com", "docker.io"},
			CredentialHelpers:              []string{"containers-auth.json"},
			ShortNameMode:                  "permissive",
			AdditionalLayerStoreAuthHelper: "helper",
		},
		"as rendered": {
			UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"},
			Registries: []reg{
				{Endpoint: ep{Location: "quay.io/openshift-release-dev/ocp-release"}, Mirrors: []ep{{Location: "mirror.example.com/ocp/release", PullFromMirror: "digest-only"}}},
				{Endpoint: ep{Location: "registry.example.com:5000/team/app"}, Mirrors: []ep{{Location: "mirror.example.com:443/team/app", PullFromMirror: "tag-only"}}},
				{Prefix: "blocked.example.com", Endpoint: ep{Location: "blocked.example.com"}, Blocked: true},
				{Prefix: "insecure.example.com", Endpoint: ep{Location: "insecure.example.com", Insecure: true}},
				{Endpoint: ep{Location: "icsp.example.com/ns"}, Mirrors: []ep{{Location: "m.example.com/ns"}}, MirrorByDigestOnly: true},
			},
		},
		"wildcard prefix without location": {Registries: []reg{{Prefix: "*.example.com", Blocked: true}, {Prefix: "*.corp.example.com", Mirrors: []ep{{Location: "m.example.com"}}}}},
		"ports and digests":                {Registries: []reg{{Prefix: "registry.example.com:5000/ns/repo@sha256:0123", Endpoint: ep{Location: "[::1]:5000/ns"}}}},
		"pull-from-mirror on the primary":  {Registries: []reg{{Endpoint: ep{Location: "a.example.com", PullFromMirror: "tag-only"}}}},
	}
	for i, s := range hostileStrings {
		cases[fmt.Sprintf("hostile string %d %q everywhere", i, s)] = &conf{
			Registries: []reg{{
				Prefix:   s,
				Endpoint: ep{Location: s, PullFromMirror: s},
				Mirrors:  []ep{{Location: s, PullFromMirror: s}, {Location: s + s, Insecure: true}},
			}},
			UnqualifiedSearchRegistries:    []string{s, "x", s},
			CredentialHelpers:              []string{s},
			ShortNameMode:                  s,
			AdditionalLayerStoreAuthHelper: s,
		}
	}
	var every bytes.Buffer
	for _, s := range hostileStrings {
		every.WriteString(s)
	}
	cases["all hostile strings in one"] = &conf{ShortNameMode: every.String(), UnqualifiedSearchRegistries: hostileStrings}
	var bytesAll []byte
	for b := range 256 {
		bytesAll = append(bytesAll, byte(b))
	}
	cases["every byte"] = &conf{Registries: []reg{{Prefix: string(bytesAll), Mirrors: []ep{{Location: string(bytesAll)}}}}}

	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if !fastPathCovers(c) {
				t.Fatal("the case is meant for the fast path")
			}
			requireSameAsBurntSushi(t, c)
		})
	}
}

// TestEncodeFallback pins down what the fast path leaves to BurntSushi's encoder: a nil configuration and
// short-name aliases (a nil Aliases map is left out; an empty one is still an [aliases] table).
func TestEncodeFallback(t *testing.T) {
	withAliases := func(aliases map[string]string) *sysregistriesv2.V2RegistriesConf {
		c := &sysregistriesv2.V2RegistriesConf{
			UnqualifiedSearchRegistries: []string{"docker.io"},
			Registries:                  []sysregistriesv2.Registry{{Prefix: "a.example.com", Mirrors: []sysregistriesv2.Endpoint{{Location: "m.example.com"}}}},
		}
		c.Aliases = aliases
		return c
	}
	for name, c := range map[string]struct {
		conf     *sysregistriesv2.V2RegistriesConf
		fastPath bool
	}{
		"nil aliases":               {withAliases(nil), true},
		"nil configuration":         {nil, false},
		"empty aliases":             {withAliases(map[string]string{}), false},
		"aliases":                   {withAliases(map[string]string{"ubi": "registry.access.redhat.com/ubi9", "fedora": "registry.fedoraproject.org/fedora"}), false},
		"aliases that need quoting": {withAliases(map[string]string{"a b": "x", "": "y", "é\n\"": "z"}), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := fastPathCovers(c.conf); got != c.fastPath {
				t.Fatalf("fastPathCovers = %v, want %v", got, c.fastPath)
			}
			if c.conf == nil {
				got, err := Encode(nil)
				if err != nil || len(got) != 0 {
					t.Fatalf("Encode(nil) = %q, %v; want nothing, as BurntSushi/toml", got, err)
				}
				return
			}
			requireSameAsBurntSushi(t, c.conf)
		})
	}
}

// TestEncodeKnowsEveryField fails when a containers/image update changes the encoded types: the fast path
// writes exactly these fields, with these tags, and relies on none of the types marshaling itself. A new
// field must be written by appendDocument (and its fuzz input) or make fastPathCovers false.
func TestEncodeKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		value any
		want  []string
	}{{
		sysregistriesv2.V2RegistriesConf{},
		[]string{
			`Registries []sysregistriesv2.Registry toml:"registry"`,
			`UnqualifiedSearchRegistries []string toml:"unqualified-search-registries"`,
			`CredentialHelpers []string toml:"credential-helpers"`,
			`ShortNameMode string toml:"short-name-mode"`,
			`AdditionalLayerStoreAuthHelper string toml:"additional-layer-store-auth-helper"`,
			`shortNameAliasConf sysregistriesv2.shortNameAliasConf (embedded) toml:""`,
			`Aliases map[string]string toml:"aliases"`,
		},
	}, {
		sysregistriesv2.Registry{},
		[]string{
			`Prefix string toml:"prefix"`,
			`Endpoint sysregistriesv2.Endpoint (embedded) toml:""`,
			`Location string toml:"location,omitempty"`,
			`Insecure bool toml:"insecure,omitempty"`,
			`PullFromMirror string toml:"pull-from-mirror,omitempty"`,
			`Mirrors []sysregistriesv2.Endpoint toml:"mirror,omitempty"`,
			`Blocked bool toml:"blocked,omitempty"`,
			`MirrorByDigestOnly bool toml:"mirror-by-digest-only,omitempty"`,
		},
	}} {
		rt := reflect.TypeOf(c.value)
		if got := encodedFields(rt); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s has changed; teach Encode about it or leave it to BurntSushi/toml:\ngot  %q\nwant %q", rt, got, c.want)
		}
	}
	marshalers := []reflect.Type{reflect.TypeFor[toml.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
	for _, rt := range []reflect.Type{
		reflect.TypeFor[sysregistriesv2.V2RegistriesConf](), reflect.TypeFor[sysregistriesv2.Registry](), reflect.TypeFor[sysregistriesv2.Endpoint](),
	} {
		for _, m := range marshalers {
			if rt.Implements(m) || reflect.PointerTo(rt).Implements(m) {
				t.Errorf("%s implements %s: BurntSushi/toml would encode it with that method", rt, m)
			}
		}
	}
}

// encodedFields lists the fields of a struct type as BurntSushi's encoder walks them, embedded structs
// inlined after their own line.
func encodedFields(rt reflect.Type) []string {
	var out []string
	for i := range rt.NumField() {
		f := rt.Field(i)
		embedded := ""
		if f.Anonymous {
			embedded = " (embedded)"
		}
		out = append(out, fmt.Sprintf("%s %s%s toml:%q", f.Name, f.Type, embedded, f.Tag.Get("toml")))
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, encodedFields(f.Type)...)
		}
	}
	return out
}

func TestEncodeAllocatesOnce(t *testing.T) {
	conf := benchConf(100)
	requireSameAsBurntSushi(t, conf)
	if allocs := testing.AllocsPerRun(20, func() { _, _ = Encode(conf) }); allocs != 1 {
		t.Fatalf("Encode allocates %v times, want once", allocs)
	}
}

func ExampleEncode() {
	conf := &sysregistriesv2.V2RegistriesConf{
		UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"},
		Registries: []sysregistriesv2.Registry{{
			Endpoint: sysregistriesv2.Endpoint{Location: "quay.io/openshift-release-dev/ocp-release"},
			Mirrors: []sysregistriesv2.Endpoint{
				{Location: "mirror.example.com/ocp/release", PullFromMirror: "digest-only"},
				{Location: "backup.example.com:5000/ocp/release", Insecure: true, PullFromMirror: "digest-only"},
			},
		}, {
			Prefix:   "*.blocked.example.com",
			Endpoint: sysregistriesv2.Endpoint{Location: "blocked.example.com"},
			Blocked:  true,
		}},
	}
	out, err := Encode(conf)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(out)
	// Output:
	// unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]
	// short-name-mode = ""
	// additional-layer-store-auth-helper = ""
	//
	// [[registry]]
	//   prefix = ""
	//   location = "quay.io/openshift-release-dev/ocp-release"
	//
	//   [[registry.mirror]]
	//     location = "mirror.example.com/ocp/release"
	//     pull-from-mirror = "digest-only"
	//
	//   [[registry.mirror]]
	//     location = "backup.example.com:5000/ocp/release"
	//     insecure = true
	//     pull-from-mirror = "digest-only"
	//
	// [[registry]]
	//   prefix = "*.blocked.example.com"
	//   location = "blocked.example.com"
	//   blocked = true
}

// FuzzEncodeMatchesBurntSushi builds configurations from the fuzz input (see fuzzInput) and requires
// Encode to give BurntSushi's bytes for each. The seeds are in testdata/fuzz/FuzzEncodeMatchesBurntSushi.
func FuzzEncodeMatchesBurntSushi(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		requireSameAsBurntSushi(t, (&fuzzInput{data: data}).conf())
	})
}

// fuzzInput reads a configuration from fuzz bytes; an exhausted input reads as zeros. The layout:
//
//	conf:     list(registry, 12) list(string, 6) list(string, 6) string string aliases
//	registry: string string bool string bool bool list(mirror, 5)   prefix, location, insecure,
//	                                                                pull-from-mirror, blocked, digest-only
//	mirror:   string bool string                                    location, insecure, pull-from-mirror
//	aliases:  a byte as a list length, then that many string pairs
//	list:     a byte: 0 is nil, 1 empty, n is n-1 elements (modulo the maximum + 1)
//	string:   a byte b: below 0x80 fuzzStrings[b % len], else the next (b-0x80) % 64 bytes as they are
//	bool:     a byte's low bit
type fuzzInput struct{ data []byte }

// fuzzStrings are the strings a single byte picks: the usual values of every field, and the hostile ones.
var fuzzStrings = append([]string{
	"", "registry.example.com", "*.example.com", "mirror.example.com:5000/ns/repo", "all", "digest-only",
	"tag-only", "enforcing", "quay.io/openshift-release-dev/ocp-release@sha256:0123abcd",
}, hostileStrings...)

func (in *fuzzInput) byte() byte {
	if len(in.data) == 0 {
		return 0
	}
	b := in.data[0]
	in.data = in.data[1:]
	return b
}

func (in *fuzzInput) bool() bool { return in.byte()&1 == 1 }

func (in *fuzzInput) string() string {
	b := in.byte()
	if b < 0x80 {
		return fuzzStrings[int(b)%len(fuzzStrings)]
	}
	n := min(int(b-0x80)%64, len(in.data))
	s := string(in.data[:n])
	in.data = in.data[n:]
	return s
}

// listLen returns -1 for a nil list.
func (in *fuzzInput) listLen(maxLen int) int {
	b := in.byte()
	if b == 0 {
		return -1
	}
	return int(b-1) % (maxLen + 1)
}

func fuzzList[T any](in *fuzzInput, maxLen int, elem func() T) []T {
	n := in.listLen(maxLen)
	if n < 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = elem()
	}
	return out
}

func (in *fuzzInput) conf() *sysregistriesv2.V2RegistriesConf {
	conf := &sysregistriesv2.V2RegistriesConf{
		Registries:                     fuzzList(in, 12, in.registry),
		UnqualifiedSearchRegistries:    fuzzList(in, 6, in.string),
		CredentialHelpers:              fuzzList(in, 6, in.string),
		ShortNameMode:                  in.string(),
		AdditionalLayerStoreAuthHelper: in.string(),
	}
	if n := in.listLen(4); n >= 0 {
		conf.Aliases = map[string]string{}
		for range n {
			conf.Aliases[in.string()] = in.string()
		}
	}
	return conf
}

func (in *fuzzInput) registry() sysregistriesv2.Registry {
	return sysregistriesv2.Registry{
		Prefix:             in.string(),
		Endpoint:           in.endpoint(),
		Blocked:            in.bool(),
		MirrorByDigestOnly: in.bool(),
		Mirrors:            fuzzList(in, 5, in.endpoint),
	}
}

func (in *fuzzInput) endpoint() sysregistriesv2.Endpoint {
	return sysregistriesv2.Endpoint{Location: in.string(), Insecure: in.bool(), PullFromMirror: in.string()}
}

// BenchmarkEncode compares Encode with BurntSushi's encoder on configurations shaped like rendered ones.
func BenchmarkEncode(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		conf := benchConf(n)
		for _, impl := range []struct {
			name   string
			encode func(*sysregistriesv2.V2RegistriesConf) ([]byte, error)
		}{{"fast", Encode}, {"burntsushi", encodeWithBurntSushi}} {
			b.Run(fmt.Sprintf("sources=%d/impl=%s", n, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				var size int
				for b.Loop() {
					out, err := impl.encode(conf)
					if err != nil {
						b.Fatal(err)
					}
					size = len(out)
				}
				b.SetBytes(int64(size))
			})
		}
	}
}

// benchConf is a rendered configuration with n sources: the node's search list, and per source a
// registry entry with one to three mirrors, digest-only for 70% of the sources, tag-only for 20%, and
// mirror-by-digest-only (as from an ImageContentSourcePolicy) for 10%; about one source in ten has both
// kinds of mirrors; 5% of the entries more are blocked and 5% insecure.
func benchConf(n int) *sysregistriesv2.V2RegistriesConf {
	conf := &sysregistriesv2.V2RegistriesConf{UnqualifiedSearchRegistries: []string{"registry.access.redhat.com", "docker.io"}}
	hosts := max(1, n/25)
	for i := range n {
		path := fmt.Sprintf("team-%d/app-%d", (i/hosts)%20, i)
		r := sysregistriesv2.Registry{Endpoint: sysregistriesv2.Endpoint{Location: fmt.Sprintf("registry-%04d.corp.example.com:5000/%s", i%hosts, path)}}
		pull := "digest-only"
		switch i % 10 {
		case 7, 8:
			pull = "tag-only"
		case 9:
			pull, r.MirrorByDigestOnly = "", true
		}
		mirrors := []string{"mirror-a.internal/" + path, "mirror-b.internal:5000/" + path, fmt.Sprintf("dr.backup.example.net/r%d/%s", i%hosts, path)}
		for _, m := range mirrors[:1+i%3] {
			r.Mirrors = append(r.Mirrors, sysregistriesv2.Endpoint{Location: m, PullFromMirror: pull})
		}
		if i%10 == 3 {
			r.Mirrors = append(r.Mirrors, sysregistriesv2.Endpoint{Location: "tags.internal/" + path, PullFromMirror: "tag-only"})
		}
		conf.Registries = append(conf.Registries, r)
	}
	for j := range max(1, n/20) {
		host := fmt.Sprintf("old-registry-%d.corp.example.com", j)
		conf.Registries = append(conf.Registries,
			sysregistriesv2.Registry{Prefix: host, Endpoint: sysregistriesv2.Endpoint{Location: host}, Blocked: true},
			sysregistriesv2.Registry{Endpoint: sysregistriesv2.Endpoint{Location: fmt.Sprintf("lab-%d.corp.example.com/dev", j), Insecure: true}})
	}
	return conf
}
