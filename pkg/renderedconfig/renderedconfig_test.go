package renderedconfig_test

import (
	"encoding/json"
	"strings"
	"testing"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
	"github.com/openshift/registries-controller/test/fixtures"
)

// mergedFiles returns path=contents of every file of cfg, in its order.
func mergedFiles(t *testing.T, cfg ign3types.Config) []string {
	t.Helper()
	mc := &mcfgv1.MachineConfig{Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: mustEncode(t, cfg)}}}
	files, err := machineconfigs.DecodeFiles(mc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, f.Path+"="+string(f.Data))
	}
	return out
}

func mustEncode(t *testing.T, cfg ign3types.Config) []byte {
	t.Helper()
	raw, err := renderedconfig.Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestMergeLaterNamesWinAndTheWorkerRoleComesFirst(t *testing.T) {
	configs := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-infra-x", "infra", fixtures.File("/etc/a", "infra 99")),
		fixtures.MachineConfig("50-worker-x", "worker", fixtures.File("/etc/a", "worker 50"), fixtures.File("/etc/b", "worker 50")),
		fixtures.MachineConfig("00-infra-x", "infra", fixtures.File("/etc/b", "infra 00")),
		fixtures.MachineConfig("99-worker-x", "worker", fixtures.File("/etc/a", "worker 99"), fixtures.File("/etc/c", "worker 99")),
	}
	merged, err := renderedconfig.Merge(configs, nil)
	if err != nil {
		t.Fatal(err)
	}
	// worker: 50 then 99; then infra: 00 then 99. /etc/a last written by 99-infra-x, /etc/b by 00-infra-x.
	got := strings.Join(mergedFiles(t, merged), " ")
	want := "/etc/a=infra 99 /etc/b=infra 00 /etc/c=worker 99"
	if got != want {
		t.Errorf("merged files:\n got %s\nwant %s", got, want)
	}
}

func TestMergeTranslatesOlderIgnitionVersions(t *testing.T) {
	old := &mcfgv1.MachineConfig{}
	old.Name = "00-worker"
	old.Labels = map[string]string{mcfgv1.MachineConfigRoleLabelKey: "worker"}
	old.Spec.Config.Raw = []byte(`{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/old","contents":{"source":"data:,old"},"mode":420}]}}`)
	merged, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{old, fixtures.MachineConfig("01-worker", "worker", fixtures.File("/etc/new", "new"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(mergedFiles(t, merged), " "), "/etc/old=old /etc/new=new"; got != want {
		t.Errorf("merged files: got %s, want %s", got, want)
	}
	if merged.Ignition.Version != "3.5.0" {
		t.Errorf("merged version %s, want 3.5.0", merged.Ignition.Version)
	}
}

func TestMergeNamesTheMachineConfigIgnitionRefuses(t *testing.T) {
	bad := &mcfgv1.MachineConfig{}
	bad.Name = "50-worker-broken"
	bad.Spec.Config.Raw = []byte(`{"ignition":{"version":"9.9.9"}}`)
	_, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{bad}, renderedconfig.NewCache())
	if err == nil || !strings.Contains(err.Error(), "MachineConfig 50-worker-broken") {
		t.Fatalf("error %v, want one naming MachineConfig 50-worker-broken", err)
	}
}

func TestMergeLeavesCachedConfigsAsTheyWere(t *testing.T) {
	cache := renderedconfig.NewCache()
	a := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", "a"))
	a.ResourceVersion = "1"
	b := fixtures.MachineConfig("01-worker", "worker", fixtures.File("/etc/a", "b"))
	b.ResourceVersion = "2"
	first, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{a, b}, cache)
	if err != nil {
		t.Fatal(err)
	}
	onlyA, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{a}, cache)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(mergedFiles(t, onlyA), " "); got != "/etc/a=a" {
		t.Errorf("a merged alone after a merge with b: %s, want /etc/a=a", got)
	}
	again, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{a, b}, cache)
	if err != nil {
		t.Fatal(err)
	}
	if string(mustEncode(t, first)) != string(mustEncode(t, again)) {
		t.Error("the same merge from the cache differs")
	}
}

