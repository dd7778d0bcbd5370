package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// TestALoneChangeIsRenderedWhileTheSettleDelayRuns drives the worker (processNextWorkItem) with a fake clock: a
// change that stays alone for a quarter of the settle delay is rendered then, nothing is written before the delay
// is over, and the sync at its end writes that render without rendering again; a change that comes after the
// render ahead is what the sync writes.
func TestALoneChangeIsRenderedWhileTheSettleDelayRuns(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Unix(1000, 0))
	idms := fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/first"))
	idms.ResourceVersion = "1" // the fingerprint names versions; the fake clientsets keep the ones given
	master, worker := fixtures.Pool("master", true), fixtures.Pool("worker", true)
	master.ResourceVersion, worker.ResourceVersion = "1", "1"
	// Each load-back takes 100 ms by the clock: the sync is due at the end of the settle delay, whatever the
	// render ahead took of it.
	const loadBack = 100 * time.Millisecond
	checker := slowChecker{Checker: registriesconf.NewChecker(), clock: clock, takes: loadBack}
	s := newFakeShell(t, []runtime.Object{idms}, []runtime.Object{master, worker}, Config{Clock: clock, SettleDelay: time.Second, Checker: checker})
	_, ctx := ktesting.NewTestContext(t)

	// The informers' first events (the mirror set, two pools) started a burst: its sync creates the MachineConfigs.
	s.waitEvents(t, 3)
	clock.Step(time.Second)
	s.work(t, ctx)
	if got := s.writes(); len(got) != 2 {
		t.Fatalf("writes %v after the first sync, want the two pools' creates", got)
	}
	s.changeMirror(t, ctx, idms, "2", "m.local/second")
	s.waitEvents(t, 6) // the two creates, the change
	clock.Step(s.ctrl.renderAheadQuiet())
	s.work(t, ctx)
	ahead := s.ctrl.last.out
	if ahead == nil || s.ctrl.last.fingerprint == "" || !rendersMirror(t, ahead.Set.MachineConfigs, "m.local/second") {
		t.Fatalf("a quarter of the settle delay after the change: no render ahead of it (%+v)", s.ctrl.last)
	}
	if got := s.writes(); len(got) != 2 {
		t.Fatalf("writes %v before the settle delay is over", got)
	}
	clock.Step(time.Second - s.ctrl.renderAheadQuiet() - loadBack)
	s.work(t, ctx)
	if got := s.writes(); len(got) != 4 {
		t.Fatalf("writes %v at the end of the settle delay, want the two pools' updates", got)
	}
	if s.ctrl.last.out != ahead {
		t.Error("the sync rendered again the inputs rendered ahead of it")
	}
	if got := s.written(t, ctx, "99-worker-generated-registries"); !strings.Contains(got, "m.local/second") {
		t.Errorf("the worker MachineConfig says\n%s\nwant the second mirror", got)
	}

	// The writes' own events start a burst whose inputs were rendered already: the look ahead renders nothing,
	// and a change within that burst is still rendered ahead.
	s.waitEvents(t, 8) // the two updates
	clock.Step(s.ctrl.renderAheadQuiet())
	s.work(t, ctx)
	if s.ctrl.last.out != ahead {
		t.Fatal("the writes' own events rendered the same inputs again")
	}
	s.changeMirror(t, ctx, idms, "3", "m.local/third")
	s.waitEvents(t, 9)
	clock.Step(s.ctrl.renderAheadQuiet())
	s.work(t, ctx)
	if !rendersMirror(t, s.ctrl.last.out.Set.MachineConfigs, "m.local/third") {
		t.Fatal("a change in the burst of the writes' own events was not rendered ahead")
	}

	// A change after the render ahead: the sync renders again and writes it.
	ahead = s.ctrl.last.out
	s.changeMirror(t, ctx, idms, "4", "m.local/fourth")
	s.waitEvents(t, 10)
	clock.Step(time.Second)
	s.work(t, ctx)
	if s.ctrl.last.out == ahead {
		t.Error("the sync wrote the render of inputs that changed since")
	}
	if got := s.written(t, ctx, "99-worker-generated-registries"); !strings.Contains(got, "m.local/fourth") {
		t.Errorf("the worker MachineConfig says\n%s\nwant the fourth mirror", got)
	}
}

// slowChecker is a Checker whose load-back takes the time takes by clock.
type slowChecker struct {
	render.Checker
	clock *clocktesting.FakeClock
	takes time.Duration
}

func (c slowChecker) Check(files nodefiles.Files) (int, error) {
	c.clock.Step(c.takes)
	return c.Checker.Check(files)
}

// work runs one item of the worker's queue, failing the test when none is ready within 10 s.
func (s *fakeShell) work(t *testing.T, ctx context.Context) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ctrl.processNextWorkItem(ctx)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker's queue had nothing ready")
	}
}

// waitEvents waits until the controller has taken n events since it started (events_total), and fails the test on
// more. An informer's cache holds an object before its event handlers run: a test that steps the fake clock right
// after the cache holds a change dates the event after the step (and its sync a whole delay later) unless it waits
// for the handler.
func (s *fakeShell) waitEvents(t *testing.T, n int) {
	t.Helper()
	framework.Eventually(t, 10*time.Second, fmt.Sprintf("the controller to take %d events", n), func() (bool, string) {
		got := int(metricValue(t, s.ctrl.metrics.events))
		if got > n {
			t.Fatalf("the controller took %d events, want %d", got, n)
		}
		return got == n, fmt.Sprint(got)
	})
}

// changeMirror sets the first mirror of idms to mirror at resourceVersion rv; the caller waits for its event
// (waitEvents), which the controller takes once the informer holds the change.
func (s *fakeShell) changeMirror(t *testing.T, ctx context.Context, idms *configv1.ImageDigestMirrorSet, rv, mirror string) {
	t.Helper()
	idms.ResourceVersion = rv
	idms.Spec.ImageDigestMirrors[0].Mirrors = []configv1.ImageMirror{configv1.ImageMirror(mirror)}
	if _, err := s.config.ConfigV1().ImageDigestMirrorSets().Update(ctx, idms, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// written returns the registries.conf the MachineConfig name writes, as the fake API server holds it, decoded without
// the code under test (framework.NodeFiles).
func (s *fakeShell) written(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	mc, err := s.mc.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return framework.MustNodeFiles(t, mc)[nodefiles.RegistriesConf]
}

// rendersMirror reports whether every registries MachineConfig of mcs writes mirror into registries.conf (decoded by
// framework.NodeFiles).
func rendersMirror(t *testing.T, mcs []*machineconfigs.Desired, mirror string) bool {
	t.Helper()
	n := 0
	for _, d := range mcs {
		if d.Key.Output != machineconfigs.Registries {
			continue
		}
		if !strings.Contains(framework.MustNodeFiles(t, d.Object)[nodefiles.RegistriesConf], mirror) {
			return false
		}
		n++
	}
	return n > 0
}
