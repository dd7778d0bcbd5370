package nodeaction

import (
	"slices"
	"testing"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Expected findings are written as "entry [mirror]: action/minimal".

func TestRegistriesConfChanged(t *testing.T) {
	quay := conf(registryTOML("quay.io", mirror("m.local", "digest-only")))
	runRuleTable(t, "registries-conf-changed", []ruleCase{
		{name: "identical bytes are no change", old: quay, new: quay},
		{name: "both sides the base file are no change"},
		{name: "writing exactly the base file is no change", old: nil, new: nodefiles.Base(nodefiles.RegistriesConf)},
		{name: "new contents reload CRI-O", old: quay, new: conf(registryTOML("quay.io", mirror("m2.local", "digest-only"))),
			want: []string{": reload-crio/reload-crio"}},
		{name: "a file written over the base reloads", old: nil, new: quay, want: []string{": reload-crio/reload-crio"}},
		{name: "a file no longer written reloads", old: quay, new: nil, want: []string{": reload-crio/reload-crio"}},
		{name: "formatting only needs nothing", old: quay,
			new:  []byte("# a comment\nunqualified-search-registries = ['registry.access.redhat.com','docker.io']\n[[registry]]\nlocation='quay.io'\nprefix=''\n[[registry.mirror]]\npull-from-mirror='digest-only'\nlocation='m.local'\n"),
			want: []string{": reload-crio/none"}},
	})
}

func TestSearchListAppended(t *testing.T) {
	runRuleTable(t, "search-list-appended", []ruleCase{
		{name: "items appended reload", old: conf(search("a", "b")), new: conf(search("a", "b", "c")), want: []string{": reload-crio/reload-crio"}},
		{name: "appending to an empty list reloads", old: conf(search()), new: conf(search("a")), want: []string{": reload-crio/reload-crio"}},
		{name: "an unchanged list does not fire", old: conf(search("a", "b")), new: conf(search("a", "b"))},
		{name: "a reordered list does not fire", old: conf(search("a", "b")), new: conf(search("b", "a", "c"))},
		{name: "a shorter list does not fire", old: conf(search("a", "b")), new: conf(search("a"))},
	})
}

func TestSearchListReordered(t *testing.T) {
	runRuleTable(t, "search-list-reordered", []ruleCase{
		{name: "swapped items drain", old: conf(search("a", "b")), new: conf(search("b", "a")), want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a replaced item drains", old: conf(search("a", "b")), new: conf(search("a", "c")), want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an item inserted before the end drains", old: conf(search("a", "b")), new: conf(search("a", "c", "b")), want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "appended items do not fire", old: conf(search("a")), new: conf(search("a", "b"))},
		{name: "a shorter list is the shrunk rule's", old: conf(search("a", "b")), new: conf(search("b"))},
	})
}

func TestSearchListShrunk(t *testing.T) {
	runRuleTable(t, "search-list-shrunk", []ruleCase{
		{name: "a removed last item drains", old: conf(search("a", "b")), new: conf(search("a")), want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an emptied list drains", old: conf(search("a")), new: conf(search()), want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a longer list does not fire", old: conf(search("a")), new: conf(search("b", "a"))},
	})
}

func TestSearchListRulesWithADropIn(t *testing.T) {
	dropIn := []byte(`unqualified-search-registries = ["quay.io"]`)
	cases := []struct {
		name     string
		old, new nodefiles.Files
		want     []string
	}{
		{name: "a list overridden on both sides needs only the reload",
			old:  onNode(nodefiles.RegistriesConf, conf(search("a", "b")), nodefiles.SearchRegistries, dropIn),
			new:  onNode(nodefiles.RegistriesConf, conf(search("a")), nodefiles.SearchRegistries, dropIn),
			want: []string{": drain-and-reload-crio/reload-crio"}},
		{name: "a drop-in that goes away exposes the shrunk list",
			old:  onNode(nodefiles.RegistriesConf, conf(search("a", "b")), nodefiles.SearchRegistries, []byte(`unqualified-search-registries = ["a", "b"]`)),
			new:  onNode(nodefiles.RegistriesConf, conf(search("a"))),
			want: []string{": drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a new drop-in that appends to the effective list needs only the reload",
			old:  onNode(nodefiles.RegistriesConf, conf(search("a", "b"))),
			new:  onNode(nodefiles.RegistriesConf, conf(search("a")), nodefiles.SearchRegistries, []byte(`unqualified-search-registries = ["a", "b", "c"]`)),
			want: []string{": drain-and-reload-crio/reload-crio"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefReasons(reasonsOf(classify(t, tc.old, tc.new), "search-list-shrunk"))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRegistryRemoved(t *testing.T) {
	runRuleTable(t, "registry-removed", []ruleCase{
		{name: "a removed entry drains", old: conf(registryTOML("quay.io"), registryTOML("docker.io")), new: conf(registryTOML("quay.io")),
			want: []string{"docker.io: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "every file back to the base drains for each entry", old: conf(registryTOML("b.io"), registryTOML("a.io")), new: nil,
			want: []string{"a.io: drain-and-reload-crio/drain-and-reload-crio", "b.io: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an entry keyed by prefix is kept when its location changes",
			old: conf(registryTOML("a.io", `prefix = "quay.io"`)), new: conf(registryTOML("b.io", `prefix = "quay.io"`))},
		{name: "no entries, nothing removed", old: conf(), new: conf(registryTOML("quay.io"))},
	})
}

// A new entry gives one finding for itself and one per mirror: the daemon judges it by its mirrors'
// pull-from-mirror, and without mirrors by its legacy mirror-by-digest-only.
func TestRegistryAdded(t *testing.T) {
	runRuleTable(t, "registry-added", []ruleCase{
		{name: "an entry with digest-only mirrors reloads", old: conf(), new: conf(registryTOML("quay.io", mirror("m1", "digest-only"), mirror("m2", "digest-only"))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: reload-crio/reload-crio", "quay.io m2: reload-crio/reload-crio"}},
		{name: "an entry with a tag-only mirror drains", old: conf(), new: conf(registryTOML("quay.io", mirror("m1", "digest-only"), mirror("m2", "tag-only"))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: reload-crio/reload-crio", "quay.io m2: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an entry with an all mirror drains", old: conf(), new: conf(registryTOML("quay.io", mirror("m1", "all"))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an entry whose mirror leaves pull-from-mirror out drains", old: conf(), new: conf(registryTOML("quay.io", mirror("m1", ""))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an entry with mirrors and the legacy mirror-by-digest-only drains, since the flag is ignored once it has mirrors",
			old: conf(), new: conf(registryTOML("quay.io", "mirror-by-digest-only = true", mirror("m1", ""))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an entry without mirrors but with the legacy mirror-by-digest-only reloads",
			old: conf(), new: conf(registryTOML("quay.io", "mirror-by-digest-only = true")),
			want: []string{"quay.io: reload-crio/reload-crio"}},
		{name: "a blocked entry with digest-only mirrors reloads (NeverContactSource)", old: conf(), new: conf(registryTOML("quay.io", "blocked = true", mirror("m1", "digest-only"))),
			want: []string{"quay.io: reload-crio/reload-crio", "quay.io m1: reload-crio/reload-crio"}},
		{name: "an entry without mirrors drains", old: conf(), new: conf(registryTOML("reg.lab:5000", "insecure = true")),
			want: []string{"reg.lab:5000: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a kept entry does not fire", old: conf(registryTOML("quay.io")), new: conf(registryTOML("quay.io", mirror("m1", "tag-only")))},
	})
}

func TestPrefixChanged(t *testing.T) {
	runRuleTable(t, "prefix-changed", []ruleCase{
		{name: "an empty prefix set to the location drains",
			old: conf(registryTOML("quay.io", mirror("m1", "digest-only"))), new: conf(registryTOML("quay.io", `prefix = "quay.io"`, mirror("m1", "digest-only"))),
			want: []string{"quay.io: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "the same prefix does not fire", old: conf(registryTOML("a.io", `prefix = "quay.io"`)), new: conf(registryTOML("b.io", `prefix = "quay.io"`))},
	})
}

func TestLocationChanged(t *testing.T) {
	runRuleTable(t, "location-changed", []ruleCase{
		{name: "a prefixed entry pointing elsewhere drains",
			old: conf(registryTOML("a.io", `prefix = "quay.io"`)), new: conf(registryTOML("b.io", `prefix = "quay.io"`)),
			want: []string{"quay.io: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "the same location does not fire", old: conf(registryTOML("quay.io")), new: conf(registryTOML("quay.io", "blocked = true"))},
	})
}

func TestBlockedChanged(t *testing.T) {
	runRuleTable(t, "blocked-changed", []ruleCase{
		{name: "blocking drains", old: conf(registryTOML("quay.io", mirror("m1", "digest-only"))), new: conf(registryTOML("quay.io", "blocked = true", mirror("m1", "digest-only"))),
			want: []string{"quay.io: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "unblocking drains, though a reload is enough", old: conf(registryTOML("quay.io", "blocked = true")), new: conf(registryTOML("quay.io")),
			want: []string{"quay.io: drain-and-reload-crio/reload-crio"}},
		{name: "unchanged does not fire", old: conf(registryTOML("quay.io", "blocked = true")), new: conf(registryTOML("quay.io", "blocked = true", "insecure = true"))},
	})
}

func TestInsecureChanged(t *testing.T) {
	runRuleTable(t, "insecure-changed", []ruleCase{
		{name: "turning insecure on drains, though a reload is enough", old: conf(registryTOML("reg.lab")), new: conf(registryTOML("reg.lab", "insecure = true")),
			want: []string{"reg.lab: drain-and-reload-crio/reload-crio"}},
		{name: "turning insecure off drains", old: conf(registryTOML("reg.lab", "insecure = true")), new: conf(registryTOML("reg.lab")),
			want: []string{"reg.lab: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a mirror's own insecure flag is not this rule's", old: conf(registryTOML("q.io", mirror("m", "digest-only"))), new: conf(registryTOML("q.io", mirror("m", "digest-only", "insecure = true")))},
	})
}

func TestMirrorByDigestOnlyChanged(t *testing.T) {
	runRuleTable(t, "mirror-by-digest-only-changed", []ruleCase{
		{name: "turning the legacy flag on only reloads, since the daemon does not compare it", old: conf(registryTOML("q.io", mirror("m", ""))), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))),
			want: []string{"q.io: reload-crio/reload-crio"}},
		{name: "turning the legacy flag off only reloads, since the daemon does not compare it", old: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))), new: conf(registryTOML("q.io", mirror("m", ""))),
			want: []string{"q.io: reload-crio/reload-crio"}},
		{name: "the flag kept on does not fire", old: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""))), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m", ""), mirror("m2", "")))},
	})
}

func TestMirrorRemoved(t *testing.T) {
	runRuleTable(t, "mirror-removed", []ruleCase{
		{name: "a removed digest-only mirror drains", old: conf(registryTOML("q.io", mirror("m1", "digest-only"), mirror("m2", "digest-only"))), new: conf(registryTOML("q.io", mirror("m2", "digest-only"))),
			want: []string{"q.io m1: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a moved mirror is not removed", old: conf(registryTOML("q.io", mirror("m1", "digest-only"), mirror("m2", "digest-only"))), new: conf(registryTOML("q.io", mirror("m2", "digest-only"), mirror("m1", "digest-only")))},
		{name: "mirrors of a removed entry are the registry-removed rule's", old: conf(registryTOML("q.io", mirror("m1", "digest-only"))), new: conf()},
	})
}

func TestMirrorAdded(t *testing.T) {
	runRuleTable(t, "mirror-added", []ruleCase{
		{name: "a digest-only mirror reloads", old: conf(registryTOML("q.io", mirror("m1", "digest-only"))), new: conf(registryTOML("q.io", mirror("m1", "digest-only"), mirror("m2", "digest-only"))),
			want: []string{"q.io m2: reload-crio/reload-crio"}},
		{name: "a tag-only mirror drains", old: conf(registryTOML("q.io", mirror("m1", "digest-only"))), new: conf(registryTOML("q.io", mirror("m1", "digest-only"), mirror("m2", "tag-only"))),
			want: []string{"q.io m2: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "an all mirror drains", old: conf(registryTOML("q.io")), new: conf(registryTOML("q.io", mirror("m2", "all"))),
			want: []string{"q.io m2: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "a mirror under the legacy flag reloads", old: conf(registryTOML("q.io", "mirror-by-digest-only = true")), new: conf(registryTOML("q.io", "mirror-by-digest-only = true", mirror("m2", ""))),
			want: []string{"q.io m2: reload-crio/reload-crio"}},
	})
}

func TestPullFromMirrorChanged(t *testing.T) {
	one := func(pullFrom string) []byte { return conf(registryTOML("q.io", mirror("m", pullFrom))) }
	runRuleTable(t, "pull-from-mirror-changed", []ruleCase{
		{name: "tag-only becoming digest-only reloads", old: one("tag-only"), new: one("digest-only"), want: []string{"q.io m: reload-crio/reload-crio"}},
		{name: "all becoming digest-only reloads", old: one("all"), new: one("digest-only"), want: []string{"q.io m: reload-crio/reload-crio"}},
		{name: "digest-only becoming tag-only drains", old: one("digest-only"), new: one("tag-only"), want: []string{"q.io m: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "digest-only becoming all drains", old: one("digest-only"), new: one("all"), want: []string{"q.io m: drain-and-reload-crio/drain-and-reload-crio"}},
		{name: "unset becoming all drains, though they mean the same", old: one(""), new: one("all"), want: []string{"q.io m: drain-and-reload-crio/reload-crio"}},
		{name: "unchanged does not fire", old: one("tag-only"), new: one("tag-only")},
	})
}

func TestMirrorsReordered(t *testing.T) {
	runRuleTable(t, "mirrors-reordered", []ruleCase{
		{name: "swapped mirrors reload", old: conf(registryTOML("q.io", mirror("a", "digest-only"), mirror("b", "digest-only"))), new: conf(registryTOML("q.io", mirror("b", "digest-only"), mirror("a", "digest-only"))),
			want: []string{"q.io: reload-crio/reload-crio"}},
		{name: "a mirror inserted in front keeps the order of the others", old: conf(registryTOML("q.io", mirror("a", "digest-only"), mirror("b", "digest-only"))), new: conf(registryTOML("q.io", mirror("c", "digest-only"), mirror("a", "digest-only"), mirror("b", "digest-only")))},
	})
}

func TestMirrorInsecureChanged(t *testing.T) {
	runRuleTable(t, "mirror-insecure-changed", []ruleCase{
		{name: "a mirror turned insecure reloads", old: conf(registryTOML("q.io", mirror("m", "digest-only"))), new: conf(registryTOML("q.io", mirror("m", "digest-only", "insecure = true"))),
			want: []string{"q.io m: reload-crio/reload-crio"}},
		{name: "a mirror turned secure reloads", old: conf(registryTOML("q.io", mirror("m", "digest-only", "insecure = true"))), new: conf(registryTOML("q.io", mirror("m", "digest-only"))),
			want: []string{"q.io m: reload-crio/reload-crio"}},
	})
}

func TestPolicyJSONChanged(t *testing.T) {
	blocked := []byte(`{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"quay.io":[{"type":"reject"}]}}}`)
	cases := []struct {
		name     string
		old, new []byte
		want     []string
	}{
		{name: "a new policy reloads", old: nil, new: blocked, want: []string{": reload-crio/reload-crio"}},
		{name: "a policy back to the base reloads", old: blocked, new: nil, want: []string{": reload-crio/reload-crio"}},
		{name: "the same policy does not fire", old: blocked, new: blocked},
		{name: "the base policy written out differently needs nothing", old: nil,
			new:  []byte(`{"transports":{"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}},"default":[{"type":"insecureAcceptAnything"}]}`),
			want: []string{": reload-crio/none"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefReasons(reasonsOf(classify(t, onNode(nodefiles.PolicyJSON, tc.old), onNode(nodefiles.PolicyJSON, tc.new)), "policy-json-changed"))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSearchDropInChanged(t *testing.T) {
	dropIn := func(hosts ...string) []byte { return []byte(search(hosts...) + "short-name-mode = \"\"\n") }
	cases := []struct {
		name     string
		old, new nodefiles.Files
		want     []string
	}{
		{name: "a new drop-in appending to the list reboots, though a reload is enough",
			old: nil, new: onNode(nodefiles.SearchRegistries, dropIn("registry.access.redhat.com", "docker.io", "quay.io")),
			want: []string{": reboot/reload-crio"}},
		{name: "a new drop-in replacing the list reboots, though a drain is enough",
			old: nil, new: onNode(nodefiles.SearchRegistries, dropIn("quay.io")),
			want: []string{": reboot/drain-and-reload-crio"}},
		{name: "a removed drop-in reboots, though a drain is enough when the list shrinks",
			old: onNode(nodefiles.SearchRegistries, dropIn("registry.access.redhat.com", "docker.io", "quay.io")), new: nil,
			want: []string{": reboot/drain-and-reload-crio"}},
		{name: "a drop-in whose list is appended reboots, though a reload is enough",
			old: onNode(nodefiles.SearchRegistries, dropIn("quay.io")), new: onNode(nodefiles.SearchRegistries, dropIn("quay.io", "docker.io")),
			want: []string{": reboot/reload-crio"}},
		{name: "a drop-in rewritten with the same list reboots, though nothing is needed",
			old: onNode(nodefiles.SearchRegistries, dropIn("quay.io")), new: onNode(nodefiles.SearchRegistries, []byte(`unqualified-search-registries = ['quay.io']`)),
			want: []string{": reboot/none"}},
		{name: "a drop-in that changes more than the list reboots",
			old: onNode(nodefiles.SearchRegistries, dropIn("quay.io")), new: onNode(nodefiles.SearchRegistries, []byte(search("quay.io", "docker.io")+"short-name-mode = \"enforcing\"\n")),
			want: []string{": reboot/reboot"}},
		{name: "an unchanged drop-in does not fire",
			old: onNode(nodefiles.SearchRegistries, dropIn("quay.io")), new: onNode(nodefiles.SearchRegistries, dropIn("quay.io"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefReasons(reasonsOf(classify(t, tc.old, tc.new), "search-drop-in-changed"))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
