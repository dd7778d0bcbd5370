package credentialprovider_test

import (
	"context"
	"encoding/json"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/openshift/registries-controller/pkg/crdvalidation"
)

// crdRefuses reports whether the API server refuses a create of cfg by the CRD (its schema and CEL rules),
// judged offline with the API server's code.
func crdRefuses(t testing.TB, cfg *configv1.CRIOCredentialProviderConfig) bool {
	t.Helper()
	c := cfg.DeepCopy()
	c.APIVersion, c.Kind = configv1.GroupVersion.String(), "CRIOCredentialProviderConfig"
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	v, err := crdvalidation.Judge(context.Background(), obj)
	if err != nil {
		t.Fatal(err)
	}
	return v.Refused()
}
