package nodeaction

import (
	"strings"
	"testing"

	opv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Policy fixtures: filePolicy("/etc/x", reloadAction("crio.service")).

func filePolicy(p string, actions ...opv1.NodeDisruptionPolicyStatusAction) opv1.NodeDisruptionPolicyStatusFile {
	return opv1.NodeDisruptionPolicyStatusFile{Path: p, Actions: actions}
}

func reloadAction(service string) opv1.NodeDisruptionPolicyStatusAction {
	return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: opv1.NodeDisruptionPolicyServiceName(service)}}
}

func restartAction(service string) opv1.NodeDisruptionPolicyStatusAction {
	return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: opv1.NodeDisruptionPolicyServiceName(service)}}
}

func typedAction(t opv1.NodeDisruptionPolicyStatusActionType) opv1.NodeDisruptionPolicyStatusAction {
	return opv1.NodeDisruptionPolicyStatusAction{Type: t}
}

// withFiles returns the default policy with entries added or replaced, as an admin's spec would.
func withFiles(files ...opv1.NodeDisruptionPolicyStatusFile) Policy {
	p := DefaultPolicy()
	for _, f := range files {
		replaced := false
		for i := range p.Files {
			if p.Files[i].Path == f.Path {
				p.Files[i], replaced = f, true
			}
		}
		if !replaced {
			p.Files = append(p.Files, f)
		}
	}
	return p
}

func TestPolicyLookupFindsThePathOrItsClosestDirectory(t *testing.T) {
	p := Policy{Files: []opv1.NodeDisruptionPolicyStatusFile{
		filePolicy("/etc", typedAction(opv1.DrainStatusAction)),
		filePolicy("/etc/crio", typedAction(opv1.NoneStatusAction)),
		filePolicy("/etc/crio/pol", typedAction(opv1.RebootStatusAction)),
		filePolicy("/etc/crio/policies/", reloadAction("crio.service")),
		filePolicy("/etc/containers/policy.json", restartAction("crio.service")),
		filePolicy("/etc/containers/policy.json", typedAction(opv1.RebootStatusAction)),
	}}
	cases := []struct {
		name, path, want string
	}{
		{name: "a file's own entry wins over its directory's", path: "/etc/containers/policy.json", want: "/etc/containers/policy.json"},
		{name: "the closest enclosing directory wins, written with a trailing slash or not", path: "/etc/crio/policies/team-a.json", want: "/etc/crio/policies/"},
		{name: "a partial directory name is no match", path: "/etc/crio/polic.json", want: "/etc/crio"},
		{name: "a directory covers every depth", path: "/etc/containers/registries.d/sigstore-registries.yaml", want: "/etc"},
		{name: "nothing covers a path outside every entry", path: "/var/lib/x", want: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := p.lookup(tc.path)
			if got.Path != tc.want || ok != (tc.want != "") {
				t.Errorf("lookup(%q) = %q, %t; want %q", tc.path, got.Path, ok, tc.want)
			}
		})
	}
	if got, _ := p.lookup("/etc/containers/policy.json"); got.Actions[0].Type != opv1.RestartStatusAction {
		t.Errorf("of two entries for one path the first must win, got %v", got.Actions)
	}
}

func TestDefaultPolicyForTheRenderedFiles(t *testing.T) {
	cases := []struct {
		path string
		want Action
	}{
		{nodefiles.RegistriesConf, reloadCRIO},
		{nodefiles.PolicyJSON, reloadCRIO},
		{nodefiles.SigstoreRegistries, reloadCRIO},
		{nodefiles.NamespacePolicy("team-a"), reloadCRIO},
		{nodefiles.SearchRegistries, reboot},
		{"/etc/containers/registries.conf.d/99-other.conf", reboot},
		{"/etc/containers/mounts.conf", reboot},
		{userCABundlePath, Action{Steps: []Step{{StepRestart, updateCATrustService}, {StepRestart, crioService}}}},
		{kubeletAuthFile, none},
	}
	for _, tc := range cases {
		if got, _ := DefaultPolicy().actionFor(tc.path, true); got.String() != tc.want.String() {
			t.Errorf("%s: %s, want %s", tc.path, got, tc.want)
		}
	}
	if got, _ := DefaultPolicy().actionFor(nodefiles.RegistriesConf, false); got.String() != drainAndReloadCRIO.String() {
		t.Errorf("Special with an unsafe registries.conf change: %s, want a drain", got)
	}
}

