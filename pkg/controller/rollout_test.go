package controller

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/test/fixtures"
)

func names(c *change) string {
	var out []string
	for _, o := range c.objects {
		out = append(out, o.ref.String())
	}
	for _, ref := range c.deleted {
		out = append(out, "deleted "+ref.String())
	}
	return strings.Join(out, ", ")
}

func TestChangesAreAttributedToTheObjectsChangedSinceThePreviousWrite(t *testing.T) {
	tr := &rolloutTracker{clock: clocktesting.NewFakeClock(time.Unix(0, 0)), metrics: newRolloutMetrics(prometheus.NewRegistry()),
		written: map[*machineconfigs.Output]map[inputs.ObjectRef]objectVersion{}}
	a, b := fixtures.IDMS("a"), fixtures.ICSP("b")
	in := &inputs.Inputs{Image: fixtures.Image(), ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{a}, ImageContentSourcePolicies: []*operatorv1alpha1.ImageContentSourcePolicy{b},
		ClusterVersion: fixtures.ClusterVersion(fixtures.ReleaseImage)}
	if got := names(tr.changeOf(in, machineconfigs.Registries)); got != `Image "cluster"` {
		t.Errorf("the first write since the start: %s, want the Image alone", got)
	}
	if got := names(tr.changeOf(in, machineconfigs.Registries)); got != `Image "cluster"` {
		t.Errorf("nothing changed: %s, want the Image alone", got)
	}

	a2 := a.DeepCopy()
	a2.Generation++
	annotated := b.DeepCopy()
	annotated.Annotations = map[string]string{"note": "metadata only"}
	c := fixtures.ITMS("c")
	cv := fixtures.ClusterVersion("quay.io/other@sha256:" + strings.Repeat("1", 64))
	in = &inputs.Inputs{Image: fixtures.Image(), ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{a2}, ImageContentSourcePolicies: []*operatorv1alpha1.ImageContentSourcePolicy{annotated},
		ImageTagMirrorSets: []*configv1.ImageTagMirrorSet{c}, ClusterVersion: cv}
	if got := names(tr.changeOf(in, machineconfigs.Registries)); got != `Image "cluster", ImageDigestMirrorSet "a", ImageTagMirrorSet "c"` {
		t.Errorf("a new generation and a new object: %s", got)
	}

	in = &inputs.Inputs{ImageTagMirrorSets: []*configv1.ImageTagMirrorSet{c}}
	older := &change{objects: []attributedObject{{ref: inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "a"}, obj: a2},
		{ref: inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "z"}, obj: fixtures.IDMS("z")}}}
	got := names(tr.changeOf(in, machineconfigs.Registries).superseding(older))
	want := `ImageDigestMirrorSet "z", deleted Image "cluster", deleted ImageContentSourcePolicy "b", deleted ImageDigestMirrorSet "a"`
	if got != want {
		t.Errorf("deleted objects and a superseded change:\n got %s\nwant %s", got, want)
	}
}
