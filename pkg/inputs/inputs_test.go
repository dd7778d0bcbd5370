package inputs_test

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestEveryKindIsStoredWhereItsFieldSays(t *testing.T) {
	in := &inputs.Inputs{}
	for _, k := range inputs.Kinds {
		o := k.New()
		name := "obj"
		if k.Singleton != "" {
			name = k.Singleton
		}
		o.SetName(name)
		if k.Namespaced {
			o.SetNamespace("team")
		}
		in.Add(k, o)
		if got := k.Objects(in); len(got) != 1 || got[0] != o {
			t.Errorf("%s: Objects after Add: %v", k.Name, got)
		}
		ref := inputs.RefOf(k, o)
		if in.Get(ref) != o {
			t.Errorf("%s: Get(%s) does not find the object", k.Name, ref)
		}
		if inputs.KindOf(k.GroupVersion.String(), k.Name) != k || inputs.KindNamed(k.Name) != k {
			t.Errorf("%s: not found by its apiVersion and name", k.Name)
		}
		if !in.Remove(k, o.GetNamespace(), name) || len(k.Objects(in)) != 0 || in.Remove(k, o.GetNamespace(), name) {
			t.Errorf("%s: Remove did not remove exactly the object", k.Name)
		}
	}
	if in.Summary() != "no input objects" {
		t.Errorf("summary of nothing: %q", in.Summary())
	}
}

func TestAddReplacesAnObjectOfTheSameNameAndIgnoresOtherSingletons(t *testing.T) {
	shared := []*configv1.ImageDigestMirrorSet{fixtures.IDMS("a"), fixtures.IDMS("b")}
	in := &inputs.Inputs{ImageDigestMirrorSets: shared}
	idms := inputs.KindNamed(inputs.KindImageDigestMirrorSet)
	replacement := fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a"))
	in.Add(idms, replacement)
	if len(in.ImageDigestMirrorSets) != 2 || in.Get(inputs.ObjectRef{Kind: idms.Name, Name: "a"}) != replacement {
		t.Errorf("Add did not replace a: %v", in.ImageDigestMirrorSets)
	}
	if shared[0].Name != "a" || shared[1].Name != "b" || len(shared[0].Spec.ImageDigestMirrors) != 0 {
		t.Errorf("the caller's slice was modified: %v", shared)
	}
	image := inputs.KindNamed(inputs.KindImage)
	in.Add(image, &configv1.Image{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	if in.Image != nil {
		t.Errorf("an Image not named cluster was read")
	}
	in.Add(image, fixtures.Image())
	if got := in.Summary(); got != "1 Image, 2 ImageDigestMirrorSet" {
		t.Errorf("summary %q", got)
	}
	if in.MirrorObjects() != 2 {
		t.Errorf("mirror objects %d, want 2", in.MirrorObjects())
	}
}

func TestReleaseImageComesFromTheFlagOrTheClusterVersion(t *testing.T) {
	in := &inputs.Inputs{}
	if img, at := in.ReleaseImage(); img != "" || at.Object.Kind != inputs.KindClusterVersion {
		t.Errorf("without a ClusterVersion: %q from %s", img, at)
	}
	in.ClusterVersion = fixtures.ClusterVersion("quay.io/r@sha256:" + "1111111111111111111111111111111111111111111111111111111111111111")
	if img, at := in.ReleaseImage(); img != in.ClusterVersion.Status.Desired.Image || at.String() != `ClusterVersion "version" status.desired.image` {
		t.Errorf("from the ClusterVersion: %q from %s", img, at)
	}
	in.ReleaseImageFlag = "quay.io/r:4.20"
	if img, at := in.ReleaseImage(); img != "quay.io/r:4.20" || at.Field != "--release-image" {
		t.Errorf("the flag wins: %q from %s", img, at)
	}
}

func TestProblemsNameObjectAndField(t *testing.T) {
	p := inputs.Problem{At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindImagePolicy, Namespace: "team", Name: "sig"}, Field: "spec.scopes[0]"},
		Value: "quay.io/x:", Message: "not a scope", Fix: "remove the colon"}
	if got := p.String(); got != `ImagePolicy "team/sig": spec.scopes[0]: "quay.io/x:": not a scope; remove the colon` {
		t.Errorf("String: %s", got)
	}
	if got := p.OnObject(); got != `spec.scopes[0]: "quay.io/x:": not a scope; remove the colon` {
		t.Errorf("OnObject: %s", got)
	}
	ps := []inputs.Problem{
		{At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: "B", Name: "a"}, Field: "x"}},
		{At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: "A", Namespace: "z", Name: "a"}, Field: "y"}},
		{At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: "A", Namespace: "b", Name: "c"}, Field: "y"}},
	}
	inputs.SortProblems(ps)
	if ps[0].At.Object.Namespace != "b" || ps[1].At.Object.Namespace != "z" || ps[2].At.Object.Kind != "B" {
		t.Errorf("sorted: %+v", ps)
	}
	err := &inputs.InvalidError{Problems: append(ps, ps[0])}
	if got := len(err.Objects()); got != 3 {
		t.Errorf("objects %d, want 3 distinct", got)
	}
}

