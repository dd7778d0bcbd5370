package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// TestTheAPIServerAnswersTheControllersWritesWithMetadata records, under the controller's own client, the API
// server's answers to its MachineConfig creates and updates: they carry the metadata alone (PartialObjectMetadata,
// which the controller asks for), not the 300 KB MachineConfigs of 1,000 objects. What the controller kept of them is
// right: a later change is written once per pool, and resyncs write nothing more.
func TestTheAPIServerAnswersTheControllersWritesWithMetadata(t *testing.T) {
	cp.Reset(t)
	set := fixtures.OCMirror(1000)
	cp.RunKubectl(t, "apply", "-f", writeManifests(t, set.Objects()))
	var answers writeAnswers
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.WrapTransport = answers.record
	ctrl := startInProcess(t, cfg, fastSettle, 200*time.Millisecond)
	waitWorkerFinal(t, expectFinal(set))
	ctrl.settle(t)

	obj := set.IDMS[len(set.IDMS)/2]
	obj.Spec.ImageDigestMirrors[0].Mirrors[0] = "changed.corp.example.com/answers"
	apply(t, obj)
	waitWorkerContains(t, "changed.corp.example.com/answers", time.Minute)
	ctrl.settle(t)
	writes := countWrites(t)
	framework.Quiet(t, time.Second, "a write after the change was written", framework.Witness{What: "resyncs", Need: 3, Count: func() float64 {
		return ctrl.counter(t, "registries_controller_syncs_total", map[string]string{"result": "unchanged"})
	}}, func() (bool, string) {
		m, w := writes.get(masterMC), writes.get(workerMC)
		return m+w != 0, fmt.Sprintf("writes: master %d, worker %d", m, w)
	})

	got := answers.get()
	slices.Sort(got)
	if want := []string{
		"POST machineconfigs: PartialObjectMetadata 99-master-generated-registries",
		"POST machineconfigs: PartialObjectMetadata 99-worker-generated-registries",
		"PUT machineconfigs/99-master-generated-registries: PartialObjectMetadata 99-master-generated-registries",
		"PUT machineconfigs/99-worker-generated-registries: PartialObjectMetadata 99-worker-generated-registries",
	}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the answers to the MachineConfig writes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// writeAnswers records the kind and name of the objects the API server answered MachineConfig writes with, as
// the client reads them (decompressed).
type writeAnswers struct {
	mu      sync.Mutex
	answers []string
}

func (a *writeAnswers) record(rt http.RoundTripper) http.RoundTripper {
	return promhttp.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		_, path, isMC := strings.Cut(req.URL.Path, "/apis/machineconfiguration.openshift.io/v1/")
		if err != nil || !isMC || !strings.HasPrefix(path, "machineconfigs") || (req.Method != http.MethodPost && req.Method != http.MethodPut) || resp.StatusCode/100 != 2 {
			return resp, err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var answer struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		answer.Kind = fmt.Sprintf("not JSON (%d bytes)", len(body))
		_ = json.Unmarshal(body, &answer)
		if answer.Kind != "PartialObjectMetadata" {
			answer.Kind += fmt.Sprintf(" (%d bytes)", len(body))
		}
		a.mu.Lock()
		a.answers = append(a.answers, fmt.Sprintf("%s %s: %s %s", req.Method, path, answer.Kind, answer.Metadata.Name))
		a.mu.Unlock()
		return resp, nil
	})
}

func (a *writeAnswers) get() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.answers...)
}
