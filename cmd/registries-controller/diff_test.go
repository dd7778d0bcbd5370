package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line in-process as main does and returns stdout, stderr and the exit status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	code := exitStatus(root.Execute(), &stderr)
	return stdout.String(), stderr.String(), code
}

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const teamIDMS = `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
spec:
  imageDigestMirrors:
  - source: quay.io/team
    mirrors:
    - mirror.local/team
`

// renderTree renders manifests (YAML) with the render command and returns the MachineConfig directory and the
// node root.
func renderTree(t *testing.T, manifests string) (string, string) {
	t.Helper()
	in := writeFile(t, filepath.Join(t.TempDir(), "in", "objects.yaml"), manifests)
	out, nodes, _ := runRender(t, filepath.Dir(in))
	return out, nodes
}

func TestDiffOfTwoRendersPrintsChangesActionAndMinimal(t *testing.T) {
	_, oldNodes := renderTree(t, teamIDMS)
	_, newNodes := renderTree(t, teamIDMS+`    - backup.local/team
---
apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    containerRuntimeSearchRegistries:
    - registry.access.redhat.com
    - docker.io
    - quay.io
`)
	stdout, stderr, code := runCLI(t, "diff", oldNodes, newNodes)
	if code != diffExitChanged {
		t.Fatalf("status %d, want %d; stderr: %s", code, diffExitChanged, stderr)
	}
	for _, pool := range []string{"master", "worker"} {
		if !strings.Contains(stdout, "== pool "+pool+"\n") {
			t.Errorf("no section for pool %s:\n%s", pool, stdout)
		}
	}
	want := `changes:
  + registries.conf [[registry]] "quay.io/team" mirror "backup.local/team": digest-only
  + registries.conf.d/01-image-searchRegistries.conf: unqualified-search-registries [registry.access.redhat.com, docker.io, quay.io]
action: reboot (drain and reboot the node), as the machine-config daemon of MCO 4.13 and later (7ff337a) does
  registries.conf: contents changed; node disruption policy "/etc/containers/registries.conf": Special (registries-conf-changed: reload-crio)
  registries.conf [[registry]] "quay.io/team" mirror "backup.local/team": added: digest-only (mirror-added: reload-crio)
  registries.conf.d/01-image-searchRegistries.conf: added; no node disruption policy covers it, so the node reboots (search-drop-in-changed: reboot)
minimal safe action: reload-crio (reload CRI-O, no drain); advisory, nodes still drain and reboot the node
  reload-crio is enough for registries.conf.d/01-image-searchRegistries.conf: CRI-O's reload re-reads registries.conf.d together with registries.conf, so no reboot is needed; the drop-in changes only the search list, and the effective list is only appended to [registry.access.redhat.com, docker.io] -> [registry.access.redhat.com, docker.io, quay.io]
`
	if !strings.Contains(stdout, "== pool worker\n"+want) {
		t.Errorf("worker section differs; got\n%s\nwant\n%s", stdout, want)
	}
}

func TestDiffOfTheSameConfigurationInEveryFormIsNoChange(t *testing.T) {
	mcs, nodes := renderTree(t, teamIDMS)
	worker := filepath.Join(nodes, "worker")
	for _, pair := range [][2]string{
		{nodes, nodes},
		{filepath.Join(mcs, "99-worker-generated-registries.yaml"), worker},
		{filepath.Join(worker, "etc", "containers", "registries.conf"), filepath.Join(mcs, "99-master-generated-registries.yaml")},
		{filepath.Join(worker, "etc", "containers", "registries.conf"), nodes},
	} {
		stdout, stderr, code := runCLI(t, "diff", pair[0], pair[1])
		if code != diffExitSame || !strings.Contains(stdout, "no change") {
			t.Errorf("diff %s %s: status %d, stdout %q, stderr %q", pair[0], pair[1], code, stdout, stderr)
		}
	}
}

func TestDiffAgainstAnEmptyRenderComparesWithTheBaseFiles(t *testing.T) {
	_, nodes := renderTree(t, teamIDMS)
	stdout, _, code := runCLI(t, "diff", t.TempDir(), filepath.Join(nodes, "worker"))
	if code != diffExitChanged {
		t.Fatalf("status %d", code)
	}
	for _, want := range []string{
		`+ registries.conf [[registry]] "quay.io/team": prefix "", location "quay.io/team", 1 mirror(s)`,
		`registries.conf [[registry]] "quay.io/team" mirror "mirror.local/team": added: digest-only (registry-added: reload-crio)`,
		"action: reload-crio (reload CRI-O, no drain), as the machine-config daemon of MCO 4.13 and later (7ff337a) does",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in\n%s", want, stdout)
		}
	}
}

func TestDiffReportsBadInputOnOneLine(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "good.conf"), `unqualified-search-registries = ["quay.io"]`)
	cases := map[string]struct {
		old, want string
	}{
		"missing file":         {old: filepath.Join(dir, "missing"), want: "no such file or directory"},
		"not TOML":             {old: writeFile(t, filepath.Join(dir, "bad.conf"), "[[registry]\n"), want: "neither a MachineConfig nor a registries.conf"},
		"another kind":         {old: writeFile(t, filepath.Join(dir, "idms.yaml"), teamIDMS), want: "kind ImageDigestMirrorSet is neither a MachineConfig nor a registries.conf"},
		"bad MachineConfig":    {old: writeFile(t, filepath.Join(dir, "mc.yaml"), "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: x\nspec:\n  config: {storage: {files: [{path: /etc/containers/registries.conf, contents: {source: 'nope'}}]}}\n"), want: "not a data URL"},
		"unparsable node file": {old: filepath.Dir(filepath.Dir(filepath.Dir(writeFile(t, filepath.Join(dir, "pool", "etc", "containers", "policy.json"), "{")))), want: "old /etc/containers/policy.json: not JSON"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "diff", tc.old, good)
			if code != diffExitError {
				t.Errorf("status %d, want %d", code, diffExitError)
			}
			if stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "error: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("want one error line containing %q; stdout %q, stderr %q", tc.want, stdout, stderr)
			}
		})
	}
}

