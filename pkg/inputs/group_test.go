package inputs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputs"
)

func blockedNotApplied(i int) inputs.Problem {
	return inputs.Problem{
		At:      inputs.FieldRef{Object: inputs.ImageRef, Field: fmt.Sprintf("spec.registrySources.blockedRegistries[%d]", i)},
		Value:   fmt.Sprintf("r%d.example.com", i),
		Message: "not applied: the release payload is unknown",
		Fix:     "wait for the ClusterVersion",
	}
}

func TestAHundredWarningsWithOneReasonPrintTheReasonOnceAndFiveValues(t *testing.T) {
	var ps []inputs.Problem
	for i := range 100 {
		ps = append(ps, blockedNotApplied(i))
	}
	other := inputs.Problem{At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "a"}, Field: "spec.imageDigestMirrors[0]"},
		Value: "quay.io/a", Message: "something else"}
	ps = append(ps[:50], append([]inputs.Problem{other}, ps[50:]...)...)

	got := inputs.GroupFormat{More: " (--verbose lists them all)"}.Format(inputs.GroupProblems(ps))
	want := []string{
		`not applied: the release payload is unknown; wait for the ClusterVersion (100 times):
  Image "cluster": spec.registrySources.blockedRegistries[0]: "r0.example.com"
  Image "cluster": spec.registrySources.blockedRegistries[1]: "r1.example.com"
  Image "cluster": spec.registrySources.blockedRegistries[2]: "r2.example.com"
  Image "cluster": spec.registrySources.blockedRegistries[3]: "r3.example.com"
  Image "cluster": spec.registrySources.blockedRegistries[4]: "r4.example.com"
  and 95 more (--verbose lists them all)`,
		other.String(),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEveryProblemIsListedWhenAskedAndObjectsCanBeLeftOut(t *testing.T) {
	ps := []inputs.Problem{blockedNotApplied(0), blockedNotApplied(1), blockedNotApplied(2)}
	all := inputs.GroupFormat{Shown: -1, OnObject: true}.Format(inputs.GroupProblems(ps))
	if len(all) != 1 || strings.Count(all[0], "\n") != 3 || strings.Contains(all[0], "Image \"cluster\"") || strings.Contains(all[0], "more") {
		t.Errorf("all, on the object:\n%s", strings.Join(all, "\n"))
	}
	two := inputs.GroupFormat{Shown: 2}.Format(inputs.GroupProblems(ps))
	if len(two) != 1 || !strings.HasSuffix(two[0], "\n  and 1 more") {
		t.Errorf("two shown:\n%s", strings.Join(two, "\n"))
	}
	one := inputs.GroupFormat{OnObject: true}.Format(inputs.GroupProblems(ps[:1]))
	if len(one) != 1 || one[0] != ps[0].OnObject() {
		t.Errorf("a group of one is the problem itself: %q", one)
	}
	if got := inputs.GroupProblems(nil); len(got) != 0 {
		t.Errorf("groups of nothing: %v", got)
	}
}
