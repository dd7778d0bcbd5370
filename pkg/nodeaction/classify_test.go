package nodeaction

import (
	"slices"
	"strings"
	"testing"
)

// TestClassify covers the situations the reference distinguishes, end to end: the action a node takes,
// the minimal safe action, and which rules fired.
func TestClassify(t *testing.T) {
	digest := func(loc string) string { return mirror(loc, "digest-only") }
	quay := conf(entry("quay.io", digest("m1.local")))
	cases := []struct {
		name        string
		old, new    Files
		action      Action
		minimal     Action
		rules       []string
		safeMention string
	}{
		{name: "nothing changed", old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: quay}, action: None, minimal: None},
		{name: "search list appended reloads",
			old: Files{RegistriesConf: conf(search("a"))}, new: Files{RegistriesConf: conf(search("a", "b"))},
			action: ReloadCRIO, minimal: ReloadCRIO, rules: []string{"registries-conf-changed", "search-list-appended"}},
		{name: "search list reordered drains",
			old: Files{RegistriesConf: conf(search("a", "b"))}, new: Files{RegistriesConf: conf(search("b", "a"))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "search-list-reordered"}},
		{name: "search list shrunk drains",
			old: Files{RegistriesConf: conf(search("a", "b"))}, new: Files{RegistriesConf: conf(search("a"))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "search-list-shrunk"}},
		{name: "registry added with digest-only mirrors reloads",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local")), entry("docker.io", digest("m2.local")))},
			action: ReloadCRIO, minimal: ReloadCRIO, rules: []string{"registries-conf-changed", "registry-added"}},
		{name: "registry added with tag-only mirrors drains",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local")), entry("docker.io", mirror("m2.local", "tag-only")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-added"}},
		{name: "registry added with all mirrors drains",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local")), entry("docker.io", mirror("m2.local", "all")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-added"}},
		{name: "registry removed drains",
			old: Files{RegistriesConf: quay}, new: Files{},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-removed"}},
		{name: "digest-only mirror added reloads",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local"), digest("m2.local")))},
			action: ReloadCRIO, minimal: ReloadCRIO, rules: []string{"registries-conf-changed", "mirror-added"}},
		{name: "tag-only mirror added drains",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local"), mirror("t.local", "tag-only")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-added"}},
		{name: "mirror removed drains",
			old: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local"), digest("m2.local")))}, new: Files{RegistriesConf: quay},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-removed"}},
		{name: "blocked turned on drains",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", "blocked = true", digest("m1.local")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "blocked-changed"}},
		{name: "insecure turned on drains, though a reload is enough",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", "insecure = true", digest("m1.local")))},
			action: DrainAndReloadCRIO, minimal: ReloadCRIO, rules: []string{"registries-conf-changed", "insecure-changed"}, safeMention: "TLS verification"},
		{name: "prefix changed drains",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", `prefix = "quay.io"`, digest("m1.local")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "prefix-changed"}},
		{name: "location changed drains",
			old: Files{RegistriesConf: conf(entry("a.io", `prefix = "quay.io"`))}, new: Files{RegistriesConf: conf(entry("b.io", `prefix = "quay.io"`))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "location-changed"}},
		{name: "legacy mirror-by-digest-only turned on drains",
			old: Files{RegistriesConf: conf(entry("quay.io", mirror("m1.local", "")))}, new: Files{RegistriesConf: conf(entry("quay.io", "mirror-by-digest-only = true", mirror("m1.local", "")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-by-digest-only-changed"}},
		{name: "legacy mirror-by-digest-only turned off drains",
			old: Files{RegistriesConf: conf(entry("quay.io", "mirror-by-digest-only = true", mirror("m1.local", "")))}, new: Files{RegistriesConf: conf(entry("quay.io", mirror("m1.local", "")))},
			action: DrainAndReloadCRIO, minimal: DrainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-by-digest-only-changed"}},
		{name: "a new search drop-in reboots, though a drain is enough for a replaced list",
			old: Files{}, new: Files{SearchRegistries: []byte(search("quay.io"))},
			action: Reboot, minimal: DrainAndReloadCRIO, rules: []string{"search-drop-in-changed"}, safeMention: "no reboot"},
		{name: "policy.json changed only reloads",
			old: Files{}, new: Files{PolicyJSON: []byte(`{"default":[{"type":"reject"}]}`)},
			action: ReloadCRIO, minimal: ReloadCRIO, rules: []string{"policy-json-changed"}},
		{name: "the largest action of several files wins",
			old: Files{RegistriesConf: quay}, new: Files{RegistriesConf: conf(entry("quay.io", digest("m1.local"), digest("m2.local"))), PolicyJSON: []byte(`{"default":[{"type":"reject"}]}`), SearchRegistries: []byte(search("registry.access.redhat.com", "docker.io", "quay.io"))},
			action: Reboot, minimal: ReloadCRIO, rules: []string{"registries-conf-changed", "mirror-added", "policy-json-changed", "search-drop-in-changed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Classify(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			var rules, safe []string
			for _, r := range res.Reasons {
				rules = append(rules, r.Rule)
				safe = append(safe, r.Safe)
			}
			if res.Action != tc.action || res.Minimal != tc.minimal || !slices.Equal(rules, tc.rules) {
				t.Errorf("got %s/%s %q, want %s/%s %q", res.Action, res.Minimal, rules, tc.action, tc.minimal, tc.rules)
			}
			if tc.safeMention != "" && !strings.Contains(strings.Join(safe, "\n"), tc.safeMention) {
				t.Errorf("no reason says why the smaller action is safe (%q): %q", tc.safeMention, safe)
			}
		})
	}
}

func TestClassifyNamesTheFileThatDoesNotParse(t *testing.T) {
	cases := []struct {
		name     string
		old, new Files
		want     string
	}{
		{name: "registries.conf", old: Files{}, new: Files{RegistriesConf: []byte("[[registry]\n")}, want: "new /etc/containers/registries.conf: not a registries.conf"},
		{name: "policy.json", old: Files{PolicyJSON: []byte("{")}, new: Files{}, want: "old /etc/containers/policy.json: not JSON"},
		{name: "drop-in", old: Files{}, new: Files{SearchRegistries: []byte("x = ")}, want: "new /etc/containers/registries.conf.d/01-image-searchRegistries.conf"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Classify(tc.old, tc.new)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestMinimalNeverExceedsAction(t *testing.T) {
	r := finding(RegistriesConfPath, ReloadCRIO, "x").safe(DrainAndReloadCRIO, "more")
	if r.Minimal != ReloadCRIO || r.Safe != "" {
		t.Errorf("safe raised the minimal action: %+v", r)
	}
}

func TestActionNamesAndOrder(t *testing.T) {
	got := []string{None.String(), ReloadCRIO.String(), DrainAndReloadCRIO.String(), Reboot.String(), Action(9).String()}
	want := []string{"none", "reload-crio", "drain-and-reload-crio", "reboot", "Action(9)"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !(None < ReloadCRIO && ReloadCRIO < DrainAndReloadCRIO && DrainAndReloadCRIO < Reboot) {
		t.Error("actions are not ordered by cost")
	}
}

func TestReasonString(t *testing.T) {
	r := Reason{Rule: "mirror-added", File: RegistriesConfPath, Entry: "quay.io", Mirror: "m.local", Message: "mirror added, tag-only", Action: DrainAndReloadCRIO}
	want := `registries.conf [[registry]] "quay.io" mirror "m.local": mirror added, tag-only (mirror-added: drain-and-reload-crio)`
	if got := r.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDiff(t *testing.T) {
	old := Files{RegistriesConf: conf(search("a"),
		entry("quay.io", mirror("m1", "digest-only"), mirror("m2", "digest-only")),
		entry("docker.io", mirror("d1", "digest-only")))}
	new := Files{
		RegistriesConf: conf(search("a", "b"),
			entry("quay.io", "blocked = true", mirror("m2", "digest-only"), mirror("m1", "all"), mirror("m3", "tag-only")),
			entry("reg.lab", "insecure = true")),
		PolicyJSON:       []byte(`{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"quay.io":[{"type":"reject"}]},"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}`),
		SearchRegistries: []byte(search("quay.io")),
	}
	changes, err := Diff(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{
		`registries.conf: changed: unqualified-search-registries [a] -> [a, b]`,
		`registries.conf [[registry]] "docker.io": removed: prefix "", location "docker.io", 1 mirror(s)`,
		`registries.conf [[registry]] "reg.lab": added: prefix "", location "reg.lab", insecure, 0 mirror(s)`,
		`registries.conf [[registry]] "quay.io": changed: blocked false -> true`,
		`registries.conf [[registry]] "quay.io" mirror "m1": changed: digest-only -> all`,
		`registries.conf [[registry]] "quay.io" mirror "m3": added: tag-only`,
		`registries.conf [[registry]] "quay.io": changed: mirror order [m1, m2] -> [m2, m1]`,
		`policy.json: added: transports.docker "quay.io" [{"type":"reject"}]`,
		`registries.conf.d/01-image-searchRegistries.conf: added: unqualified-search-registries [quay.io]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDiffOfAReformattedFileSaysFormattingOnly(t *testing.T) {
	changes, err := Diff(Files{RegistriesConf: []byte(`unqualified-search-registries = ["a"]`)}, Files{RegistriesConf: []byte("unqualified-search-registries = [ 'a' ]\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "formatting only") {
		t.Errorf("got %v", changes)
	}
}
