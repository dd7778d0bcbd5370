package nodeaction

import (
	"strings"
	"testing"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// TestTodaysDaemon pins the rules of the daemon of MCO 4.13 and later (docs/semantics.md §8.3) where they
// differ from the older daemons' or where the precedence of the two digest-only settings matters. Each case
// is also checked against daemonDrainsForRegistriesConf, the rule restated from the spec.
func TestTodaysDaemon(t *testing.T) {
	digest := func(loc string) string { return mirror(loc, "digest-only") }
	cases := []struct {
		name     string
		old, new []byte
		want     Action
	}{
		// Kept entries: the legacy flag is not compared.
		{name: "a kept entry turning the legacy mirror-by-digest-only on only reloads",
			old: conf(registryTOML("q.io", mirror("m", ""))), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))), want: reloadCRIO},
		{name: "a kept entry turning the legacy mirror-by-digest-only off only reloads",
			old: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))), new: conf(registryTOML("q.io", mirror("m", ""))), want: reloadCRIO},
		// Added mirrors of a kept entry: digest-only by their own setting or by the entry's new legacy flag.
		{name: "a tag-only mirror added to a kept entry whose new mirror-by-digest-only is set only reloads",
			old: conf(registryTOML("q.io", "mirror-by-digest-only = true")), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", "tag-only"))), want: reloadCRIO},
		{name: "an all mirror added to a kept entry whose new mirror-by-digest-only is set only reloads",
			old: conf(registryTOML("q.io")), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", "all"))), want: reloadCRIO},
		{name: "a mirror without pull-from-mirror added to a kept entry as its legacy flag is turned on only reloads",
			old: conf(registryTOML("q.io", mirror("a", ""))), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("a", ""), mirror("b", ""))), want: reloadCRIO},
		{name: "a mirror without pull-from-mirror added to a kept entry as its legacy flag is turned off drains",
			old: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("a", ""))), new: conf(registryTOML("q.io", mirror("a", ""), mirror("b", ""))), want: drainAndReloadCRIO},
		{name: "a digest-only mirror added to a kept entry only reloads",
			old: conf(registryTOML("q.io", digest("a"))), new: conf(registryTOML("q.io", digest("a"), digest("b"))), want: reloadCRIO},
		{name: "a mirror without pull-from-mirror added to a kept entry without the legacy flag drains",
			old: conf(registryTOML("q.io", digest("a"))), new: conf(registryTOML("q.io", digest("a"), mirror("b", ""))), want: drainAndReloadCRIO},
		// New entries: judged by their mirrors' pull-from-mirror alone; without mirrors by the legacy flag.
		{name: "a new entry with the legacy flag and a mirror without pull-from-mirror drains, the flag being ignored once it has mirrors",
			old: conf(), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))), want: drainAndReloadCRIO},
		{name: "a new entry with only digest-only mirrors only reloads",
			old: conf(), new: conf(registryTOML("q.io", digest("a"), digest("b"))), want: reloadCRIO},
		{name: "a new entry without mirrors but with the legacy flag only reloads",
			old: conf(), new: conf(registryTOML("q.io", "blocked = true", "mirror-by-digest-only = true")), want: reloadCRIO},
		{name: "a new entry without mirrors nor legacy flag drains, such as a newly blocked scope",
			old: conf(), new: conf(registryTOML("q.io", "blocked = true")), want: drainAndReloadCRIO},
		// Kept mirrors keep their pull-from-mirror or become digest-only.
		{name: "a kept mirror becoming digest-only only reloads",
			old: conf(registryTOML("q.io", mirror("m", "all"))), new: conf(registryTOML("q.io", digest("m"))), want: reloadCRIO},
		{name: "a kept mirror becoming all drains",
			old: conf(registryTOML("q.io", digest("m"))), new: conf(registryTOML("q.io", mirror("m", "all"))), want: drainAndReloadCRIO},
		{name: "a kept mirror's pull-from-mirror set from unset to all drains, the daemon comparing raw values",
			old: conf(registryTOML("q.io", mirror("m", ""))), new: conf(registryTOML("q.io", mirror("m", "all"))), want: drainAndReloadCRIO},
		{name: "a kept mirror repeated in the new file with another pull-from-mirror drains, every new mirror being compared",
			old: conf(registryTOML("q.io", mirror("m", "all"))), new: conf(registryTOML("q.io", digest("m"), mirror("m", "tag-only"))), want: drainAndReloadCRIO},
		{name: "a kept mirror whose own insecure flag changes only reloads",
			old: conf(registryTOML("q.io", digest("m"))), new: conf(registryTOML("q.io", mirror("m", "digest-only", "insecure = true"))), want: reloadCRIO},
		{name: "kept mirrors in a new order only reload",
			old: conf(registryTOML("q.io", digest("a"), digest("b"))), new: conf(registryTOML("q.io", digest("b"), digest("a"))), want: reloadCRIO},
		// An entry identical on both sides is not examined, even when its repeated mirror location would
		// compare as changed (mirrors are looked up by location, the first match).
		{name: "an unchanged entry repeating a mirror location with two pull-from-mirror values is not examined",
			old: conf(registryTOML("q.io", digest("m"), mirror("m", ""))), new: conf(registryTOML("q.io", digest("m"), mirror("m", "")), registryTOML("r.io", digest("a"))), want: reloadCRIO},
		{name: "a changed entry repeating a mirror location compares each new mirror with the first old one, and drains",
			old: conf(registryTOML("q.io", digest("m"), mirror("m", ""))), new: conf(registryTOML("q.io", "insecure = false", digest("m"), mirror("m", ""), digest("b"))), want: drainAndReloadCRIO},
		// Entries keyed by scope: a later table with the same scope replaces an earlier one.
		{name: "a repeated scope is judged by its last table",
			old: conf(registryTOML("q.io", digest("a")), registryTOML("q.io", digest("b"))), new: conf(registryTOML("q.io", digest("b"))), want: reloadCRIO},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := classify(t, withConf(tc.old), withConf(tc.new))
			if res.Action.String() != tc.want.String() {
				t.Errorf("action %s, want %s; reasons:\n%v", res.Action, tc.want, res.Reasons)
			}
			drains, err := daemonDrainsForRegistriesConf(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			if drains != res.Action.Drain {
				t.Errorf("the rule restated from the spec drains: %t; the classifier: %t", drains, res.Action.Drain)
			}
		})
	}
}

