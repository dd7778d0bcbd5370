package explain_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

const dgst = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// A registries.conf written by hand: quay.io/team has a digest-only, an insecure digest-only and a
// tag-only mirror and is blocked; docker.io has an "all" mirror; reg.lab is insecure.
const handWritten = `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]

[[registry]]
location = "quay.io/team"
blocked = true
[[registry.mirror]]
location = "mirror.local/team"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "reg.lab/team"
insecure = true
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "tags.local/team"
pull-from-mirror = "tag-only"

[[registry]]
location = "docker.io"
[[registry.mirror]]
location = "mirror.local/docker"

[[registry]]
location = "reg.lab"
insecure = true
`

func load(t *testing.T, conf string) *registriesconf.Config {
	t.Helper()
	c, err := registriesconf.Load([]byte(conf), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// briefAttempts renders attempts as "reference [flags]", the part tests assert on.
func briefAttempts(as []explain.Attempt) []string {
	var out []string
	for _, a := range as {
		var flags []string
		if a.Primary {
			flags = append(flags, "primary")
		} else {
			flags = append(flags, "mirror "+a.PullFromMirror)
		}
		if a.Insecure {
			flags = append(flags, "insecure")
		}
		if a.Blocked {
			flags = append(flags, "blocked")
		}
		out = append(out, fmt.Sprintf("%s [%s]", a.Reference, strings.Join(flags, ", ")))
	}
	return out
}

func TestExplainUsesTheLibrarysPullSources(t *testing.T) {
	cfg := load(t, handWritten)
	cases := []struct {
		name      string
		ref       string
		entry     string
		attempts  []string
		skipped   int
		contacted bool
	}{
		{name: "a digest pull tries the digest-only mirrors, then refuses the blocked source",
			ref: "quay.io/team/app@" + dgst, entry: "quay.io/team",
			attempts: []string{
				"mirror.local/team/app@" + dgst + " [mirror digest-only]",
				"reg.lab/team/app@" + dgst + " [mirror digest-only, insecure]",
				"quay.io/team/app@" + dgst + " [primary, blocked]",
			}, skipped: 1},
		{name: "a tag pull tries the tag-only mirror only",
			ref: "quay.io/team/app:v1", entry: "quay.io/team",
			attempts: []string{"tags.local/team/app:v1 [mirror tag-only]", "quay.io/team/app:v1 [primary, blocked]"}, skipped: 2},
		{name: "a reference without tag is pulled as latest",
			ref: "quay.io/team/app", entry: "quay.io/team",
			attempts: []string{"tags.local/team/app:latest [mirror tag-only]", "quay.io/team/app:latest [primary, blocked]"}, skipped: 2},
		{name: "an all mirror serves tags and the source is tried last",
			ref: "docker.io/library/busybox:1", entry: "docker.io",
			attempts: []string{"mirror.local/docker/library/busybox:1 [mirror ]", "docker.io/library/busybox:1 [primary]"}, contacted: true},
		{name: "an insecure registry is contacted insecurely",
			ref: "reg.lab/x/y:1", entry: "reg.lab",
			attempts: []string{"reg.lab/x/y:1 [primary, insecure]"}, contacted: true},
		{name: "a reference no entry matches goes where it names",
			ref: "example.com/x:1", entry: "",
			attempts: []string{"example.com/x:1 [primary]"}, contacted: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e, err := explain.Explain(cfg, tc.ref, nil)
			if err != nil {
				t.Fatal(err)
			}
			entry := ""
			if e.Entry != nil {
				entry = e.Entry.Prefix
			}
			if entry != tc.entry {
				t.Errorf("entry %q, want %q", entry, tc.entry)
			}
			if got := briefAttempts(e.Attempts); !slices.Equal(got, tc.attempts) {
				t.Errorf("attempts\n got %q\nwant %q", got, tc.attempts)
			}
			if len(e.Skipped) != tc.skipped {
				t.Errorf("skipped %q, want %d", e.Skipped, tc.skipped)
			}
			if e.SourceContacted() != tc.contacted {
				t.Errorf("source contacted %t, want %t", e.SourceContacted(), tc.contacted)
			}
		})
	}
}

func TestExplainRejectsBadReferences(t *testing.T) {
	cfg := load(t, handWritten)
	for ref, want := range map[string]string{
		"busybox":              `short name "busybox": CRI-O tries it on each search registry in turn ([registry.access.redhat.com, docker.io])`,
		"quay.io/Team/App:v1":  "not an image reference",
		"quay.io/app:bad tag!": "not an image reference",
	} {
		_, err := explain.Explain(cfg, ref, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", ref, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the error is more than one line: %q", ref, err)
		}
	}
	if _, err := explain.Explain(cfg, "busybox", nil); !errors.Is(err, explain.ErrShortName) {
		t.Errorf("a short name is not ErrShortName: %v", err)
	}
}

