package hostile

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// marker is planted in every field that is not at fault; it must appear in no log line, event or metric.
const marker = "planted-7f3a"

func TestNoInputBytesBeyondTheFaultyValueReachLogsEventsOrMetrics(t *testing.T) {
	c := startAndAwaitFirstWrite(t)
	idms := newObject("ImageDigestMirrorSet", "leak", map[string]any{"imageDigestMirrors": []any{
		mirrorEntry(marker+".example.com/a", []string{marker + "-mirror.example.com/a"}, "NeverContactSource"),
		mirrorEntry("quay.io/leak", []string{"https://bad.example.com/leak"}, ""),
	}})
	meta := idms.body["metadata"].(map[string]any)
	meta["labels"] = map[string]any{"team": marker}
	meta["annotations"] = map[string]any{"note": marker + " " + strings.Repeat("x", 4096)}
	image := newObject("Image", "cluster", map[string]any{"registrySources": map[string]any{
		"insecureRegistries":               []any{marker + ".insecure.example.com"},
		"blockedRegistries":                []any{"https://bad.example.com"},
		"containerRuntimeSearchRegistries": []any{marker + ".search.example.com"},
	}})
	if err := createOrReplace([]object{idms, image}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []at{
		{"ImageDigestMirrorSet", "leak", "spec.imageDigestMirrors[1].mirrors[0]", "https://bad.example.com/leak"},
		{"Image", "cluster", "spec.registrySources.blockedRegistries[0]", "https://bad.example.com"},
	} {
		if !poll(20*time.Second, func() bool { return eventCount(a, corev1.EventTypeWarning, reasonInvalid, a.value) > 0 }) {
			t.Fatalf("no Warning on %s %q", a.kind, a.name)
		}
	}
	// A few more syncs and their logs: the last after a change made once the window began.
	framework.Quiet(t, 2*time.Second, "the planted marker in the controller's log", c.PokedSync(t, cp), func() (bool, string) {
		log := c.Log()
		i := strings.Index(log, marker)
		if i < 0 {
			return false, ""
		}
		return true, clip(log[max(0, i-200):])
	})
	events, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Message, marker) {
			t.Errorf("event %s on %s %q holds the planted marker: %s", e.Reason, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message)
		}
	}
	for _, line := range strings.Split(c.Log(), "\n") {
		if strings.Contains(line, marker) {
			t.Errorf("log line holds the planted marker: %s", clip(line))
		}
	}
	if _, metrics := c.Get("/metrics"); strings.Contains(metrics, marker) {
		t.Errorf("/metrics holds the planted marker")
	}
	if err := deleteObjects([]object{idms, image}); err != nil {
		t.Fatal(err)
	}
}
