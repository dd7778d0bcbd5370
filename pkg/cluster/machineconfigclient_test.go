package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

// countingMeta is typeMeta that counts its calls.
type countingMeta struct{ calls *atomic.Int64 }

func (c countingMeta) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	c.calls.Add(1)
	return typeMeta{}.Interpret(data)
}

// machineConfigServer answers a list and a watch of MachineConfigs as the API server does (a watch that asks for
// the initial events gets them and the bookmark that ends them): the list or initial events hold object, then the
// watch sends modified.
func machineConfigServer(t *testing.T, object, modified []byte) *httptest.Server {
	t.Helper()
	event := func(typ string, obj []byte) []byte {
		b, err := json.Marshal(metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: obj}})
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	bookmark := []byte(`{"kind":"MachineConfig","apiVersion":"machineconfiguration.openshift.io/v1","metadata":{"resourceVersion":"2","annotations":{"k8s.io/initial-events-end":"true"}}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/machineconfiguration.openshift.io/v1/machineconfigs" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		if q.Get("watch") != "true" {
			fmt.Fprintf(w, `{"kind":"MachineConfigList","apiVersion":"machineconfiguration.openshift.io/v1","metadata":{"resourceVersion":"2"},"items":[%s]}`, object)
			return
		}
		if q.Get("sendInitialEvents") == "true" {
			_, _ = w.Write(event("ADDED", object))
			_, _ = w.Write(event("BOOKMARK", bookmark))
		}
		_, _ = w.Write(event("MODIFIED", modified))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTheMachineConfigInformerDecodesWithTypeMeta(t *testing.T) {
	object, _ := largeMachineConfig(t)
	var mc mcfgv1.MachineConfig
	if err := json.Unmarshal(object, &mc); err != nil {
		t.Fatal(err)
	}
	mc.ResourceVersion = "1"
	object, _ = json.Marshal(&mc)
	want := bytes.Replace(mc.Spec.Config.Raw, []byte("r0.example.com"), []byte("r0.changed.io"), 1)
	mc.ResourceVersion, mc.Spec.Config.Raw = "3", want
	modified, _ := json.Marshal(&mc)
	srv := machineConfigServer(t, object, modified)

	var calls atomic.Int64
	defer func(mf kjson.MetaFactory) { informerMetaFactory = mf }(informerMetaFactory)
	informerMetaFactory = countingMeta{&calls}
	inf, err := NewInformers(&rest.Config{Host: srv.URL}, 0)
	if err != nil {
		t.Fatal(err)
	}
	informer := inf.MachineConfig.Machineconfiguration().V1().MachineConfigs().Informer()
	stop := make(chan struct{})
	inf.Start(stop)
	defer inf.Shutdown()
	defer close(stop)
	var got *mcfgv1.MachineConfig
	err = wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		obj, ok, err := informer.GetStore().GetByKey(mc.Name)
		if ok {
			got = obj.(*mcfgv1.MachineConfig)
		}
		return ok && got.ResourceVersion == "3", err
	})
	if err != nil {
		t.Fatalf("the informer did not get the modified MachineConfig: %v (holds %v)", err, got != nil)
	}
	if !bytes.Equal(got.Spec.Config.Raw, want) {
		t.Errorf("spec.config differs from what the watch sent (%d bytes, want %d)", len(got.Spec.Config.Raw), len(want))
	}
	// the list or the initial events, then the watch event: its envelope and its object
	if n := calls.Load(); n < 3 {
		t.Errorf("the informer's decoder asked the MetaFactory %d times", n)
	}
}
