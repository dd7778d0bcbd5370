package controller

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/test/fixtures"
)

// The writer's reading of the API server's answers (test/integration checks kube-apiserver gives them): the
// metadata of a write with the spec sent, and the Status of a refusal as the generated client returns it, so that
// a conflict is retried and a refusal says why.
func TestTheWriterKeepsTheSpecSentWithTheMetadataAnsweredAndTheStatusOfARefusal(t *testing.T) {
	var accepts []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accepts = append(accepts, r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPut {
			status := apierrors.NewConflict(schema.GroupResource{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs"},
				"99-worker-generated-registries", errors.New("the object has been modified")).Status()
			status.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(status)
			return
		}
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: metav1.ObjectMeta{Name: "99-worker-generated-registries", ResourceVersion: "42", UID: "u-1", Generation: 1}})
	}))
	defer server.Close()
	client, err := mcfgclient.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	w := newMetadataWriter(client.MachineconfigurationV1()).MachineConfigs()
	sent := fixtures.MachineConfig("99-worker-generated-registries", "worker", fixtures.File("/etc/containers/registries.conf", "[[registry]]\n"))

	got, err := w.Create(context.Background(), sent, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != "42" || got.UID != "u-1" || got.Name != sent.Name || string(got.Spec.Config.Raw) != string(sent.Spec.Config.Raw) ||
		got.Kind != "MachineConfig" || got.APIVersion != mcfgv1.GroupVersion.String() {
		t.Errorf("created: %s %s/%s %s %q, want the spec sent with the metadata answered", got.APIVersion, got.Name, got.UID, got.ResourceVersion, got.Spec.Config.Raw)
	}
	if sent.ResourceVersion != "" || sent.UID != "" {
		t.Errorf("changed the object sent: %+v", sent.ObjectMeta)
	}

	_, err = w.Update(context.Background(), got, metav1.UpdateOptions{FieldManager: FieldManager})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("a 409 with its Status: %v, want the conflict the generated client returns", err)
	}
	for _, a := range accepts {
		if !strings.HasPrefix(a, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1") {
			t.Errorf("a write asked for %q, want the metadata alone", a)
		}
	}
}
