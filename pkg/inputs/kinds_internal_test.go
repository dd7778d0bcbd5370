package inputs

import (
	"reflect"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestEveryKindWithAStatusCopiesIt reads the types with reflection (in the test only): a kind whose type has a
// Status field must copy it, or preview would take a manifest's status for the cluster's.
func TestEveryKindWithAStatusCopiesIt(t *testing.T) {
	for _, k := range Kinds {
		hasStatus := reflect.ValueOf(k.New()).Elem().FieldByName("Status").IsValid()
		if hasStatus != (k.copyStatus != nil) {
			t.Errorf("%s: a Status field %v, copyStatus %v", k.Name, hasStatus, k.copyStatus != nil)
		}
		if k.install == nil {
			t.Errorf("%s: no install", k.Name)
		}
	}
	k := KindNamed(KindCRIOCredentialProvider)
	src := &configv1.CRIOCredentialProviderConfig{Status: configv1.CRIOCredentialProviderConfigStatus{Conditions: []metav1.Condition{{Type: "Validated"}}}}
	dst := &configv1.CRIOCredentialProviderConfig{Status: configv1.CRIOCredentialProviderConfigStatus{Conditions: []metav1.Condition{{Type: "FromAManifest"}}}}
	k.CopyStatus(dst, src)
	if len(dst.Status.Conditions) != 1 || dst.Status.Conditions[0].Type != "Validated" || &dst.Status.Conditions[0] == &src.Status.Conditions[0] {
		t.Errorf("copied %+v: want a copy of the source's", dst.Status)
	}
	k.CopyStatus(dst, nil)
	if len(dst.Status.Conditions) != 0 {
		t.Errorf("without a source the status is kept: %+v", dst.Status)
	}
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds {
		if !s.Recognizes(k.GroupVersion.WithKind(k.Name)) {
			t.Errorf("the scheme does not know %s", k.Name)
		}
	}
}