// TestExplainWithManifests renders objects the way the controller does and checks the whole text: each
// mirror names the object field it came from, inherited mirrors say from which source, and blocked and
// insecure say why. The expected text is written by hand from the objects.
func TestExplainWithManifests(t *testing.T) {
	in := &inputs.Inputs{
		ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{fixtures.IDMS("team", fixtures.Mirror("quay.io/team", "mirror.local/team", "backup.local/team").Never())},
		ImageTagMirrorSets:    []*configv1.ImageTagMirrorSet{fixtures.ITMS("tags", fixtures.Mirror("quay.io/team", "tags.local/team").Never())},
		Image:                 fixtures.Image(fixtures.Insecure("backup.local"), fixtures.Blocked("quay.io/team/secret")),
		ClusterVersion:        fixtures.ClusterVersion(fixtures.ReleaseImage),
	}
	r, err := explain.RenderPool(in, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Pool != "worker" {
		t.Errorf("pool %q, want worker", r.Pool)
	}
	cases := []struct{ ref, want string }{
		{ref: "quay.io/team/secret/x@" + dgst, want: `reference: quay.io/team/secret/x@` + dgst + ` (pull by digest)
entry: [[registry]] prefix "quay.io/team/secret", location "quay.io/team/secret", blocked
  mirrors inherited from the enclosing source "quay.io/team"
  blocked by mirrorSourcePolicy NeverContactSource for source "quay.io/team" (ImageDigestMirrorSet "team" spec.imageDigestMirrors[0])
  blocked by mirrorSourcePolicy NeverContactSource for source "quay.io/team" (ImageTagMirrorSet "tags" spec.imageTagMirrors[0])
  blocked by Image "cluster" spec.registrySources.blockedRegistries[0] ("quay.io/team/secret")
attempts, in order (the first that has the image serves the pull):
  1. mirror.local/team/secret/x@` + dgst + `
     mirror "mirror.local/team/secret", pull-from-mirror digest-only
     from ImageDigestMirrorSet "team" spec.imageDigestMirrors[0].mirrors[0] (inherited from source "quay.io/team")
  2. backup.local/team/secret/x@` + dgst + `
     mirror "backup.local/team/secret", pull-from-mirror digest-only, insecure (TLS not verified, plain HTTP after HTTPS fails)
     from ImageDigestMirrorSet "team" spec.imageDigestMirrors[0].mirrors[1] (inherited from source "quay.io/team")
     insecure by Image "cluster" spec.registrySources.insecureRegistries[0] ("backup.local")
  3. quay.io/team/secret/x@` + dgst + `
     primary location "quay.io/team/secret" (the source)
     BLOCKED: refused without contacting it (entry "quay.io/team/secret" is blocked)
not tried: mirror "tags.local/team/secret" (tag-only: the reference is by digest)
source: never contacted: the primary location is blocked, so the pull fails when no mirror has the image
`},
		{ref: "quay.io/team/app:v1", want: `reference: quay.io/team/app:v1 (pull by tag)
entry: [[registry]] prefix "quay.io/team", location "quay.io/team", blocked
  blocked by mirrorSourcePolicy NeverContactSource for source "quay.io/team" (ImageDigestMirrorSet "team" spec.imageDigestMirrors[0])
  blocked by mirrorSourcePolicy NeverContactSource for source "quay.io/team" (ImageTagMirrorSet "tags" spec.imageTagMirrors[0])
attempts, in order (the first that has the image serves the pull):
  1. tags.local/team/app:v1
     mirror "tags.local/team", pull-from-mirror tag-only
     from ImageTagMirrorSet "tags" spec.imageTagMirrors[0].mirrors[0]
  2. quay.io/team/app:v1
     primary location "quay.io/team" (the source)
     BLOCKED: refused without contacting it (entry "quay.io/team" is blocked)
not tried: mirror "mirror.local/team" (digest-only: the reference is by tag)
not tried: mirror "backup.local/team" (digest-only: the reference is by tag)
source: never contacted: the primary location is blocked, so the pull fails when no mirror has the image
`},
		{ref: "backup.local/team/app:v1", want: `reference: backup.local/team/app:v1 (pull by tag)
entry: [[registry]] prefix "backup.local", location "backup.local", insecure
attempts, in order (the first that has the image serves the pull):
  1. backup.local/team/app:v1
     primary location "backup.local" (the source), insecure (TLS not verified, plain HTTP after HTTPS fails)
     insecure by Image "cluster" spec.registrySources.insecureRegistries[0] ("backup.local")
source: contacted: it is the only place the pull tries
`},
	}
	for _, tc := range cases {
		t.Run(tc.ref, func(t *testing.T) {
			e, err := explain.Explain(r.Config, tc.ref, r.Provenance)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := e.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func TestRenderWithoutMirrorsUsesTheBaseFile(t *testing.T) {
	r, err := explain.RenderPool(&inputs.Inputs{}, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if len(r.Files) != 0 {
		t.Errorf("files %v, want none", r.Files)
	}
	search, err := r.Config.UnqualifiedSearchRegistries()
	if err != nil || !slices.Equal(search, []string{"registry.access.redhat.com", "docker.io"}) {
		t.Errorf("search list %q (%v), want the base one", search, err)
	}
}

func TestExplainOfAWildcardEntrySaysThePrimaryIsTheReferencesOwnRegistry(t *testing.T) {
	cfg := load(t, "[[registry]]\nprefix = \"*.example.org\"\n[[registry.mirror]]\nlocation = \"m.local\"\npull-from-mirror = \"digest-only\"\n")
	e, err := explain.Explain(cfg, "a.b.example.org/x/y@"+dgst, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m.local/x/y@" + dgst + " [mirror digest-only]", "a.b.example.org/x/y@" + dgst + " [primary]"}
	if got := briefAttempts(e.Attempts); !slices.Equal(got, want) {
		t.Errorf("attempts\n got %q\nwant %q", got, want)
	}
	var b strings.Builder
	if err := e.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "primary location: the reference's own registry (a wildcard entry has no location)") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestDifferencesSayWhatAnotherConfigurationChangesInTheAnswer(t *testing.T) {
	before := load(t, "[[registry]]\nlocation = \"quay.io/team\"\n[[registry.mirror]]\nlocation = \"old.local/team\"\npull-from-mirror = \"digest-only\"\n")
	after := load(t, "[[registry]]\nlocation = \"quay.io/team\"\nblocked = true\n[[registry.mirror]]\nlocation = \"new.local/team\"\npull-from-mirror = \"digest-only\"\n")
	ref := "quay.io/team/app@" + dgst
	a, err := explain.Explain(before, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := explain.Explain(after, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := explain.AnswerChanges(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`- entry: [[registry]] prefix "quay.io/team", location "quay.io/team"`,
		`+ entry: [[registry]] prefix "quay.io/team", location "quay.io/team", blocked`,
		`-   1. old.local/team/app@` + dgst,
		`-      mirror "old.local/team", pull-from-mirror digest-only`,
		`+   1. new.local/team/app@` + dgst,
		`+      mirror "new.local/team", pull-from-mirror digest-only`,
		`- source: contacted only when every mirror before it fails`,
		`+      BLOCKED: refused without contacting it (entry "quay.io/team" is blocked)`,
		`+ source: never contacted: the primary location is blocked, so the pull fails when no mirror has the image`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if same, err := explain.AnswerChanges(a, a); err != nil || same != nil {
		t.Errorf("an explanation differs from itself: %q %v", same, err)
	}
}
