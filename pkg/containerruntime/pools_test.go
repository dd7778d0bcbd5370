package containerruntime_test

import (
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/containerruntime"
)

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// ctrcfg returns a ContainerRuntimeConfig created at t0 plus age seconds, selecting pools by their
// pools.operator.machineconfiguration.openshift.io/<name> label, with the suffix annotation when suffix is not nil.
func ctrcfg(name string, age int, suffix *string, pools ...string) *mcfgv1.ContainerRuntimeConfig {
	crc := &mcfgv1.ContainerRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Spec: mcfgv1.ContainerRuntimeConfigSpec{ContainerRuntimeConfig: &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug"}}}
	if len(pools) > 0 {
		crc.Spec.MachineConfigPoolSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "pool", Operator: metav1.LabelSelectorOpIn, Values: pools}}}
	}
	if suffix != nil {
		crc.Annotations = map[string]string{containerruntime.SuffixAnnotation: *suffix}
	}
	return crc
}

func pool(name string) *mcfgv1.MachineConfigPool {
	return &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": name}}}
}

func s(v string) *string { return &v }

func assign(crcs []*mcfgv1.ContainerRuntimeConfig, installTime bool) containerruntime.Assignment {
	pools := []*mcfgv1.MachineConfigPool{pool("master"), pool("worker"), pool("infra")}
	selected := map[string][]string{}
	for _, c := range crcs {
		selected[c.Name] = containerruntime.SelectedPools(c, pools)
	}
	return containerruntime.AssignSuffixes(crcs, selected, installTime)
}

func TestSelectedPools(t *testing.T) {
	pools := []*mcfgv1.MachineConfigPool{pool("worker"), pool("master"), pool("infra")}
	for _, tc := range []struct {
		name string
		crc  *mcfgv1.ContainerRuntimeConfig
		want string
	}{
		{"a selector matching two pools selects both, sorted", ctrcfg("a", 0, nil, "worker", "infra"), "infra,worker"},
		{"a nil selector selects none (V17)", ctrcfg("a", 0, nil), ""},
		{"an empty selector selects none, as in MCO (V17)", func() *mcfgv1.ContainerRuntimeConfig {
			c := ctrcfg("a", 0, nil)
			c.Spec.MachineConfigPoolSelector = &metav1.LabelSelector{}
			return c
		}(), ""},
		{"a selector matching nothing selects none (V17)", ctrcfg("a", 0, nil, "gpu"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(containerruntime.SelectedPools(tc.crc, pools), ","); got != tc.want {
				t.Errorf("pools %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSuffixes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		crcs     []*mcfgv1.ContainerRuntimeConfig
		install  bool
		want     map[string]int
		annotate map[string]string
		problem  string
	}{
		{"one object per pool: no suffix (MCO's TestCtrruntimeConfigMultiCreate)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, nil, "master"), ctrcfg("b", 0, nil, "worker")},
			false, map[string]int{"a": 0, "b": 0}, map[string]string{"a": "", "b": ""}, ""},
		{"a second object on a pool gets 1 (V14)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, s(""), "worker"), ctrcfg("b", 1, nil, "worker")},
			false, map[string]int{"a": 0, "b": 1}, map[string]string{"b": "1"}, ""},
		{"two new objects on a pool: the older gets none, the newer 1",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("b", 1, nil, "worker"), ctrcfg("a", 0, nil, "worker")},
			false, map[string]int{"a": 0, "b": 1}, map[string]string{"a": "", "b": "1"}, ""},
		{"a suffix never changes: a new object gets the highest plus 1, also when a lower one is free",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("b", 1, s("1"), "worker"), ctrcfg("c", 2, nil, "worker")},
			false, map[string]int{"b": 1, "c": 2}, map[string]string{"c": "2"}, ""},
		{"an object selecting two pools gets one suffix on both, and takes over no other object's MachineConfig (MCO's defect)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, s(""), "worker"), ctrcfg("b", 1, nil, "master", "worker")},
			false, map[string]int{"a": 0, "b": 1}, map[string]string{"b": "1"}, ""},
		{"an object from before the annotation keeps the suffix its finalizers name",
			[]*mcfgv1.ContainerRuntimeConfig{func() *mcfgv1.ContainerRuntimeConfig {
				c := ctrcfg("old", 0, nil, "worker")
				c.Finalizers = []string{"99-worker-generated-containerruntime-2", "not-an-mc"}
				return c
			}(), ctrcfg("new", 1, s("3"), "worker")},
			false, map[string]int{"old": 2, "new": 3}, map[string]string{"old": "2"}, ""},
		{"another object holds 9: no suffix left (V15)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, s("9"), "worker"), ctrcfg("b", 1, nil, "worker")},
			false, map[string]int{"a": 9}, map[string]string{}, `ContainerRuntimeConfig "b": metadata.annotations[machineconfiguration.openshift.io/mc-name-suffix]: "": could not get ctrcfg key: max number of supported ctrcfgs (10) has been reached. Please delete old ctrcfgs before retrying`},
		{"an annotation that is no number",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, s("x"), "worker")},
			false, map[string]int{}, map[string]string{}, `could not get ctrcfg key: error converting x to int: strconv.Atoi: parsing "x": invalid syntax`},
		{"two objects with one suffix on a shared pool: the older keeps it",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, s(""), "worker"), ctrcfg("b", 1, s(""), "master", "worker")},
			false, map[string]int{"a": 0}, map[string]string{}, `ContainerRuntimeConfig "b": metadata.annotations[machineconfiguration.openshift.io/mc-name-suffix]: "": MachineConfig 99-worker-generated-containerruntime of pool worker is ContainerRuntimeConfig "a"'s`},
		{"an object selecting no pool gets nothing",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, nil)},
			false, map[string]int{}, map[string]string{}, ""},
		{"install time: no suffix, and the annotation is not written (V19)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, nil, "master"), ctrcfg("b", 0, nil, "worker")},
			true, map[string]int{"a": 0, "b": 0}, map[string]string{}, ""},
		{"install time: two objects on one pool are refused, as MCO's bootstrap does (V19)",
			[]*mcfgv1.ContainerRuntimeConfig{ctrcfg("a", 0, nil, "master"), ctrcfg("b", 1, nil, "master")},
			true, map[string]int{"a": 0}, map[string]string{}, "error found multiple ContainerConfig targeting MachineConfigPool master. Please apply only one ContainerConfig manifest for each pool during installation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := assign(tc.crcs, tc.install)
			if len(a.Suffix) != len(tc.want) {
				t.Errorf("suffixes %v, want %v", a.Suffix, tc.want)
			}
			for name, n := range tc.want {
				if got, ok := a.Suffix[name]; !ok || got != n {
					t.Errorf("%s: suffix %d (%v), want %d", name, got, ok, n)
				}
			}
			if len(a.Annotate) != len(tc.annotate) {
				t.Errorf("annotations to write %v, want %v", a.Annotate, tc.annotate)
			}
			for name, v := range tc.annotate {
				if got, ok := a.Annotate[name]; !ok || got != v {
					t.Errorf("%s: annotation %q (%v), want %q", name, got, ok, v)
				}
			}
			switch {
			case tc.problem == "" && len(a.Problems) > 0:
				t.Errorf("problems %v", a.Problems)
			case tc.problem != "" && (len(a.Problems) != 1 || !strings.Contains(a.Problems[0].String(), tc.problem)):
				t.Errorf("problems %v, want one saying %q", a.Problems, tc.problem)
			}
		})
	}
}
