package registries_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/test/fixtures"
)

// BenchmarkOfflineRender compares, in the same run, what an admin waits for offline (issue 23 §5):
//
//	impl=ours-process   `registries-controller render --manifests DIR --output DIR`, the whole process: start,
//	                    reading and decoding the manifests, validation, the merge, every node file loaded back
//	                    with containers/image, the MachineConfigs of every built-in pool written
//	impl=mco            MCO's merge in this process, for each built-in pool (master, worker): the base
//	                    registries.conf decoded, EditRegistriesConfig, BurntSushi's encoding and the pool's
//	                    Ignition config; no process start, no manifest decoding, no file written, nothing
//	                    loaded back, all of which only favours MCO
//	impl=version        `registries-controller --version`: the process start alone (runtime, package
//	                    initialisation), the part of ours-process no input changes
//
// at a size that fits a pool's rendered MachineConfig: 2,500 sources with 2 or 3 mirrors each, 250 insecure and
// 250 blocked scopes (offlineInputs). The binary is $REGISTRIES_BENCH_BINARY, or built by the benchmark
// (renderBinary). docs/benchmarks.md has the command and the figures.
func BenchmarkOfflineRender(b *testing.B) {
	// 3,000 sources of this shape fitted our own MachineConfig's budget, but not a pool's rendered MachineConfig with
	// the default base of `render` (--rendered-base-bytes 243503, since the budget of issue 23 §1): 2,500 do.
	const n = 2500
	in := offlineInputs(b, n)
	dir := b.TempDir()
	manifests := filepath.Join(dir, "manifests")
	writeOfflineInputs(b, manifests, in)
	bin := renderBinary(b)
	run := func(b *testing.B, args ...string) {
		b.Helper()
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %v: %v: %s", bin, args, err, stderr.Bytes())
		}
	}
	b.Run(fmt.Sprintf("sources=%d/impl=ours-process", n), func(b *testing.B) {
		out := filepath.Join(dir, "out")
		for b.Loop() {
			if err := os.RemoveAll(out); err != nil {
				b.Fatal(err)
			}
			run(b, "render", "--manifests", manifests, "--output", out)
		}
		written, err := filepath.Glob(filepath.Join(out, "99-*-generated-registries.yaml"))
		if err != nil || len(written) < 2 {
			b.Fatalf("render wrote %v (%v), want the registries MachineConfig of every built-in pool", written, err)
		}
	})
	b.Run(fmt.Sprintf("sources=%d/impl=mco", n), func(b *testing.B) {
		for b.Loop() {
			for range []string{"master", "worker"} {
				conf, err := mcoEditBase(in)
				if err != nil {
					b.Fatal(err)
				}
				var buf bytes.Buffer
				if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
					b.Fatal(err)
				}
				if err := mcoMachineConfig(buf.Bytes()); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=version", func(b *testing.B) {
		for b.Loop() {
			run(b, "--version")
		}
	})
}

// renderBinary returns the binary BenchmarkOfflineRender runs: $REGISTRIES_BENCH_BINARY (make bench-controller
// gives the one it built), or one built here. Only the benchmark needs it: the package's tests need no binary, so
// it stays in the unit tier (hack/test-packages.sh).
func renderBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("REGISTRIES_BENCH_BINARY"); bin != "" {
		return bin
	}
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		b.Fatalf("finding the module: %v", err)
	}
	bin := filepath.Join(b.TempDir(), "registries-controller")
	build := exec.Command("go", "build", "-tags=containers_image_openpgp", "-o", bin, "./cmd/registries-controller")
	build.Dir = strings.TrimSpace(string(root))
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building the binary: %v: %s", err, out)
	}
	return bin
}

// offlineInputs returns benchInputs' configuration of n sources with the shape issue 23 §5 names: three entries in
// four without their disaster-recovery mirror (2 or 3 mirrors each, so that more fit the size budget), and n/10
// insecure and n/10 blocked scopes.
func offlineInputs(tb testing.TB, n int) *inputs.Inputs {
	base := benchInputs(tb, n)
	in := &inputs.Inputs{ClusterVersion: base.ClusterVersion.DeepCopy(), Image: base.Image.DeepCopy()}
	// twoOrThree is how many of an entry's mirrors to keep: two, but all three of every fourth entry (counted across
	// the three kinds, in the order below).
	entry := 0
	twoOrThree := func(mirrors int) int {
		entry++
		if entry%4 != 0 {
			return 2
		}
		return mirrors
	}
	in.ImageDigestMirrorSets = deepCopyEach(base.ImageDigestMirrorSets, func(o *configv1.ImageDigestMirrorSet) {
		for j := range o.Spec.ImageDigestMirrors {
			m := &o.Spec.ImageDigestMirrors[j]
			m.Mirrors = m.Mirrors[:twoOrThree(len(m.Mirrors))]
		}
	})
	in.ImageTagMirrorSets = deepCopyEach(base.ImageTagMirrorSets, func(o *configv1.ImageTagMirrorSet) {
		for j := range o.Spec.ImageTagMirrors {
			m := &o.Spec.ImageTagMirrors[j]
			m.Mirrors = m.Mirrors[:twoOrThree(len(m.Mirrors))]
		}
	})
	in.ImageContentSourcePolicies = deepCopyEach(base.ImageContentSourcePolicies, func(o *operatorv1alpha1.ImageContentSourcePolicy) {
		for j := range o.Spec.RepositoryDigestMirrors {
			m := &o.Spec.RepositoryDigestMirrors[j]
			m.Mirrors = m.Mirrors[:twoOrThree(len(m.Mirrors))]
		}
	})
	rs := fixtures.RegistrySources(in)
	for j := len(rs.InsecureRegistries); j < n/10; j++ {
		rs.InsecureRegistries = append(rs.InsecureRegistries, fmt.Sprintf("lab-%d.corp.example.com/team-%d", j, j%20))
	}
	for j := len(rs.BlockedRegistries); j < n/10; j++ {
		rs.BlockedRegistries = append(rs.BlockedRegistries, fmt.Sprintf("retired-%d.corp.example.com", j))
	}
	if _, err := registries.Merge(in); err != nil {
		tb.Fatalf("offline benchmark input of %d sources is invalid: %v", n, err)
	}
	return in
}

// deepCopyEach returns deep copies of objs, each changed by change: benchInputs' objects are shared, never changed.
func deepCopyEach[T interface{ DeepCopy() T }](objs []T, change func(T)) []T {
	var out []T
	for _, o := range objs {
		o = o.DeepCopy()
		change(o)
		out = append(out, o)
	}
	return out
}

// writeOfflineInputs writes in as the manifests an admin would give `render`: one multi-document YAML file.
func writeOfflineInputs(tb testing.TB, dir string, in *inputs.Inputs) {
	tb.Helper()
	var objs []any
	objs = append(objs, in.ClusterVersion, in.Image)
	for _, o := range in.ImageDigestMirrorSets {
		objs = append(objs, o)
	}
	for _, o := range in.ImageTagMirrorSets {
		objs = append(objs, o)
	}
	for _, o := range in.ImageContentSourcePolicies {
		objs = append(objs, o)
	}
	var buf bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			tb.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inputs.yaml"), buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}