// searchImage sets a search list that replaces the default one: a new search drop-in.
const searchImage = `---
apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    containerRuntimeSearchRegistries:
    - quay.io
`

func TestDiffFollowsTheNodeDisruptionPolicy(t *testing.T) {
	// The mirror goes (registries.conf back to the base file: an entry removed) and a search drop-in comes.
	_, oldNodes := renderTree(t, teamIDMS)
	_, newNodes := renderTree(t, searchImage)
	dir := t.TempDir()
	statusPolicy := writeFile(t, filepath.Join(dir, "status.yaml"), `apiVersion: operator.openshift.io/v1
kind: MachineConfiguration
metadata:
  name: cluster
status:
  nodeDisruptionPolicyStatus:
    clusterPolicies:
      files:
      - path: /etc/containers/registries.conf
        actions:
        - type: Restart
          restart:
            serviceName: crio.service
      - path: /etc/containers/registries.conf.d
        actions:
        - type: Reload
          reload:
            serviceName: crio.service
`)
	specPolicy := writeFile(t, filepath.Join(dir, "spec.yaml"), `apiVersion: operator.openshift.io/v1
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
`)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{name: "without a policy the new search drop-in reboots",
			args: []string{"diff", oldNodes, newNodes},
			want: []string{"action: reboot (drain and reboot the node)"}},
		{name: "a status mapping registries.conf to a CRI-O restart and the drop-ins to a reload is followed",
			args: []string{"diff", "--node-disruption-policy", statusPolicy, oldNodes, newNodes},
			want: []string{
				`node disruption policies: MachineConfiguration "cluster" status.nodeDisruptionPolicyStatus.clusterPolicies`,
				"action: restart-crio-and-reload-crio (restart CRI-O, then reload CRI-O, no drain)",
				`registries.conf.d/01-image-searchRegistries.conf: added; node disruption policy "/etc/containers/registries.conf.d": Reload crio.service (search-drop-in-changed: reload-crio)`,
			}},
		{name: "a spec giving the drop-ins a reload is merged over the defaults, which drain for the removed entry",
			args: []string{"diff", "--node-disruption-policy", specPolicy, oldNodes, newNodes},
			want: []string{
				`node disruption policies: MachineConfiguration "cluster" spec.nodeDisruptionPolicy over the defaults`,
				"action: drain-and-reload-crio (drain the node and reload CRI-O)",
			}},
		{name: "a single-node cluster reboots without draining",
			args: []string{"diff", "--single-node", oldNodes, newNodes},
			want: []string{"action: reboot-without-drain (reboot the node without draining it)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.args...)
			if code != diffExitChanged {
				t.Fatalf("status %d, want %d; stderr: %s", code, diffExitChanged, stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(stdout, want) {
					t.Errorf("missing %q in\n%s", want, stdout)
				}
			}
		})
	}
}

func TestDiffRejectsABadNodeDisruptionPolicy(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, filepath.Join(dir, "a.conf"), `unqualified-search-registries = ["quay.io"]`)
	bad := writeFile(t, filepath.Join(dir, "mc.yaml"), "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\n")
	_, stderr, code := runCLI(t, "diff", "--node-disruption-policy", bad, conf, conf)
	if code != diffExitError || !strings.Contains(stderr, `mc.yaml: kind "MachineConfig" is not MachineConfiguration`) {
		t.Errorf("status %d, stderr %q", code, stderr)
	}
}

// TestDiffReadsTheSignatureFilesOfANodeRoot: a node root can hold registries.d files and namespace
// policies; both reload CRI-O by default, added or removed.
func TestDiffReadsTheSignatureFilesOfANodeRoot(t *testing.T) {
	_, nodes := renderTree(t, teamIDMS)
	worker := filepath.Join(nodes, "worker")
	signed := filepath.Join(t.TempDir(), "worker")
	if err := os.CopyFS(signed, os.DirFS(worker)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(signed, "etc", "containers", "registries.d", "sigstore-registries.yaml"), "docker:\n  quay.io/team:\n    use-sigstore-attachments: true\n")
	writeFile(t, filepath.Join(signed, "etc", "crio", "policies", "team-a.json"), `{"default":[{"type":"reject"}]}`)
	stdout, stderr, code := runCLI(t, "diff", signed, worker)
	if code != diffExitChanged {
		t.Fatalf("status %d; stderr %s", code, stderr)
	}
	for _, want := range []string{
		`- registries.d/sigstore-registries.yaml: docker "quay.io/team": use-sigstore-attachments true`,
		`- /etc/crio/policies/team-a.json: namespace "team-a": its pods use policy.json again`,
		"action: reload-crio (reload CRI-O, no drain)",
		`/etc/crio/policies/team-a.json: removed; node disruption policy "/etc/crio/policies": Reload crio.service (namespace-policy-changed: reload-crio)`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in\n%s", want, stdout)
		}
	}
}
