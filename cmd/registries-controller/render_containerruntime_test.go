package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// The offline contract of issue 21 §2: for each pool a ContainerRuntimeConfig selects (a built-in pool by MCO's
// labels, a custom pool by its own), OUT/99-<pool>-generated-containerruntime.yaml with the role label and MCO's
// Ignition files, and the same files under ROOT/<pool>/; for a pool none selects, neither.
func TestRenderOfContainerRuntimeConfigsWritesTheSelectedPoolsOnly(t *testing.T) {
	out, root, stdout := runRender(t, "../../examples/containerruntime")
	want := map[string][]string{
		"worker": {containerruntime.StorageConf, containerruntime.LogLevelDropIn, containerruntime.PidsLimitDropIn, containerruntime.LogSizeMaxDropIn},
		"infra":  {containerruntime.DefaultRuntimeDropIn},
	}
	for pool, paths := range want {
		name := "99-" + pool + "-generated-containerruntime"
		data, err := os.ReadFile(filepath.Join(out, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var mc mcfgv1.MachineConfig
		if err := yaml.UnmarshalStrict(data, &mc); err != nil {
			t.Fatal(err)
		}
		if mc.Name != name || mc.Labels[mcfgv1.MachineConfigRoleLabelKey] != pool {
			t.Errorf("%s: name %q, labels %v", pool, mc.Name, mc.Labels)
		}
		cfg, err := machineconfigs.Decode(&mc)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Version != "3.5.0" || len(cfg.Attributes) > 0 || len(cfg.Files) != len(paths) {
			t.Fatalf("%s: Ignition %s, attributes %v, files %v", name, cfg.Version, cfg.Attributes, cfg.Files)
		}
		for i, p := range paths {
			if cfg.Files[i].Path != p {
				t.Errorf("%s: file %d is %s, want %s", name, i, cfg.Files[i].Path, p)
			}
			onNode, err := os.ReadFile(filepath.Join(root, pool, filepath.FromSlash(p)))
			if err != nil || string(onNode) != string(cfg.Files[i].Data) {
				t.Errorf("%s under the node root: %v, %q; the MachineConfig has %q", p, err, onNode, cfg.Files[i].Data)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(root, "worker", "etc", "containers", "storage.conf")); !strings.Contains(string(data), `size = "20G"`) {
		t.Errorf("worker storage.conf:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(out, "99-master-generated-containerruntime.yaml")); !os.IsNotExist(err) {
		t.Errorf("a MachineConfig for master, which no object selects: %v", err)
	}
	for _, p := range []string{"etc/containers/storage.conf", "etc/crio/crio.conf.d"} {
		if _, err := os.Stat(filepath.Join(root, "master", p)); !os.IsNotExist(err) {
			t.Errorf("master/%s written, though no object selects master: %v", p, err)
		}
	}
	if !strings.Contains(stdout, "read 2 ContainerRuntimeConfig, 3 MachineConfigPool") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// Without pools in the manifests (install manifests), master and worker are selected by MCO's labels; a second
// object on a pool is refused as MCO's bootstrap refuses it.
func TestRenderOfContainerRuntimeConfigsAtInstallTime(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "ctrcfg.yaml"), `apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata: {name: master-debug}
spec:
  machineConfigPoolSelector:
    matchLabels: {pools.operator.machineconfiguration.openshift.io/master: ""}
  containerRuntimeConfig: {logLevel: debug}
`)
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "99-master-generated-containerruntime.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// V19: the raw config of {logLevel: debug}, as MCO's bootstrap and its controller write it.
	if !strings.Contains(string(data), "source: data:text/plain;charset=utf-8;base64,W2NyaW9dCiAgW2NyaW8ucnVudGltZV0KICAgIGxvZ19sZXZlbCA9ICJkZWJ1ZyIK") {
		t.Errorf("MachineConfig:\n%s", data)
	}

	writeFile(t, filepath.Join(dir, "in", "second.yaml"), `apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata: {name: master-pids}
spec:
  machineConfigPoolSelector:
    matchLabels: {pools.operator.machineconfiguration.openshift.io/master: ""}
  containerRuntimeConfig: {pidsLimit: 4096}
`)
	out2 := filepath.Join(dir, "out2")
	_, stderr, code := runCLI(t, "render", "--manifests", filepath.Join(dir, "in"), "--output", out2)
	if code != 1 || !strings.Contains(stderr, `ContainerRuntimeConfig "master-pids": spec.machineConfigPoolSelector`) ||
		!strings.Contains(stderr, "error found multiple ContainerConfig targeting MachineConfigPool master") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// An object the API or MCO refuses, or whose selector does not parse: exit status 1, every problem named with the
// object, nothing written.
func TestRenderOfAnInvalidContainerRuntimeConfigWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in", "bad.yaml"), `apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata: {name: bad}
spec:
  machineConfigPoolSelector:
    matchExpressions: [{key: a, operator: Bogus}]
  containerRuntimeConfig:
    pidsLimit: 10
    overlaySize: 10Gi
---
apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata: {name: bad-path}
spec:
  containerRuntimeConfig:
    additionalLayerStores: [{path: relative/store}]
`)
	out, root := filepath.Join(dir, "out"), filepath.Join(dir, "root")
	renderRefuses(t, []string{"--manifests", filepath.Join(dir, "in"), "--output", out, "--node-root", root}, []string{
		`ContainerRuntimeConfig "bad": spec.machineConfigPoolSelector:`,
		`ContainerRuntimeConfig "bad": spec.containerRuntimeConfig.pidsLimit: "10": invalid PidsLimit 10`,
		`spec.containerRuntimeConfig.overlaySize: "10Gi": containers/storage refuses`,
		`write 10G`,
		// the CRD's rule, in the API server's words: the project's checks see only what passes the CRD
		`ContainerRuntimeConfig "bad-path": spec.containerRuntimeConfig.additionalLayerStores[0].path: Invalid value: "relative/store": path must be absolute`,
		"nothing written",
	}, out, root)
}
