package preview_test

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/preview"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

const release = "quay.io/openshift-release-dev/ocp-release@sha256:8f3b4c29e2d1b0a7c6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a098"

// cluster returns inputs as a cluster holds them: objects with UIDs and status.
func cluster() *inputs.Inputs {
	cv := fixtures.ClusterVersion(release)
	cv.ResourceVersion = "7"
	image := fixtures.Image(fixtures.Insecure("lab.local"))
	image.Labels = map[string]string{"set-by": "someone-else"}
	return &inputs.Inputs{
		ClusterVersion:        cv,
		Image:                 image,
		ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{fixtures.IDMS("team-a", fixtures.Mirror("quay.io/a", "m.local/a"))},
		Pools:                 []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("worker", true)},
	}
}

// fromFile returns obj as a manifest read from a file holds it: no UID, no resource version.
func fromFile(obj inputs.Object, where string) inputfiles.Object {
	obj.SetUID("")
	obj.SetResourceVersion("")
	k := inputs.KindOf(obj.GetObjectKind().GroupVersionKind().GroupVersion().String(), obj.GetObjectKind().GroupVersionKind().Kind)
	return inputfiles.Object{Kind: k, Object: obj, Where: where}
}

func TestOverlayReplacesAddsAndDeletesAsApplyAndDeleteWould(t *testing.T) {
	in := cluster()
	before := in.Summary()
	image := fixtures.Image(fixtures.Insecure("other.local"))
	image.Labels = map[string]string{"mine": "yes"}
	cv := fixtures.ClusterVersion("quay.io/not/what@sha256:0000000000000000000000000000000000000000000000000000000000000000")
	newIDMS := fixtures.IDMS("team-b", fixtures.Mirror("quay.io/b", "m.local/b"))
	objs := []inputfiles.Object{fromFile(image, "image.yaml (document 1)"), fromFile(cv, "cv.yaml (document 1)"), fromFile(newIDMS, "b.yaml (document 1)")}
	deletes := []preview.Delete{{Kind: inputs.KindNamed(inputs.KindImageDigestMirrorSet), Ref: inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "team-a"}}}

	out, edits, err := preview.Overlay(in, objs, deletes)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range edits {
		got = append(got, fmt.Sprintf("%s %s from %s", e.Ref, e.Op, e.Where))
	}
	want := `Image "cluster" replaced from image.yaml (document 1)|ClusterVersion "version" replaced from cv.yaml (document 1)|` +
		`ImageDigestMirrorSet "team-b" added from b.yaml (document 1)|ImageDigestMirrorSet "team-a" deleted from --delete`
	if strings.Join(got, "|") != want {
		t.Errorf("edits:\n%s\nwant:\n%s", strings.Join(got, "|"), want)
	}
	if in.Summary() != before || in.ImageDigestMirrorSets[0].Name != "team-a" || in.Image.Spec.RegistrySources.InsecureRegistries[0] != "lab.local" {
		t.Errorf("the cluster's inputs were changed: %s", in.Summary())
	}
	if out.Image.Spec.RegistrySources.InsecureRegistries[0] != "other.local" {
		t.Errorf("the Image's spec is not the file's: %v", out.Image.Spec.RegistrySources)
	}
	if out.Image.UID != in.Image.UID || out.Image.Labels["set-by"] != "someone-else" || out.Image.Labels["mine"] != "yes" {
		t.Errorf("the replaced Image lost the cluster's identity or labels: uid %q labels %v", out.Image.UID, out.Image.Labels)
	}
	if got, _ := out.ReleaseImage(); got != release || out.ClusterVersion.ResourceVersion != "7" {
		t.Errorf("the ClusterVersion took the file's status (%s): apply ignores status", got)
	}
	if len(out.ImageDigestMirrorSets) != 1 || out.ImageDigestMirrorSets[0].Name != "team-b" {
		t.Errorf("ImageDigestMirrorSets after: %s", out.Summary())
	}
}

