package crds_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/registries-controller/pkg/crds"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// Every input kind has its CRD embedded, found by group and kind, and the file found is the one whose parsed
// spec names that group and kind.
func TestEveryInputKindHasItsCRDEmbedded(t *testing.T) {
	for _, k := range inputs.Kinds {
		gk := schema.GroupKind{Group: k.GroupVersion.Group, Kind: k.Name}
		crd, ok, err := crds.For(gk)
		if err != nil || !ok {
			t.Errorf("%s: For = %v, %v", gk, ok, err)
			continue
		}
		if crd.Spec.Names.Plural != k.Resource {
			t.Errorf("%s: the CRD's plural is %q, the kind's resource %q", gk, crd.Spec.Names.Plural, k.Resource)
		}
		served := false
		for _, v := range crd.Spec.Versions {
			served = served || (v.Name == k.GroupVersion.Version && v.Served)
		}
		if !served {
			t.Errorf("%s: the CRD serves no version %s", gk, k.GroupVersion.Version)
		}
	}
}

func TestAKindWithoutACRDIsNotFound(t *testing.T) {
	for _, gk := range []schema.GroupKind{{Group: "config.openshift.io", Kind: "NoSuchKind"}, {Group: "", Kind: "Secret"}} {
		if _, ok, err := crds.For(gk); ok || err != nil {
			t.Errorf("%s: For = %v, %v; want not found", gk, ok, err)
		}
	}
}

func TestOnlyTheOpenShiftCRDsAreEmbedded(t *testing.T) {
	names := crds.Files()
	if len(names) == 0 {
		t.Fatal("no embedded CRD")
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "0000_") || !strings.HasSuffix(n, ".crd.yaml") {
			t.Errorf("embedded %s, which is not a CRD copied from github.com/openshift/api", n)
		}
	}
}
