package migrate_test

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/migrate"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestEachPolicyGetsAnIDMSNamedAfterItUnlessTheNameIsSomeoneElses(t *testing.T) {
	mine := fixtures.IDMS("stale", fixtures.Mirror("quay.io/stale", "m.local/old").Allow())
	mine.Annotations = map[string]string{migrate.MigratedFromAnnotation: "stale"}
	in := &inputs.Inputs{
		ImageContentSourcePolicies: []*operatorv1alpha1.ImageContentSourcePolicy{
			fixtures.ICSP("taken", fixtures.Mirror("quay.io/t", "m.local/t")),
			fixtures.ICSP("new", fixtures.Mirror("quay.io/n", "m.local/a", "m.local/b", "m.local/a")),
			fixtures.ICSP("done", fixtures.Mirror("quay.io/d", "m.local/d")),
			fixtures.ICSP("stale", fixtures.Mirror("quay.io/stale", "m.local/new")),
			fixtures.ICSP("taken-icsp"),
		},
		ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{
			fixtures.IDMS("taken", fixtures.Mirror("quay.io/other", "m.local/other")),
			fixtures.IDMS("done", fixtures.Mirror("quay.io/d", "m.local/d").Allow()),
			mine,
		},
	}
	plan := migrate.ICSPs(in)
	type row struct{ from, to, outcome string }
	var got []row
	for _, m := range plan.Migrations {
		got = append(got, row{m.From.Name, m.To.Name, string(m.Disposition)})
	}
	want := []row{
		{"done", "done", "already migrated"},
		{"new", "new", "create"},
		{"stale", "stale", "replace"},
		{"taken", "taken-icsp-2", "create"}, // taken-icsp is the name of another policy's IDMS
		{"taken-icsp", "taken-icsp", "create"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plan %v\nwant %v", got, want)
	}
	n := plan.Migrations[1].To.Spec.ImageDigestMirrors[0]
	if !reflect.DeepEqual(n.Mirrors, []configv1.ImageMirror{"m.local/a", "m.local/b"}) || n.MirrorSourcePolicy != configv1.AllowContactingSource {
		t.Errorf("entry of new: %+v", n)
	}
	if len(plan.Writes()) != 4 || len(in.ImageDigestMirrorSets) != 3 {
		t.Errorf("%d writes; the inputs hold %d IDMSs", len(plan.Writes()), len(in.ImageDigestMirrorSets))
	}

	checker := registriesconf.NewChecker()
	defer checker.Close()
	proof, err := migrate.Prove(in, plan, render.Options{Checker: checker})
	if err != nil {
		t.Fatal(err)
	}
	// Replacing the stale IDMS drops m.local/old: the only difference, at both steps, on both pools.
	if proof.Neutral() || len(proof.Changes) != 4 || len(proof.Files[migrate.Added]) == 0 {
		t.Errorf("proof: %+v", proof)
	}
}
