// Package hostile feeds a corpus of invalid and hostile objects (corpus_test.go) to the real controller binary,
// through mirror CRDs installed without schema validation so that the controller, not the API server, is the
// last line; and to `render`. Every object must be rejected at the right field, with nothing written, and
// written once fixed.
package hostile

import (
	"context"
	"fmt"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/registries-controller/test/framework"
)

// cp is the package's one control plane; dyn writes the corpus's objects as they are.
var (
	cp  *framework.ControlPlane
	dyn dynamic.Interface
)

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		ctx := context.Background()
		var err error
		if dyn, err = dynamic.NewForConfig(cp.RESTConfig); err != nil {
			return err
		}
		if err := loosenCRDs(ctx); err != nil {
			return err
		}
		return cp.CreateBuiltinCluster(ctx)
	})
}

// loosenCRDs replaces the schema of every CRD of the corpus's kinds by one that accepts anything (a loose copy
// of the real CRD), and waits until the API server takes an object the real schema refuses.
func loosenCRDs(ctx context.Context) error {
	client, err := apiextensionsclient.NewForConfig(cp.RESTConfig)
	if err != nil {
		return err
	}
	loose := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type: "object", XPreserveUnknownFields: ptrTrue(),
	}}
	for _, gvr := range resources {
		name := gvr.Resource + "." + gvr.Group
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range crd.Spec.Versions {
			crd.Spec.Versions[i].Schema = loose
		}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("loosening %s: %w", name, err)
		}
	}
	probe := newObject("ImageDigestMirrorSet", "loose-probe", map[string]any{"imageDigestMirrors": []any{
		map[string]any{"source": "https://quay.io/x", "mirrors": []any{"\x00"}, "mirrorSourcePolicy": "Sometimes"}}})
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(resources["ImageDigestMirrorSet"]).Create(ctx, &unstructured.Unstructured{Object: probe.body}, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the loose ImageDigestMirrorSet CRD still validates: %w", err)
	}
	return dyn.Resource(resources["ImageDigestMirrorSet"]).Delete(ctx, "loose-probe", metav1.DeleteOptions{})
}

func ptrTrue() *bool { b := true; return &b }
