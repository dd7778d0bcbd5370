package mcosim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/test/fixtures"
)

// poolSelecting returns the pool name selecting the MachineConfigs selector matches.
func poolSelecting(name string, selector *metav1.LabelSelector) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec:       mcfgv1.MachineConfigPoolSpec{MachineConfigSelector: selector},
	}
}

func roleSelector(role string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: role}}
}

// pathsAndContents returns the files mc writes as "path=contents", in its order.
func pathsAndContents(t *testing.T, mc *mcfgv1.MachineConfig) []string {
	t.Helper()
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

func TestTheRenderedConfigMergesTheSelectedConfigsInNameOrder(t *testing.T) {
	all := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/containers/registries.conf", "mirrors"), fixtures.File("/etc/b", "late b")),
		fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", "base a"), fixtures.File("/etc/b", "base b"), fixtures.File("/etc/containers/registries.conf", "base")),
		fixtures.MachineConfig("50-master", "master", fixtures.File("/etc/master", "m")),
		fixtures.MachineConfig("rendered-worker-0123", "worker", fixtures.File("/etc/rendered", "r")),
	}
	mc, source, err := renderPool(poolSelecting("worker", roleSelector("worker")), all, "v1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/etc/a=base a", "/etc/b=late b", "/etc/containers/registries.conf=mirrors"}
	if got := pathsAndContents(t, mc); !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	var names []string
	for _, ref := range source {
		names = append(names, ref.Kind+"/"+ref.Name)
	}
	if want := []string{"MachineConfig/00-worker", "MachineConfig/99-worker-generated-registries"}; !reflect.DeepEqual(names, want) {
		t.Errorf("source = %q, want %q", names, want)
	}
	if !strings.HasPrefix(mc.Name, "rendered-worker-") || len(mc.Name) != len("rendered-worker-")+32 {
		t.Errorf("name = %q, want rendered-worker-<32 hex digits>", mc.Name)
	}
	if got := mc.Annotations[machineconfigs.VersionAnnotation]; got != "v1" {
		t.Errorf("version annotation = %q, want v1", got)
	}
	if refs := mc.OwnerReferences; len(refs) != 1 || refs[0].Kind != "MachineConfigPool" || refs[0].Name != "worker" || !*refs[0].Controller {
		t.Errorf("owner references = %+v, want the pool worker as controller", refs)
	}
	var ign map[string]any
	if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil || ign["ignition"].(map[string]any)["version"] != "3.5.0" {
		t.Errorf("spec.config is not Ignition 3.5.0: %s (%v)", mc.Spec.Config.Raw, err)
	}
}

func TestACustomPoolsOwnConfigReplacesTheWorkerOneAsInMCO(t *testing.T) {
	all := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("99-worker-generated-containerruntime", "worker", fixtures.File("/etc/crio/crio.conf.d/01-ctrcfg-logLevel", "worker")),
		fixtures.MachineConfig("99-infra-generated-containerruntime", "infra", fixtures.File("/etc/crio/crio.conf.d/01-ctrcfg-logLevel", "infra")),
	}
	workerOrInfra := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"},
	}}}
	mc, _, err := renderPool(poolSelecting("infra", workerOrInfra), all, "v1")
	if err != nil {
		t.Fatal(err)
	}
	// MCO merges the worker role's MachineConfigs first: the infra one wins, though it sorts first by name.
	if got, want := pathsAndContents(t, mc), []string{"/etc/crio/crio.conf.d/01-ctrcfg-logLevel=infra"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
}