func machineConfiguration(generation, observed int64, spec []opv1.NodeDisruptionPolicySpecFile, status []opv1.NodeDisruptionPolicyStatusFile) *opv1.MachineConfiguration {
	mc := &opv1.MachineConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cluster", Generation: generation}}
	mc.Spec.NodeDisruptionPolicy.Files = spec
	mc.Status.ObservedGeneration = observed
	mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files = status
	return mc
}

func TestPolicyFromMachineConfiguration(t *testing.T) {
	restartCRIO := opv1.NodeDisruptionPolicySpecFile{Path: nodefiles.RegistriesConf, Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.RestartSpecAction, Restart: &opv1.RestartService{ServiceName: "crio.service"}}}}
	dropIns := opv1.NodeDisruptionPolicySpecFile{Path: nodefiles.DropInDir, Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.ReloadSpecAction, Reload: &opv1.ReloadService{ServiceName: "crio.service"}}}}
	onlyReboot := []opv1.NodeDisruptionPolicyStatusFile{filePolicy("/", typedAction(opv1.RebootStatusAction))}
	cases := []struct {
		name       string
		mc         *opv1.MachineConfiguration
		wantSource string
		want       map[string]string // node path -> action
	}{
		{name: "the status is used when present and up to date",
			mc:         machineConfiguration(2, 2, []opv1.NodeDisruptionPolicySpecFile{restartCRIO}, []opv1.NodeDisruptionPolicyStatusFile{filePolicy(nodefiles.RegistriesConf, typedAction(opv1.DrainStatusAction))}),
			wantSource: "status.nodeDisruptionPolicyStatus.clusterPolicies",
			want:       map[string]string{nodefiles.RegistriesConf: "drain", nodefiles.PolicyJSON: "reboot"}},
		{name: "without a status the spec is merged over the defaults, an admin's entry replacing the default",
			mc:         machineConfiguration(1, 0, []opv1.NodeDisruptionPolicySpecFile{restartCRIO, dropIns}, nil),
			wantSource: "spec.nodeDisruptionPolicy over the defaults",
			want:       map[string]string{nodefiles.RegistriesConf: "restart-crio", nodefiles.SearchRegistries: "reload-crio", nodefiles.PolicyJSON: "reload-crio"}},
		{name: "a status older than the spec is replaced by the spec merged over the defaults",
			mc:         machineConfiguration(3, 2, []opv1.NodeDisruptionPolicySpecFile{dropIns}, onlyReboot),
			wantSource: "spec.nodeDisruptionPolicy over the defaults",
			want:       map[string]string{nodefiles.SearchRegistries: "reload-crio", nodefiles.RegistriesConf: "reload-crio"}},
		{name: "an empty object gives the defaults",
			mc:         machineConfiguration(0, 0, nil, nil),
			wantSource: "spec.nodeDisruptionPolicy over the defaults",
			want:       map[string]string{nodefiles.SearchRegistries: "reboot", nodefiles.NamespacePolicy("a"): "reload-crio"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PolicyFromMachineConfiguration(tc.mc)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(p.Source, tc.wantSource) {
				t.Errorf("source %q, want it to mention %q", p.Source, tc.wantSource)
			}
			for path, want := range tc.want {
				if got, _ := p.actionFor(path, true); got.String() != want {
					t.Errorf("%s: %s, want %s", path, got, want)
				}
			}
		})
	}
}

