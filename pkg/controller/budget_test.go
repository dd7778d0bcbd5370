package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"

	"github.com/openshift/registries-controller/pkg/renderedconfig"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// teamMirrors returns an ImageDigestMirrorSet "team" of n sources with two mirrors each.
func teamMirrors(n int) *configv1.ImageDigestMirrorSet {
	var entries []fixtures.MirrorEntry
	for i := range n {
		src := fmt.Sprintf("registry.example.com/team/app-%05d", i)
		entries = append(entries, fixtures.Mirror(src, "mirror-one.example.net/"+src, "mirror-two.example.net/"+src))
	}
	return fixtures.IDMS("team", entries...)
}

// warningEvents returns the Warning events of events.
func warningEvents(events []string) []string {
	var out []string
	for _, e := range events {
		if strings.HasPrefix(e, "Warning ") {
			out = append(out, e)
		}
	}
	return out
}

// metricValue returns the value of a gauge or a counter.
func metricValue(t *testing.T, metric prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	if err := metric.Write(&m); err != nil {
		t.Fatal(err)
	}
	if m.Counter != nil {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// drainEvents returns the events recorded so far.
func drainEvents(s *fakeShell) []string {
	var out []string
	for {
		select {
		case e := <-s.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func TestAWriteThatWouldTakeAPoolsRenderedMachineConfigOverTheLimitIsNotSent(t *testing.T) {
	// The worker pool's own MachineConfigs already take 1.4 MB of the 1.5 MiB its rendered MachineConfig may have;
	// the master pool's almost nothing.
	large := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/large", strings.Repeat("x", 1050000)))
	small := fixtures.MachineConfig("00-master", "master", fixtures.File("/etc/small", "x"))
	s := newFakeShell(t, []runtime.Object{teamMirrors(1), fixtures.Image(), fixtures.ClusterVersion(fixtures.ReleaseImage)},
		[]runtime.Object{fixtures.Pool("master", true), fixtures.Pool("worker", true), large, small}, Config{})
	_, ctx := ktesting.NewTestContext(t)

	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.writes(); len(got) != 2 {
		t.Fatalf("a small mirror configuration wrote %v, want both pools' MachineConfigs", got)
	}
	worker := metricValue(t, s.ctrl.metrics.renderedBytes.WithLabelValues("worker"))
	master := metricValue(t, s.ctrl.metrics.renderedBytes.WithLabelValues("master"))
	if worker < 1400000 || worker > renderedconfig.MaxBytes || master > 20000 {
		t.Errorf("rendered sizes: worker %.0f, master %.0f; want worker over 1.4 MB and under the limit, master small", worker, master)
	}
	events := warningEvents(drainEvents(s))
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning MachineConfigNearSizeLimit the rendered MachineConfig of pool worker is ") ||
		!strings.Contains(events[0], "its largest other MachineConfigs: 00-worker (") {
		t.Errorf("events %q, want one Warning that the worker pool's rendered MachineConfig is near the limit", events)
	}

	// 600 sources more would take the worker pool over: nothing is written, not even the master pool's.
	if _, err := s.config.ConfigV1().ImageDigestMirrorSets().Update(ctx, teamMirrors(600), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, "the cache to hold the larger mirror set", func() (bool, string) {
		idms := s.cached(t, "ImageDigestMirrorSet", "team").(*configv1.ImageDigestMirrorSet)
		return len(idms.Spec.ImageDigestMirrors) == 600, fmt.Sprint(len(idms.Spec.ImageDigestMirrors))
	})
	framework.Eventually(t, 5*time.Second, "the cache to hold the 4 MachineConfigs", func() (bool, string) {
		l, _ := s.ctrl.configs.List(labels.Everything())
		return len(l) == 4, fmt.Sprint(len(l))
	})
	s.mc.ClearActions()
	res, err := s.ctrl.sync(ctx)
	s.ctrl.status.report(ctx, res, err)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.writes(); len(got) != 0 {
		t.Errorf("wrote %v, want nothing while the worker pool's rendered MachineConfig would be over the limit", got)
	}
	if res.outcome != OutcomeInvalid {
		t.Errorf("outcome %s, want %s", res.outcome, OutcomeInvalid)
	}
	if worker := metricValue(t, s.ctrl.metrics.renderedBytes.WithLabelValues("worker")); worker <= renderedconfig.MaxBytes {
		t.Errorf("rendered size of worker %.0f, want what it would be, over the limit", worker)
	}
	events = drainEvents(s)
	want := `Warning InvalidMirrorConfiguration Not applied, every MachineConfig keeps its last good content: spec: "worker": with this configuration the rendered MachineConfig of pool worker is over the 1,572,864 bytes (1.5 MiB) the machine-config-operator accepts`
	found := false
	for _, e := range events {
		found = found || strings.HasPrefix(e, want)
	}
	if !found {
		t.Errorf("events %q, want one starting %q", events, want)
	}
}

func TestAnotherWritersMachineConfigIsMeasuredBeforeThePoolNamesItsNextRenderedConfig(t *testing.T) {
	small := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/small", "x"))
	s := newFakeShell(t, []runtime.Object{teamMirrors(1), fixtures.Image(), fixtures.ClusterVersion(fixtures.ReleaseImage)},
		[]runtime.Object{fixtures.Pool("master", true), fixtures.Pool("worker", true), small}, Config{})
	_, ctx := ktesting.NewTestContext(t)
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	// The events of the writes (before them the mirror set, the Image, the ClusterVersion, two pools and 00-worker),
	// and a sync that finds nothing to write: the figures measured are now kept.
	s.waitEvents(t, 8)
	measured := s.ctrl.rendered
	if len(measured) != 2 {
		t.Fatalf("the first sync measured %+v, want both pools", measured)
	}
	s.mc.ClearActions()
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.writes(); len(got) != 0 {
		t.Fatalf("the second sync wrote %v, want nothing", got)
	}
	if len(s.ctrl.rendered) == 0 || &s.ctrl.rendered[0] != &measured[0] {
		t.Error("the sync after the writes measured again what the writes' sync had measured")
	}
	if worker := metricValue(t, s.ctrl.metrics.renderedBytes.WithLabelValues("worker")); worker > 20000 {
		t.Fatalf("rendered size of worker %.0f, want a small one", worker)
	}
	drainEvents(s)

	// Another writer adds 1.4 MB to the worker pool. The pool still names the rendered MachineConfig it had (the
	// render controller has not rendered yet, or its nodes have not all updated): the event alone must bring a sync,
	// and the sync must measure again.
	large := fixtures.MachineConfig("01-worker-large", "worker", fixtures.File("/etc/large", strings.Repeat("x", 1050000)))
	if _, err := s.mc.MachineconfigurationV1().MachineConfigs().Create(ctx, large, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	s.waitEvents(t, 9) // the MachineConfig's event alone brings a sync
	s.mc.ClearActions()
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.writes(); len(got) != 0 {
		t.Errorf("wrote %v, want nothing: the mirror configuration is the same", got)
	}
	if worker := metricValue(t, s.ctrl.metrics.renderedBytes.WithLabelValues("worker")); worker < 1400000 {
		t.Errorf("rendered size of worker %.0f, want over 1.4 MB with the other writer's MachineConfig", worker)
	}
	events := warningEvents(drainEvents(s))
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning MachineConfigNearSizeLimit the rendered MachineConfig of pool worker is ") ||
		!strings.Contains(events[0], "its largest other MachineConfigs: 01-worker-large (") {
		t.Errorf("events %q, want one Warning that the worker pool's rendered MachineConfig is near the limit", events)
	}
}

// The budget is measured again only when what the pools' rendered MachineConfigs are made of changes, not when the
// informer cache lists the same pools and MachineConfigs in another order.
func TestTheRenderedBudgetsKeyDoesNotDependOnTheCachesOrder(t *testing.T) {
	master, worker := fixtures.Pool("master", true), fixtures.Pool("worker", true)
	a := fixtures.MachineConfig("00-worker", "worker", fixtures.File("/etc/a", "a"))
	b := fixtures.MachineConfig("01-master", "master", fixtures.File("/etc/b", "b"))
	one := renderedKey([]*mcfgv1.MachineConfigPool{master, worker}, []*mcfgv1.MachineConfig{a, b})
	other := renderedKey([]*mcfgv1.MachineConfigPool{worker, master}, []*mcfgv1.MachineConfig{b, a})
	if one != other {
		t.Errorf("the same pools and MachineConfigs in another order give another key:\n%s\n%s", one, other)
	}
	changed := b.DeepCopy()
	changed.ResourceVersion = "2"
	if renderedKey([]*mcfgv1.MachineConfigPool{master, worker}, []*mcfgv1.MachineConfig{a, changed}) == one {
		t.Error("another writer's changed MachineConfig gives the same key")
	}
}
