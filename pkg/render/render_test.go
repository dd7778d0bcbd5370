package render_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// opts are the render options of the tests: the production Checker, so every render is loaded back.
var opts = render.Options{Checker: registriesconf.NewChecker()}

func exampleInputs() *inputs.Inputs {
	return &inputs.Inputs{
		ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{
			fixtures.IDMS("release", fixtures.Mirror("quay.io/ocp", "mirror.local/ocp").Never()),
			fixtures.IDMS("apps", fixtures.Mirror("quay.io/apps", "m1.local/apps"), fixtures.Mirror("quay.io/apps", "m0.local/apps")),
		},
		ImageTagMirrorSets:         []*configv1.ImageTagMirrorSet{fixtures.ITMS("tools", fixtures.Mirror("registry.example.com/tools", "mirror.local/tools"))},
		ImageContentSourcePolicies: []*operatorv1alpha1.ImageContentSourcePolicy{fixtures.ICSP("legacy", fixtures.Mirror("registry.redhat.io/ubi9", "mirror.local/ubi9"))},
		Image:                      fixtures.Image(fixtures.Insecure("lab.local:5000"), fixtures.Blocked("docker.io"), fixtures.Search("quay.io")),
		ClusterVersion:             fixtures.ClusterVersion(fixtures.ReleaseImage),
		Pools:                      []*mcfgv1.MachineConfigPool{fixtures.Pool("worker", true), fixtures.Pool("master", true), fixtures.Pool("infra", false)},
	}
}

// ignition is the shape of the generated Ignition config, read without the code under test.
type ignition struct {
	Ignition struct{ Version string }
	Storage  struct {
		Files []struct {
			Path      string
			Overwrite *bool
			Mode      *int
			Contents  struct{ Source string }
		}
	}
}

func TestEveryBuiltInPoolGetsAMachineConfigAsTheReferenceWritesIt(t *testing.T) {
	out, err := render.Render(exampleInputs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.MachineConfigs) != 2 {
		t.Fatalf("got %d MachineConfigs, want master and worker (infra is not built in)", len(out.MachineConfigs))
	}
	for i, pool := range []string{"master", "worker"} {
		mc := out.MachineConfigs[i].Object
		if mc.Name != "99-"+pool+"-generated-registries" {
			t.Errorf("name %q", mc.Name)
		}
		if mc.Labels["machineconfiguration.openshift.io/role"] != pool {
			t.Errorf("%s: role label %v", mc.Name, mc.Labels)
		}
		// No version annotation: MCO's render controller refuses to render a pool while one of its MachineConfigs
		// names another build than MCO's there (docs/semantics.md §3.1).
		if len(mc.Annotations) != 0 {
			t.Errorf("%s: annotations %v, want none", mc.Name, mc.Annotations)
		}
		if o := mc.OwnerReferences; len(o) != 1 || o[0].Kind != "Image" || o[0].Name != "cluster" || o[0].APIVersion != "config.openshift.io/v1" ||
			o[0].UID != "uid-cluster" || !ptr.Deref(o[0].Controller, false) || o[0].BlockOwnerDeletion != nil {
			t.Errorf("%s: owner references %+v, want the Image cluster as controller, blocking nothing", mc.Name, o)
		}
		if mc.APIVersion != "machineconfiguration.openshift.io/v1" || mc.Kind != "MachineConfig" {
			t.Errorf("%s: type %s/%s", mc.Name, mc.APIVersion, mc.Kind)
		}
		var ign ignition
		if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
			t.Fatal(err)
		}
		if ign.Ignition.Version != "3.5.0" {
			t.Errorf("Ignition version %q", ign.Ignition.Version)
		}
		var paths []string
		for _, f := range ign.Storage.Files {
			paths = append(paths, f.Path)
			if f.Overwrite == nil || !*f.Overwrite || f.Mode == nil || *f.Mode != 420 {
				t.Errorf("%s: overwrite %v mode %v, want true and 0644", f.Path, f.Overwrite, f.Mode)
			}
			const prefix = "data:text/plain;charset=utf-8;base64,"
			if !strings.HasPrefix(f.Contents.Source, prefix) {
				t.Fatalf("%s: source %.60s is not MCO's data URL form", f.Path, f.Contents.Source)
			}
			if _, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(f.Contents.Source, prefix)); err != nil {
				t.Errorf("%s: %v", f.Path, err)
			}
		}
		want := []string{"/etc/containers/registries.conf", "/etc/containers/policy.json", "/etc/containers/registries.conf.d/01-image-searchRegistries.conf"}
		if !reflect.DeepEqual(paths, want) {
			t.Errorf("files %v, want %v in MCO's order", paths, want)
		}
	}
}