func TestTheRenderedNameChangesWithTheContentsOnly(t *testing.T) {
	p := poolSelecting("worker", roleSelector("worker"))
	render := func(contents string) string {
		mc, _, err := renderPool(p, []*mcfgv1.MachineConfig{fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", contents))}, "v1")
		if err != nil {
			t.Fatal(err)
		}
		return mc.Name
	}
	if a1, a2, b := render("a"), render("a"), render("b"); a1 != a2 || a1 == b {
		t.Errorf("names for a, a, b = %s, %s, %s: want the same for the same contents only", a1, a2, b)
	}
}

func TestAPoolSelectsConfigsByItsLabelSelector(t *testing.T) {
	all := []*mcfgv1.MachineConfig{
		fixtures.MachineConfig("00-worker", "worker"), fixtures.MachineConfig("50-infra", "infra"), fixtures.MachineConfig("00-master", "master"),
		fixtures.MachineConfig("rendered-infra-0123", "infra"),
	}
	workerOrInfra := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"},
	}}}
	tests := []struct {
		name     string
		selector *metav1.LabelSelector
		want     []string
	}{
		{"matchLabels selects one role", roleSelector("master"), []string{"00-master"}},
		{"matchExpressions select several roles", workerOrInfra, []string{"00-worker", "50-infra"}},
		{"an empty selector selects every config but the rendered ones", &metav1.LabelSelector{}, []string{"00-master", "00-worker", "50-infra"}},
		{"no selector selects nothing", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectConfigs(poolSelecting("p", tc.selector), all)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, mc := range got {
				names = append(names, mc.Name)
			}
			if !reflect.DeepEqual(names, tc.want) {
				t.Errorf("selected %q, want %q", names, tc.want)
			}
		})
	}
}

func TestAPoolNothingSelectsCannotBeRendered(t *testing.T) {
	_, _, err := renderPool(poolSelecting("infra", roleSelector("infra")), []*mcfgv1.MachineConfig{fixtures.MachineConfig("00-worker", "worker")}, "v1")
	want := "no MachineConfigs found matching selector machineconfiguration.openshift.io/role=infra"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// MCO's render controller refuses a pool while one of its MachineConfigs names another build than its own in the
// generated-by-controller-version annotation; no value, or an empty one, is accepted.
func TestAPoolWithAMachineConfigOfAnotherBuildCannotBeRendered(t *testing.T) {
	pool := poolSelecting("worker", roleSelector("worker"))
	annotated := func(name, version string) *mcfgv1.MachineConfig {
		mc := fixtures.MachineConfig(name, "worker", fixtures.File("/etc/"+name, name))
		mc.Annotations = map[string]string{machineconfigs.VersionAnnotation: version}
		return mc
	}
	base := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", "a"))
	for _, tc := range []struct {
		name    string
		configs []*mcfgv1.MachineConfig
		want    string
	}{
		{"none annotated", []*mcfgv1.MachineConfig{base}, ""},
		{"annotated with the render controller's own build", []*mcfgv1.MachineConfig{base, annotated("97-worker-generated-credentialproviderconfig", "v1")}, ""},
		{"annotated empty", []*mcfgv1.MachineConfig{base, annotated("99-worker-generated-registries", "")}, ""},
		{"annotated with another build", []*mcfgv1.MachineConfig{base, annotated("99-worker-generated-containerruntime", "v1"), annotated("99-worker-generated-registries", "v0.1.0-12-gabcdef0")},
			"ignoring MC 99-worker-generated-registries generated by older version v0.1.0-12-gabcdef0 (my version: v1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc, _, err := renderPool(pool, tc.configs, "v1")
			switch {
			case tc.want == "" && (err != nil || mc == nil):
				t.Errorf("not rendered: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestThePaddingMakesTheRenderedMachineConfigAsLargeAsAsked(t *testing.T) {
	pool := poolSelecting("worker", &metav1.LabelSelector{MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: "worker"}})
	base, err := baseConfig("worker")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{177884, 243503} {
		padding, err := paddingConfig(pool, base, want)
		if err != nil {
			t.Fatal(err)
		}
		rendered, _, err := renderPool(pool, []*mcfgv1.MachineConfig{base, padding}, DefaultControllerVersion)
		if err != nil {
			t.Fatal(err)
		}
		rendered.APIVersion, rendered.Kind = mcfgv1.SchemeGroupVersion.String(), "MachineConfig"
		data, err := json.Marshal(rendered)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(data); got < want-200 || got > want+200 {
			t.Errorf("rendered MachineConfig of %d bytes, want %d give or take the name's and annotation's length", got, want)
		}
	}
}
