package nodeaction

import (
	"slices"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// TestClassify covers the situations MCO distinguishes, end to end: the action a node takes,
// the minimal safe action, and which rules fired.
func TestClassify(t *testing.T) {
	digest := func(loc string) string { return mirror(loc, "digest-only") }
	quay := conf(registryTOML("quay.io", digest("m1.local")))
	cases := []struct {
		name        string
		old, new    nodefiles.Files
		action      Action
		minimal     Action
		rules       []string
		safeMention string
	}{
		{name: "nothing changed", old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, quay), action: none, minimal: none},
		{name: "search list appended reloads",
			old: onNode(nodefiles.RegistriesConf, conf(search("a"))), new: onNode(nodefiles.RegistriesConf, conf(search("a", "b"))),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "search-list-appended"}},
		{name: "search list reordered drains",
			old: onNode(nodefiles.RegistriesConf, conf(search("a", "b"))), new: onNode(nodefiles.RegistriesConf, conf(search("b", "a"))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "search-list-reordered"}},
		{name: "search list shrunk drains",
			old: onNode(nodefiles.RegistriesConf, conf(search("a", "b"))), new: onNode(nodefiles.RegistriesConf, conf(search("a"))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "search-list-shrunk"}},
		{name: "registry added with digest-only mirrors reloads",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local")), registryTOML("docker.io", digest("m2.local")))),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "registry-added", "registry-added"}},
		{name: "registry added with tag-only mirrors drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local")), registryTOML("docker.io", mirror("m2.local", "tag-only")))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-added", "registry-added"}},
		{name: "registry added with all mirrors drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local")), registryTOML("docker.io", mirror("m2.local", "all")))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-added", "registry-added"}},
		{name: "registry removed drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: nil,
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "registry-removed"}},
		{name: "digest-only mirror added reloads",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local"), digest("m2.local")))),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "mirror-added"}},
		{name: "tag-only mirror added drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local"), mirror("t.local", "tag-only")))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-added"}},
		{name: "mirror removed drains",
			old: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local"), digest("m2.local")))), new: onNode(nodefiles.RegistriesConf, quay),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "mirror-removed"}},
		{name: "blocked turned on drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", "blocked = true", digest("m1.local")))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "blocked-changed"}},
		{name: "insecure turned on drains, though a reload is enough",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", "insecure = true", digest("m1.local")))),
			action: drainAndReloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "insecure-changed"}, safeMention: "TLS verification"},
		{name: "prefix changed drains",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", `prefix = "quay.io"`, digest("m1.local")))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "prefix-changed"}},
		{name: "location changed drains",
			old: onNode(nodefiles.RegistriesConf, conf(registryTOML("a.io", `prefix = "quay.io"`))), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("b.io", `prefix = "quay.io"`))),
			action: drainAndReloadCRIO, minimal: drainAndReloadCRIO, rules: []string{"registries-conf-changed", "location-changed"}},
		{name: "legacy mirror-by-digest-only turned on only reloads",
			old: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", mirror("m1.local", "")))), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", "mirror-by-digest-only = true", mirror("m1.local", "")))),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "mirror-by-digest-only-changed"}},
		{name: "legacy mirror-by-digest-only turned off only reloads",
			old: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", "mirror-by-digest-only = true", mirror("m1.local", "")))), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", mirror("m1.local", "")))),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "mirror-by-digest-only-changed"}},
		{name: "a new search drop-in reboots, though a drain is enough for a replaced list",
			old: nil, new: onNode(nodefiles.SearchRegistries, []byte(search("quay.io"))),
			action: reboot, minimal: drainAndReloadCRIO, rules: []string{"search-drop-in-changed"}, safeMention: "no reboot"},
		{name: "policy.json changed only reloads",
			old: nil, new: onNode(nodefiles.PolicyJSON, []byte(`{"default":[{"type":"reject"}]}`)),
			action: reloadCRIO, minimal: reloadCRIO, rules: []string{"policy-json-changed"}},
		{name: "the largest action of several files wins",
			old: onNode(nodefiles.RegistriesConf, quay), new: onNode(nodefiles.RegistriesConf, conf(registryTOML("quay.io", digest("m1.local"), digest("m2.local"))), nodefiles.PolicyJSON, []byte(`{"default":[{"type":"reject"}]}`), nodefiles.SearchRegistries, []byte(search("registry.access.redhat.com", "docker.io", "quay.io"))),
			action: reboot, minimal: reloadCRIO, rules: []string{"registries-conf-changed", "mirror-added", "policy-json-changed", "search-drop-in-changed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := classify(t, tc.old, tc.new)
			var rules, safe []string
			for _, r := range res.Reasons {
				rules = append(rules, r.Rule)
				safe = append(safe, r.Safe)
			}
			if res.Action.String() != tc.action.String() || res.Minimal.String() != tc.minimal.String() || !slices.Equal(rules, tc.rules) {
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
		old, new nodefiles.Files
		want     string
	}{
		{name: "registries.conf", old: nil, new: onNode(nodefiles.RegistriesConf, []byte("[[registry]\n")), want: "new /etc/containers/registries.conf: not a registries.conf"},
		{name: "policy.json", old: onNode(nodefiles.PolicyJSON, []byte("{")), new: nil, want: "old /etc/containers/policy.json: not JSON"},
		{name: "drop-in", old: nil, new: onNode(nodefiles.SearchRegistries, []byte("x = ")), want: "new /etc/containers/registries.conf.d/01-image-searchRegistries.conf"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Classify(tc.old, tc.new, DefaultPolicy(), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReasonString(t *testing.T) {
	r := Reason{Rule: "mirror-added", File: nodefiles.RegistriesConf, Entry: "quay.io", Mirror: "m.local", Message: "added: tag-only", Action: drainAndReloadCRIO}
	want := `registries.conf [[registry]] "quay.io" mirror "m.local": added: tag-only (mirror-added: drain-and-reload-crio)`
	if got := r.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDiff(t *testing.T) {
	old := onNode(nodefiles.RegistriesConf, conf(search("a"),
		registryTOML("quay.io", mirror("m1", "digest-only"), mirror("m2", "digest-only")),
		registryTOML("docker.io", mirror("d1", "digest-only"))))
	new := onNode(nodefiles.RegistriesConf, conf(search("a", "b"),
		registryTOML("quay.io", "blocked = true", mirror("m2", "digest-only"), mirror("m1", "all"), mirror("m3", "tag-only")),
		registryTOML("reg.lab", "insecure = true")), nodefiles.PolicyJSON, []byte(`{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"quay.io":[{"type":"reject"}]},"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}`), nodefiles.SearchRegistries, []byte(search("quay.io")))
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
		`registries.conf [[registry]] "quay.io" mirror "m1": changed: pull-from-mirror "digest-only" -> "all"`,
		`registries.conf [[registry]] "quay.io" mirror "m3": added: tag-only`,
		`registries.conf [[registry]] "quay.io": changed: mirror order [m1, m2] -> [m2, m1]`,
		`policy.json: added: transports.docker "quay.io": [reject]`,
		`registries.conf.d/01-image-searchRegistries.conf: added: unqualified-search-registries [quay.io]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDiffOfAReformattedFileSaysFormattingOnly(t *testing.T) {
	changes, err := Diff(onNode(nodefiles.RegistriesConf, []byte(`unqualified-search-registries = ["a"]`)), onNode(nodefiles.RegistriesConf, []byte("unqualified-search-registries = [ 'a' ]\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "formatting only") {
		t.Errorf("got %v", changes)
	}
}

// TestCredentialProviderFilesRestartTheKubelet pins MCO's default node disruption policies for the credential
// provider files (docs/semantics.md §10.6): a provider file restarts the kubelet only, the kubelet drop-in is a
// daemon-reload and a kubelet restart; neither drains, reboots or reloads CRI-O.
func TestCredentialProviderFilesRestartTheKubelet(t *testing.T) {
	provider := nodefiles.CredentialProviderDir + "/generic-credential-provider.yaml"
	restartKubelet := Action{Steps: []Step{{Kind: StepRestart, Service: kubeletService}}}
	reloadAndRestart := Action{Steps: []Step{{Kind: StepDaemonReload}, {Kind: StepRestart, Service: kubeletService}}}
	for _, tc := range []struct {
		name     string
		old, new nodefiles.Files
		want     Action
	}{
		{"a provider file changed", onNode(provider, []byte("a: 1\n")), onNode(provider, []byte("a: 2\n")), restartKubelet},
		{"a cloud provider file written over the base one", nil, onNode(nodefiles.CredentialProviderDir+"/ecr-credential-provider.yaml", []byte("b\n")), restartKubelet},
		{"the drop-in added", nil, onNode(nodefiles.KubeletCredentialProviderDropIn, []byte("[Service]\n")), reloadAndRestart},
		// Files in path order, as the daemon appends their actions: the restart after the daemon-reload is the one
		// that reads the changed drop-in.
		{"both removed", onNode(provider, []byte("a\n"), nodefiles.KubeletCredentialProviderDropIn, []byte("[Service]\n")), nil,
			Action{Steps: []Step{{Kind: StepRestart, Service: kubeletService}, {Kind: StepDaemonReload}, {Kind: StepRestart, Service: kubeletService}}}},
		{"with a policy.json change the node also reloads CRI-O",
			onNode(provider, []byte("a\n")), onNode(provider, []byte("b\n"), nodefiles.PolicyJSON, []byte(`{"default":[{"type":"reject"}]}`)),
			Action{Steps: []Step{{Kind: StepReload, Service: crioService}, {Kind: StepRestart, Service: kubeletService}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := classify(t, tc.old, tc.new)
			if res.Action.String() != tc.want.String() {
				t.Errorf("action %s, want %s; reasons %v", res.Action, tc.want, res.Reasons)
			}
		})
	}
}