func TestPolicyFromMachineConfigurationMergesInPlace(t *testing.T) {
	spec := []opv1.NodeDisruptionPolicySpecFile{
		{Path: "/etc/new.conf", Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.NoneSpecAction}}},
		{Path: nodefiles.PolicyJSON, Actions: []opv1.NodeDisruptionPolicySpecAction{{Type: opv1.DrainSpecAction}}},
	}
	p, err := PolicyFromMachineConfiguration(machineConfiguration(1, 1, spec, nil))
	if err != nil {
		t.Fatal(err)
	}
	defaults := DefaultPolicy().Files
	if len(p.Files) != len(defaults)+1 || p.Files[len(p.Files)-1].Path != "/etc/new.conf" {
		t.Fatalf("want the defaults then the admin's new entry, got %v", p.Files)
	}
	for i, f := range defaults {
		if p.Files[i].Path != f.Path {
			t.Errorf("entry %d: %s, want %s in the defaults' place", i, p.Files[i].Path, f.Path)
		}
	}
	if got, _ := p.actionFor(nodefiles.PolicyJSON, true); got.String() != "drain" {
		t.Errorf("policy.json: %s, want the admin's drain", got)
	}
}

func TestPolicyRejectsActionsTheDaemonCannotRun(t *testing.T) {
	mc := machineConfiguration(1, 1, nil, []opv1.NodeDisruptionPolicyStatusFile{
		filePolicy("/etc/a", opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction}),
		filePolicy("/etc/b", typedAction("Explode")),
	})
	_, err := PolicyFromMachineConfiguration(mc)
	for _, want := range []string{`files[0] (/etc/a) actions[0]: type Reload needs reload.serviceName`, `files[1] (/etc/b) actions[0]: unknown type "Explode"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy([]byte(`apiVersion: operator.openshift.io/v1
kind: MachineConfiguration
metadata:
  name: cluster
spec:
  nodeDisruptionPolicy:
    files:
    - path: /etc/containers/registries.conf.d
      actions:
      - type: Reload
        reload:
          serviceName: crio.service
`))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.actionFor(nodefiles.SearchRegistries, true); got.String() != "reload-crio" {
		t.Errorf("search drop-in: %s, want reload-crio", got)
	}
	if _, err := ParsePolicy([]byte("kind: MachineConfig\n")); err == nil || !strings.Contains(err.Error(), `kind "MachineConfig" is not MachineConfiguration`) {
		t.Errorf("another kind: %v", err)
	}
	if _, err := ParsePolicy([]byte("kind: [")); err == nil || !strings.Contains(err.Error(), "not a MachineConfiguration") {
		t.Errorf("not YAML: %v", err)
	}
}

// TestClassifyFollowsThePolicy classifies the same changes under custom node disruption policies.
func TestClassifyFollowsThePolicy(t *testing.T) {
	quay := conf(registryTOML("quay.io", mirror("m1", "digest-only")))
	removed := conf()
	dropIn := onNode(nodefiles.SearchRegistries, search("quay.io"))
	cases := []struct {
		name     string
		policy   Policy
		old, new nodefiles.Files
		want     string
		minimal  string
	}{
		{name: "registries.conf mapped to a CRI-O restart restarts CRI-O without a drain, whatever changed",
			policy: withFiles(filePolicy(nodefiles.RegistriesConf, restartAction("crio.service"))),
			old:    withConf(quay), new: withConf(removed), want: "restart-crio", minimal: "reload-crio-and-restart-crio"},
		{name: "the drop-in directory given a reload no longer reboots",
			policy: withFiles(filePolicy(nodefiles.DropInDir, reloadAction("crio.service"))),
			old:    nil, new: dropIn, want: "reload-crio", minimal: "reload-crio"},
		{name: "registries.conf mapped to a reboot reboots, though a drain is enough",
			policy: withFiles(filePolicy(nodefiles.RegistriesConf, typedAction(opv1.RebootStatusAction))),
			old:    withConf(quay), new: withConf(removed), want: "reboot", minimal: "drain-and-reload-crio"},
		{name: "registries.conf mapped to None only writes the file",
			policy: withFiles(filePolicy(nodefiles.RegistriesConf, typedAction(opv1.NoneStatusAction))),
			old:    withConf(quay), new: withConf(removed), want: "none", minimal: "none"},
		{name: "policy.json mapped to a drain and a reload drains",
			policy: withFiles(filePolicy(nodefiles.PolicyJSON, typedAction(opv1.DrainStatusAction), reloadAction("crio.service"))),
			old:    nil, new: onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}]}`), want: "drain-and-reload-crio", minimal: "reload-crio"},
		{name: "the steps of several files run once each, in the order of the files",
			policy: withFiles(filePolicy(nodefiles.PolicyJSON, typedAction(opv1.DaemonReloadStatusAction), reloadAction("crio.service")), filePolicy(nodefiles.SigstoreRegistries, reloadAction("crio.service"), restartAction("other.service"))),
			old:    nil, new: onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}]}`, nodefiles.SigstoreRegistries, "docker: {}\n"),
			want: "daemon-reload-and-reload-crio-and-restart-other", minimal: "reload-crio"},
		{name: "a policy without entries reboots for every file",
			policy: Policy{},
			old:    nil, new: onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}]}`), want: "reboot", minimal: "reload-crio"},
		{name: "Special on another path drains when the registries.conf change is not safe",
			policy: Policy{Files: []opv1.NodeDisruptionPolicyStatusFile{filePolicy(nodefiles.RegistriesConf, restartAction("crio.service")), filePolicy(nodefiles.PolicyJSON, typedAction(opv1.SpecialStatusAction))}},
			old:    withConf(quay), new: onNode(nodefiles.RegistriesConf, removed, nodefiles.PolicyJSON, `{"default":[{"type":"reject"}]}`),
			want: "drain-and-restart-crio-and-reload-crio", minimal: "reload-crio-and-restart-crio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Classify(tc.old, tc.new, tc.policy, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Action.String() != tc.want || res.Minimal.String() != tc.minimal {
				t.Errorf("got %s/%s, want %s/%s; reasons:\n%v", res.Action, res.Minimal, tc.want, tc.minimal, res.Reasons)
			}
			if len(res.Changed) == 0 {
				t.Error("no changed file reported")
			}
		})
	}
}