func TestAMachineConfigExistsEvenWithNothingToWrite(t *testing.T) {
	out, err := render.Render(&inputs.Inputs{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.MachineConfigs) != 2 {
		t.Fatalf("with no pools given, want the default master and worker, got %d", len(out.MachineConfigs))
	}
	for _, d := range out.MachineConfigs {
		mc := d.Object
		var ign ignition
		if err := json.Unmarshal(mc.Spec.Config.Raw, &ign); err != nil {
			t.Fatal(err)
		}
		if len(ign.Storage.Files) != 0 || ign.Ignition.Version != "3.5.0" || len(mc.OwnerReferences) != 0 {
			t.Errorf("%s: want an empty 3.5.0 config without owner, got %s %+v", mc.Name, mc.Spec.Config.Raw, mc.OwnerReferences)
		}
	}
}

func TestRenderDoesNotDependOnTheOrderOfObjectsOrEntries(t *testing.T) {
	base, err := render.Render(exampleInputs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		in := exampleInputs()
		rng.Shuffle(len(in.ImageDigestMirrorSets), func(i, j int) {
			in.ImageDigestMirrorSets[i], in.ImageDigestMirrorSets[j] = in.ImageDigestMirrorSets[j], in.ImageDigestMirrorSets[i]
		})
		rng.Shuffle(len(in.Pools), func(i, j int) { in.Pools[i], in.Pools[j] = in.Pools[j], in.Pools[i] })
		out, err := render.Render(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range base.MachineConfigs {
			if string(out.MachineConfigs[i].Object.Spec.Config.Raw) != string(base.MachineConfigs[i].Object.Spec.Config.Raw) {
				t.Fatalf("order changed the output:\n%s\n%s", out.MachineConfigs[i].Object.Spec.Config.Raw, base.MachineConfigs[i].Object.Spec.Config.Raw)
			}
		}
	}
}

func TestRenderLeavesItsInputsUntouched(t *testing.T) {
	in := exampleInputs()
	before := []runtime.Object{in.Image.DeepCopy(), in.ImageDigestMirrorSets[0].DeepCopy(), in.ImageDigestMirrorSets[1].DeepCopy(),
		in.ImageTagMirrorSets[0].DeepCopy(), in.ImageContentSourcePolicies[0].DeepCopy(), in.Pools[0].DeepCopy()}
	if _, err := render.Render(in, opts); err != nil {
		t.Fatal(err)
	}
	after := []runtime.Object{in.Image, in.ImageDigestMirrorSets[0], in.ImageDigestMirrorSets[1],
		in.ImageTagMirrorSets[0], in.ImageContentSourcePolicies[0], in.Pools[0]}
	for i := range before {
		if !reflect.DeepEqual(before[i], after[i]) {
			t.Errorf("input %d was modified: %+v", i, after[i])
		}
	}
}

func TestAnImageFromAFileGivesNoOwnerReference(t *testing.T) {
	in := exampleInputs()
	in.Image.UID = "" // as read by `render` at install time
	out, err := render.Render(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range out.MachineConfigs {
		if mc := d.Object; len(mc.OwnerReferences) != 0 {
			t.Errorf("%s: owner references %+v: the API server rejects one without a UID", mc.Name, mc.OwnerReferences)
		}
	}
}

// checkerFunc is a Checker made of a function.
type checkerFunc func(nodefiles.Files) (int, error)

func (f checkerFunc) Check(files nodefiles.Files) (int, error) { return f(files) }

func TestARenderThatDoesNotLoadBackReturnsNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		checker render.Checker
		want    string
	}{
		{"the library rejects a file", checkerFunc(func(nodefiles.Files) (int, error) { return 0, errors.New("bad file") }),
			"a rendered file does not load with containers/image: bad file"},
		{"the library drops an entry", checkerFunc(func(nodefiles.Files) (int, error) { return 1, nil }),
			"entries written, 1 loaded"},
		{"no checker", nil, "no Checker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := render.Render(exampleInputs(), render.Options{Checker: tc.checker})
			if err == nil || !strings.Contains(err.Error(), tc.want) || out != nil {
				t.Errorf("want no output and an error containing %q, got %v, %v", tc.want, out != nil, err)
			}
		})
	}
	var seen nodefiles.Files
	if _, err := render.Render(exampleInputs(), render.Options{Checker: checkerFunc(func(files nodefiles.Files) (int, error) {
		seen = files
		return registriesconf.NewChecker().Check(files)
	})}); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0].Path != nodefiles.RegistriesConf {
		t.Errorf("the checker was given %v, want every rendered file", seen.Paths())
	}
}