func TestCacheParsesEachVersionOnceAndSweepDropsOldOnes(t *testing.T) {
	cache := renderedconfig.NewCache()
	a := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", "a"))
	a.ResourceVersion = "1"
	desired := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/r", "r"))
	sameFiles := fixtures.MachineConfig("99-master-generated-registries", "master", fixtures.File("/etc/r", "r"))
	for range 3 {
		if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{a, desired, sameFiles}, cache); err != nil {
			t.Fatal(err)
		}
	}
	// a's config and the two unwritten ones' config, which is the same.
	if got := cache.Len(); got != 2 {
		t.Errorf("cache holds %d configs, want 2", got)
	}
	a2 := a.DeepCopy()
	a2.ResourceVersion = "2"
	cache.Sweep()
	if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{a2}, cache); err != nil {
		t.Fatal(err)
	}
	cache.Sweep()
	if got := cache.Len(); got != 1 {
		t.Errorf("after a round that used only a's new version, the cache holds %d configs, want 1", got)
	}
}

func TestCacheParsesAConfigOnceWhateverHoldsIt(t *testing.T) {
	cache := renderedconfig.NewCache()
	desired := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/r", "r"))
	if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{desired}, cache); err != nil {
		t.Fatal(err)
	}
	// Written: the same config, now with a resourceVersion; and the master pool's, with the same files.
	written := desired.DeepCopy()
	written.ResourceVersion, written.UID = "7", "u1"
	master := fixtures.MachineConfig("99-master-generated-registries", "master", fixtures.File("/etc/r", "r"))
	if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{written, master}, cache); err != nil {
		t.Fatal(err)
	}
	if got := cache.Len(); got != 1 {
		t.Errorf("the cache holds %d configs, want the one config all three hold", got)
	}
}

func TestCacheNamesEachMachineConfigThatHoldsABadConfig(t *testing.T) {
	cache := renderedconfig.NewCache()
	for _, name := range []string{"50-worker-a", "50-worker-b"} {
		bad := &mcfgv1.MachineConfig{}
		bad.Name = name
		bad.Spec.Config.Raw = []byte(`{"ignition":{"version":"9.9.9"}}`)
		if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{bad}, cache); err == nil || !strings.Contains(err.Error(), "MachineConfig "+name+":") {
			t.Errorf("error %v, want one naming MachineConfig %s", err, name)
		}
	}
}

func TestSelect(t *testing.T) {
	worker := fixtures.Pool("worker", true)
	all := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("00-worker", "worker"),
		fixtures.MachineConfig("00-master", "master"),
		fixtures.MachineConfig("rendered-worker-0123", "worker"),
	}
	got, err := renderedconfig.Select(worker, all)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "00-worker" {
		t.Errorf("selected %v, want only 00-worker (rendered ones left out)", configNames(got))
	}
	none := worker.DeepCopy()
	none.Spec.MachineConfigSelector = nil
	if got, _ := renderedconfig.Select(none, all); len(got) != 0 {
		t.Errorf("a nil selector selected %v, want nothing", configNames(got))
	}
}

func configNames(mcs []*mcfgv1.MachineConfig) []string {
	var out []string
	for _, mc := range mcs {
		out = append(out, mc.Name)
	}
	return out
}

func TestAfterCarriesOutThePlan(t *testing.T) {
	kept := fixtures.MachineConfig("00-worker", "worker")
	old := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/r", "old"))
	gone := fixtures.MachineConfig("97-worker-generated-credentialproviderconfig", "worker")
	updated := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/r", "new"))
	created := fixtures.MachineConfig("99-master-generated-registries", "master")
	actions := []machineconfigs.Action{
		{Op: machineconfigs.Update, Have: old, Want: &machineconfigs.Desired{Object: updated}},
		{Op: machineconfigs.Create, Want: &machineconfigs.Desired{Object: created}},
		{Op: machineconfigs.Delete, Have: gone},
	}
	got := renderedconfig.After([]*mcfgv1.MachineConfig{kept, old, gone}, actions)
	if len(got) != 3 || got[0] != kept || got[1] != updated || got[2] != created {
		t.Errorf("after the plan: %v, want 00-worker, the updated 99-worker-generated-registries, 99-master-generated-registries", configNames(got))
	}
}