// TestModeFollowsContainersImage checks mode against containers/image's PullSourcesFromReference for every
// combination of the two digest-only settings: the registry-level mirror-by-digest-only wins over a mirror's
// pull-from-mirror (a combination the library refuses to load, but which the daemon still reads).
func TestModeFollowsContainersImage(t *testing.T) {
	digestRef, err := reference.ParseNormalizedNamed("q.io/app@sha256:" + strings.Repeat("a", 64))
	if err != nil {
		t.Fatal(err)
	}
	tagRef, err := reference.ParseNormalizedNamed("q.io/app:v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, byDigest := range []bool{false, true} {
		for _, pullFrom := range []string{"", "digest-only", "tag-only", "all"} {
			reg := sysregistriesv2.Registry{
				Prefix: "q.io", Endpoint: sysregistriesv2.Endpoint{Location: "q.io"}, MirrorByDigestOnly: byDigest,
				Mirrors: []sysregistriesv2.Endpoint{{Location: "m.io", PullFromMirror: pullFrom}},
			}
			usesMirror := func(ref reference.Named) bool {
				srcs, err := reg.PullSourcesFromReference(ref)
				if err != nil {
					t.Fatal(err)
				}
				return len(srcs) > 1
			}
			want := map[[2]bool]string{{true, true}: "all", {true, false}: "digest-only", {false, true}: "tag-only"}[[2]bool{usesMirror(digestRef), usesMirror(tagRef)}]
			if got := mode(&reg, &reg.Mirrors[0]); got != want {
				t.Errorf("mirror-by-digest-only %t, pull-from-mirror %q: mode %q, containers/image serves %q", byDigest, pullFrom, got, want)
			}
		}
	}
}