// TestSingleNodeClustersNeverDrain: docs/semantics.md §8.4.
func TestSingleNodeClustersNeverDrain(t *testing.T) {
	quay := conf(registryTOML("quay.io", mirror("m1", "digest-only")))
	cases := []struct {
		name     string
		old, new nodefiles.Files
		want     string
		minimal  string
	}{
		{name: "a change that drains elsewhere only reloads CRI-O",
			old: withConf(quay), new: withConf(conf()), want: "reload-crio", minimal: "reload-crio"},
		{name: "a reboot happens without a drain",
			old: nil, new: onNode(nodefiles.SearchRegistries, search("quay.io")), want: "reboot-without-drain", minimal: "reload-crio"},
		{name: "a safe change is the same as elsewhere",
			old: withConf(quay), new: withConf(conf(registryTOML("quay.io", mirror("m1", "digest-only"), mirror("m2", "digest-only")))), want: "reload-crio", minimal: "reload-crio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Classify(tc.old, tc.new, DefaultPolicy(), Options{SingleNode: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Action.String() != tc.want || res.Minimal.String() != tc.minimal {
				t.Errorf("got %s/%s, want %s/%s", res.Action, res.Minimal, tc.want, tc.minimal)
			}
			for _, r := range res.Reasons {
				if r.Action.Drain || r.Minimal.Drain {
					t.Errorf("a reason drains: %v", r)
				}
			}
		})
	}
}