func TestMeasureIsTheRenderedMachineConfigsJSON(t *testing.T) {
	pool := fixtures.Pool("worker", true)
	base := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/base", strings.Repeat("b", 3000)))
	ours := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", 9000)))
	rendered := fixtures.MachineConfig("rendered-worker-0123456789abcdef0123456789abcdef", "")
	rendered.Labels = nil
	rendered.Annotations = map[string]string{machineconfigs.VersionAnnotation: "4.21.0"}
	rendered.Spec.KernelArguments = []string{"systemd.unified_cgroup_hierarchy=1"}
	cached := rendered.DeepCopy() // as a cache holds it, with what the API server adds
	cached.UID, cached.ResourceVersion, cached.Generation = "0b7a3c5e", "4711", 1
	cached.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "machine-config-controller", Operation: metav1.ManagedFieldsOperationUpdate}}

	size, err := renderedconfig.Measure(renderedconfig.Pool{Pool: pool, Rendered: cached}, []*mcfgv1.MachineConfig{ours, base, cached}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The oracle: the rendered MachineConfig written out by hand, with both files in the merge's order.
	file := func(path string, n int, c byte) ign3types.File {
		data := strings.Repeat(string(c), n)
		return ign3types.File{Node: ign3types.Node{Path: path, Overwrite: ptr.To(true)}, FileEmbedded1: ign3types.FileEmbedded1{
			Mode: ptr.To(0o644), Contents: ign3types.Resource{Compression: ptr.To(""), Source: ptr.To(dataURL(data))}}}
	}
	cfg := ign3types.Config{Ignition: ign3types.Ignition{Version: "3.5.0"}}
	cfg.Storage.Files = []ign3types.File{file("/etc/base", 3000, 'b'), file("/etc/containers/registries.conf", 9000, 'r')}
	want := rendered.DeepCopy()
	want.APIVersion, want.Kind = "machineconfiguration.openshift.io/v1", "MachineConfig"
	var err2 error
	if want.Spec.Config.Raw, err2 = json.Marshal(cfg); err2 != nil {
		t.Fatal(err2)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if size.Bytes != len(wantJSON) {
		t.Errorf("measured %d bytes, the rendered MachineConfig is %d", size.Bytes, len(wantJSON))
	}
	if size.Pool != "worker" || len(size.Configs) != 2 || size.Configs[0].Name != ours.Name {
		t.Errorf("size %+v, want pool worker with %s the largest of two MachineConfigs", size, ours.Name)
	}
	if got := size.Largest(func(name string) bool { return name == ours.Name }); !strings.HasPrefix(got, "00-worker (") {
		t.Errorf("largest others: %q, want 00-worker only", got)
	}
}

func dataURL(data string) string {
	mc := fixtures.MachineConfig("x", "worker", nodefiles.File{Path: "/x", Data: []byte(data)})
	var cfg ign3types.Config
	if err := json.Unmarshal(mc.Spec.Config.Raw, &cfg); err != nil {
		panic(err)
	}
	return *cfg.Storage.Files[0].Contents.Source
}

func TestEstimateAddsWhatOurFilesTakeInTheMerge(t *testing.T) {
	small, err := renderedconfig.Estimate("master", 243503, []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-master-generated-registries", "master", fixtures.File("/etc/containers/registries.conf", "x"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	large, err := renderedconfig.Estimate("master", 243503, []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-master-generated-registries", "master", fixtures.File("/etc/containers/registries.conf", "x"+strings.Repeat("y", 30000)))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if small.Bytes <= 243503 || small.Bytes > 243503+300 {
		t.Errorf("one small file: %d bytes, want a little over the base 243,503", small.Bytes)
	}
	// base64: every byte of a file is four thirds of a byte in the rendered MachineConfig.
	if got := large.Bytes - small.Bytes; got != 40000 {
		t.Errorf("30,000 bytes more of registries.conf add %d bytes, want 40,000", got)
	}
}

func TestSizeThresholds(t *testing.T) {
	for _, tc := range []struct {
		bytes      int
		near, over bool
	}{
		{1258290, false, false}, // 79.99%
		{1258292, true, false},  // 80%
		{1572864, true, false},
		{1572865, true, true},
	} {
		s := renderedconfig.Size{Pool: "worker", Bytes: tc.bytes}
		if s.Near() != tc.near || s.Over() != tc.over {
			t.Errorf("%d bytes: near %v over %v, want %v %v", tc.bytes, s.Near(), s.Over(), tc.near, tc.over)
		}
	}
	want := "the rendered MachineConfig of pool worker is 1,304,116 bytes, 82% of the 1,572,864 bytes (1.5 MiB) the machine-config-operator accepts"
	if got := (renderedconfig.Size{Pool: "worker", Bytes: 1304116}).String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestMeasureChangeRefusesOnlyWhatLeavesThePoolOverAndNoSmaller(t *testing.T) {
	pool := fixtures.Pool("worker", true)
	other := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/base", strings.Repeat("b", 900000)))
	have := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", 100)))
	for _, tc := range []struct {
		name         string
		want         int
		over, refuse bool
	}{
		{"a change that stays under the limit is written", 100000, false, false},
		{"a change that crosses the limit is refused", 400000, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := fixtures.MachineConfig(have.Name, "worker", fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", tc.want)))
			actions := []machineconfigs.Action{{Op: machineconfigs.Update, Have: have, Want: &machineconfigs.Desired{Object: want}}}
			size, err := renderedconfig.MeasureChange(renderedconfig.Pool{Pool: pool}, []*mcfgv1.MachineConfig{other, have}, actions, nil)
			if err != nil {
				t.Fatal(err)
			}
			if size.Over() != tc.over || size.Refused() != tc.refuse {
				t.Errorf("%s: over %v refused %v, want %v %v", size, size.Over(), size.Refused(), tc.over, tc.refuse)
			}
		})
	}
	t.Run("a change that shrinks a pool already over the limit is written", func(t *testing.T) {
		big := fixtures.MachineConfig(have.Name, "worker", fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", 600000)))
		smaller := fixtures.MachineConfig(have.Name, "worker", fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", 500000)))
		actions := []machineconfigs.Action{{Op: machineconfigs.Update, Have: big, Want: &machineconfigs.Desired{Object: smaller}}}
		size, err := renderedconfig.MeasureChange(renderedconfig.Pool{Pool: pool}, []*mcfgv1.MachineConfig{other, big}, actions, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !size.Over() || size.Refused() || size.Before <= size.Bytes {
			t.Errorf("%s (before %d): over %v refused %v, want over, not refused, smaller than before", size, size.Before, size.Over(), size.Refused())
		}
	})
}

func TestMeasuringADesiredMachineConfigParsesNothingAndMeasuresTheSame(t *testing.T) {
	pool := fixtures.Pool("worker", true)
	base := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/base", strings.Repeat("b", 3000)))
	files := nodefiles.Files{fixtures.File("/etc/containers/registries.conf", strings.Repeat("r", 9000)), fixtures.File("/etc/containers/policy.json", "{}")}
	desired := machineconfigs.NewDesired(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries},
		files, fixtures.MachineConfig("x", "worker", files...).Spec.Config.Raw, nil)
	create := []machineconfigs.Action{{Op: machineconfigs.Create, Want: desired}}

	parsed, errs := renderedconfig.MeasurePools([]*mcfgv1.MachineConfigPool{pool}, []*mcfgv1.MachineConfig{base}, create, nil)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	cache := renderedconfig.NewCache()
	built, errs := renderedconfig.MeasurePools([]*mcfgv1.MachineConfigPool{pool}, []*mcfgv1.MachineConfig{base}, create, cache)
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	if built[0].Bytes != parsed[0].Bytes || built[0].Bytes < 12000 {
		t.Errorf("with the desired config added to the cache: %d bytes; parsed: %d", built[0].Bytes, parsed[0].Bytes)
	}
	// The proof it was not parsed: a config Ignition refuses under the same sum is never read again.
	if got := cache.Len(); got != 2 {
		t.Errorf("the cache holds %d configs, want the base's and the desired one's", got)
	}
	unparsable := desired.Object.DeepCopy()
	unparsable.Spec.Config.Raw = []byte("not Ignition")
	bad := machineconfigs.NewDesired(desired.Key, files, unparsable.Spec.Config.Raw, nil)
	cache.AddDesired(bad)
	if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{bad.Object}, cache); err != nil {
		t.Errorf("a desired MachineConfig added to the cache was parsed: %v", err)
	}
	if _, err := renderedconfig.Merge([]*mcfgv1.MachineConfig{bad.Object}, nil); err == nil {
		t.Error("without the cache the same config parses: the check above proves nothing")
	}
}