func TestEventMessagesSayEveryProblemOfAnObjectOnceWithoutItsName(t *testing.T) {
	a := inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "a"}
	b := inputs.ObjectRef{Kind: inputs.KindImagePolicy, Namespace: "team", Name: "b"}
	err := &inputs.InvalidError{Problems: []inputs.Problem{
		{At: inputs.FieldRef{Object: a, Field: "spec.x[0]"}, Value: "v0", Message: "bad"},
		{At: inputs.FieldRef{Object: b, Field: "spec.scopes[0]"}, Value: "s", Message: "worse", Fix: "fix it"},
		{At: inputs.FieldRef{Object: a, Field: "spec.x[1]"}, Value: "v1", Message: "bad"},
	}}
	got := err.EventMessages()
	want := []inputs.ObjectMessage{
		{Object: a, Message: "Not applied, every MachineConfig keeps its last good content: spec.x[0]: \"v0\": bad\nspec.x[1]: \"v1\": bad"},
		{Object: b, Message: "Not applied, every MachineConfig keeps its last good content: spec.scopes[0]: \"s\": worse; fix it"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("EventMessages:\n%q\nwant:\n%q", got, want)
	}
}

func TestObjectRefsFromTheCommandLineNameTheKindAsInYAMLAndANamespaceWhenNamespaced(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "ImageDigestMirrorSet/team-a", want: `ImageDigestMirrorSet "team-a"`},
		{in: "imagedigestmirrorset/team-a", want: `ImageDigestMirrorSet "team-a"`},
		{in: "imagetagmirrorsets/tools", want: `ImageTagMirrorSet "tools"`},
		{in: "ImagePolicy/payments/signed", want: `ImagePolicy "payments/signed"`},
		{in: "Image/cluster", want: `Image "cluster"`},
		{in: "ImagePolicy/signed", err: "ImagePolicy is namespaced: write ImagePolicy/NAMESPACE/NAME"},
		{in: "ImageDigestMirrorSet/ns/a", err: "ImageDigestMirrorSet is cluster-scoped"},
		{in: "Image/other", err: `only the Image named "cluster" is read`},
		{in: "Deployment/x", err: `"Deployment" is not an input kind; the kinds are ImageContentSourcePolicy, `},
		{in: "team-a", err: "write KIND/NAME"},
		{in: "ImageDigestMirrorSet/", err: "empty name"},
	} {
		_, ref, err := inputs.ParseObjectRef(tc.in)
		switch {
		case tc.err == "" && (err != nil || ref.String() != tc.want):
			t.Errorf("%s: %s, %v; want %s", tc.in, ref, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.in, err, tc.err)
		}
	}
}