func TestANewObjectFromAFileHasNoStatusAsTheServerIgnoresIt(t *testing.T) {
	in := cluster()
	in.ClusterVersion = nil
	out, _, err := preview.Overlay(in, []inputfiles.Object{fromFile(fixtures.ClusterVersion(release), "cv.yaml (document 1)")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := out.ReleaseImage(); got != "" {
		t.Errorf("release image %q from a created object's status", got)
	}
}

func TestOverlayRefusesDeletionsOfWhatIsNotThereOrIsAlsoApplied(t *testing.T) {
	idms := inputs.KindNamed(inputs.KindImageDigestMirrorSet)
	missing := preview.Delete{Kind: idms, Ref: inputs.ObjectRef{Kind: idms.Name, Name: "nope"}}
	if _, _, err := preview.Overlay(cluster(), nil, []preview.Delete{missing}); err == nil ||
		err.Error() != `--delete ImageDigestMirrorSet/nope: the cluster holds no ImageDigestMirrorSet "nope"` {
		t.Errorf("deleting a missing object: %v", err)
	}
	both := preview.Delete{Kind: idms, Ref: inputs.ObjectRef{Kind: idms.Name, Name: "team-a"}}
	_, _, err := preview.Overlay(cluster(), []inputfiles.Object{fromFile(fixtures.IDMS("team-a"), "a.yaml (document 1)")}, []preview.Delete{both})
	if err == nil || !strings.Contains(err.Error(), "is also applied from a.yaml (document 1)") {
		t.Errorf("deleting an object also applied: %v", err)
	}
}

func renderOf(t *testing.T, in *inputs.Inputs) *render.Output {
	t.Helper()
	checker := registriesconf.NewChecker()
	t.Cleanup(checker.Close)
	out, err := render.Render(in, render.Options{Checker: checker})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func outcomes(pools []preview.Pool) string {
	var out []string
	for _, p := range pools {
		for _, m := range p.MachineConfigs {
			out = append(out, fmt.Sprintf("%s:%s%v", m.Key.Pool, m.Change(), machineconfigs.Strings(m.Reasons)))
		}
	}
	return strings.Join(out, " ")
}

// objectsOfAnOlderBuild returns the MachineConfig objects of a render as a cluster would hold them had an older
// build of the controller written them: its build in the version annotation, plain owner references.
func objectsOfAnOlderBuild(ds []*machineconfigs.Desired, build string) []*mcfgv1.MachineConfig {
	out := make([]*mcfgv1.MachineConfig, len(ds))
	for i, d := range ds {
		out[i] = fixtures.WrittenBy(d.Object.DeepCopy(), build)
	}
	return out
}

func TestCompareSaysWhatTheControllerWouldWritePerPool(t *testing.T) {
	in := cluster()
	// Written by an older build of the controller: what only says which build wrote them (the version annotation,
	// the plain owner reference) is no reason to write for preview, which may run another build than the controller.
	existing := objectsOfAnOlderBuild(renderOf(t, in).MachineConfigs, "4.20-other-build")
	names := machineconfigs.BuiltInPools(in.Pools)

	pools, err := preview.Compare(names, renderOf(t, in), existing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(pools); got != "master:unchanged[] worker:unchanged[]" {
		t.Errorf("the same inputs: %s", got)
	}

	in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, fixtures.IDMS("team-b", fixtures.Mirror("quay.io/b", "m.local/b")))
	pools, err = preview.Compare(names, renderOf(t, in), existing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(pools); got != "master:updated[file /etc/containers/registries.conf: contents differ] worker:updated[file /etc/containers/registries.conf: contents differ]" {
		t.Errorf("a mirror set added: %s", got)
	}
	if string(pools[1].New().Content("/etc/containers/registries.conf")) == string(pools[1].Old().Content("/etc/containers/registries.conf")) {
		t.Errorf("old and new files are the same")
	}

	in.Pools = []*mcfgv1.MachineConfigPool{fixtures.Pool("master", true), fixtures.Pool("arbiter", true)}
	pools, err = preview.Compare(names, renderOf(t, in), existing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(pools); !strings.HasPrefix(got, "arbiter:created[] master:updated[") || !strings.HasSuffix(got, "worker:deleted[]") {
		t.Errorf("a pool added and one gone: %s", got)
	}
}
