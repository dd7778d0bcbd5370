package controller

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"

	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestAHundredWarningsWithOneReasonAreOneEventListingFive(t *testing.T) {
	var blocked []string
	for i := range 100 {
		blocked = append(blocked, fmt.Sprintf("blocked-%03d.example.com", i))
	}
	// No ClusterVersion: no blocked registry applies, each is a warning with the same reason.
	s := newFakeShell(t, []runtime.Object{fixtures.Image(fixtures.Blocked(blocked...))}, nil, Config{})
	_, ctx := ktesting.NewTestContext(t)
	for range 2 {
		if err := s.syncAndReport(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(s.recorder.Events)
	var events []string
	for e := range s.recorder.Events {
		if strings.Contains(e, reasons.MirrorConfigurationNotApplied) {
			events = append(events, e)
		}
	}
	if len(events) != 1 {
		t.Fatalf("%d events, want 1:\n%s", len(events), strings.Join(events, "\n"))
	}
	e := events[0]
	if !strings.Contains(e, "(100 times):") || strings.Count(e, "\n  spec.registrySources.blockedRegistries[") != 5 ||
		!strings.HasSuffix(e, "\n  and 95 more") || strings.Contains(e, `Image "cluster"`) {
		t.Errorf("event:\n%s", e)
	}
}