func TestACloneChangesWithoutChangingTheOriginal(t *testing.T) {
	idms := inputs.KindNamed(inputs.KindImageDigestMirrorSet)
	list := make([]*configv1.ImageDigestMirrorSet, 1, 4) // room to append in place
	list[0] = fixtures.IDMS("a")
	in := &inputs.Inputs{ImageDigestMirrorSets: list, Image: fixtures.Image()}
	first, second := in.Clone(), in.Clone()
	first.Add(idms, fixtures.IDMS("b"))
	second.Add(idms, fixtures.IDMS("c"))
	first.Remove(inputs.KindNamed(inputs.KindImage), "", "cluster")
	if in.Summary() != "1 Image, 1 ImageDigestMirrorSet" || first.Summary() != "2 ImageDigestMirrorSet" || second.Summary() != "1 Image, 2 ImageDigestMirrorSet" {
		t.Errorf("original %s, first %s, second %s", in.Summary(), first.Summary(), second.Summary())
	}
	if first.Get(inputs.ObjectRef{Kind: idms.Name, Name: "b"}) == nil || second.Get(inputs.ObjectRef{Kind: idms.Name, Name: "c"}) == nil {
		t.Errorf("one clone's Add overwrote the other's")
	}
}

func TestTheFingerprintChangesWithAnyVersionAndOnlyThen(t *testing.T) {
	idms := fixtures.IDMS("a")
	idms.ResourceVersion = "1"
	pool := fixtures.Pool("worker", true)
	pool.ResourceVersion = "2"
	in := &inputs.Inputs{ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{idms}, Pools: []*mcfgv1.MachineConfigPool{pool}}
	base := in.Fingerprint()
	if base == "" || (&inputs.Inputs{ImageDigestMirrorSets: in.ImageDigestMirrorSets, Pools: in.Pools}).Fingerprint() != base {
		t.Fatalf("the same versions give another fingerprint")
	}
	changed := idms.DeepCopy()
	changed.ResourceVersion = "3"
	recreated := idms.DeepCopy()
	recreated.UID = "other"
	for name, other := range map[string]*inputs.Inputs{
		"a new resourceVersion": {ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{changed}, Pools: in.Pools},
		"a recreated object":    {ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{recreated}, Pools: in.Pools},
		"an object less":        {Pools: in.Pools},
		"a kind not watched":    {ImageDigestMirrorSets: in.ImageDigestMirrorSets, Pools: in.Pools, Unwatched: map[string]string{"ImagePolicy": "gate off"}},
		"a release image flag":  {ImageDigestMirrorSets: in.ImageDigestMirrorSets, Pools: in.Pools, ReleaseImageFlag: "quay.io/x@sha256:1"},
	} {
		if other.Fingerprint() == base {
			t.Errorf("%s: the same fingerprint", name)
		}
	}
	if (&inputs.Inputs{ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{fixtures.IDMS("from-a-file")}}).Fingerprint() != "" {
		t.Errorf("an object without resourceVersion has a fingerprint")
	}
}

func TestAddUniqueAppendsInOrderAndIgnoresOtherSingletons(t *testing.T) {
	in := &inputs.Inputs{}
	idms := inputs.KindNamed(inputs.KindImageDigestMirrorSet)
	a, b := fixtures.IDMS("a"), fixtures.IDMS("b")
	in.AddUnique(idms, a)
	in.AddUnique(idms, b)
	if len(in.ImageDigestMirrorSets) != 2 || in.ImageDigestMirrorSets[0] != a || in.ImageDigestMirrorSets[1] != b {
		t.Errorf("AddUnique: %v", in.ImageDigestMirrorSets)
	}
	image := inputs.KindNamed(inputs.KindImage)
	in.AddUnique(image, &configv1.Image{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	if in.Image != nil {
		t.Errorf("an Image not named cluster was added: %v", in.Image)
	}
}
