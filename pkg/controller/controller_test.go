package controller

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	operatorfake "github.com/openshift/client-go/operator/clientset/versioned/fake"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// fakeShell is the controller wired to fake clientsets: enough for the shell's own logic. Its behaviour
// against a real API server is tested in test/integration.
type fakeShell struct {
	ctrl     *Controller
	mc       *mcfgfake.Clientset
	config   *configfake.Clientset
	status   *dynamicfake.FakeDynamicClient
	recorder *record.FakeRecorder
}

// statusForwarder returns a dynamic client for the controller's status writes that puts each write into the
// config clientset's tracker, so that the informers see it as they would from an API server.
func statusForwarder(cfg *configfake.Clientset) *dynamicfake.FakeDynamicClient {
	dyn := dynamicfake.NewSimpleDynamicClient(Scheme())
	dyn.PrependReactor("update", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u := a.(clienttesting.UpdateAction).GetObject().(*unstructured.Unstructured)
		k := inputs.KindOf(u.GetAPIVersion(), u.GetKind())
		obj := k.New()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			return true, nil, err
		}
		if _, err := cfg.Tracker().Get(k.GroupVersionResource(), u.GetNamespace(), u.GetName()); err != nil {
			return true, nil, err
		}
		return true, u, cfg.Tracker().Update(k.GroupVersionResource(), obj, u.GetNamespace())
	})
	return dyn
}

func newFakeShell(t *testing.T, configObjs, mcObjs []runtime.Object, conf Config) *fakeShell {
	t.Helper()
	cfg := configfake.NewClientset(configObjs...)
	op := operatorfake.NewClientset()
	mc := mcfgfake.NewClientset(mcObjs...)
	inf := cluster.InformersFor(cfg, op, mc, 0)
	recorder := record.NewFakeRecorder(100)
	status := statusForwarder(cfg)
	ctrl, err := newController(clients{MachineConfigs: mc.MachineconfigurationV1(), Status: status}, inf, recorder, newMetrics(prometheus.NewRegistry()), conf)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ctrl.queue.ShutDown() })
	ctrl.reader.Start(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ctrl.reader.Fill(ctx, func(*inputs.Kind) bool { return true }); err != nil {
		t.Fatal(err)
	}
	return &fakeShell{ctrl: ctrl, mc: mc, config: cfg, status: status, recorder: recorder}
}

// syncAndReport runs one sync and reports it, as processNextWorkItem does.
func (s *fakeShell) syncAndReport(ctx context.Context) error {
	res, err := s.ctrl.sync(ctx)
	s.ctrl.status.report(ctx, res, err)
	return err
}

// cached returns the informer cache's object of a kind.
func (s *fakeShell) cached(t *testing.T, kind, name string) runtime.Object {
	t.Helper()
	informer := s.ctrl.reader.Informer(inputs.KindNamed(kind))
	if informer == nil {
		t.Fatalf("no source of kind %s", kind)
	}
	o, ok, err := informer.GetIndexer().GetByKey(name)
	if err != nil || !ok {
		t.Fatalf("%s %s not in the cache: %v", kind, name, err)
	}
	return o.(runtime.Object)
}

// writes returns the create, update and delete actions sent to the MachineConfig client.
func (s *fakeShell) writes() []string {
	var out []string
	for _, a := range s.mc.Actions() {
		if a.GetResource().Resource == "machineconfigs" && (a.GetVerb() == "create" || a.GetVerb() == "update" || a.GetVerb() == "delete") {
			name := ""
			if o, ok := a.(clienttesting.CreateAction); ok {
				name = o.GetObject().(interface{ GetName() string }).GetName()
			}
			if o, ok := a.(clienttesting.UpdateAction); ok {
				name = o.GetObject().(interface{ GetName() string }).GetName()
			}
			out = append(out, a.GetVerb()+" "+name)
		}
	}
	return out
}

// sorted returns a sorted copy of ss.
func sorted(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

// cachedObjects returns every object the informer caches of the input kinds hold, and deep copies of them.
func (s *fakeShell) cachedObjects() (objects, copies []runtime.Object) {
	for _, k := range inputs.Kinds {
		informer := s.ctrl.reader.Informer(k)
		if informer == nil {
			continue
		}
		for _, o := range informer.GetIndexer().List() {
			obj := o.(runtime.Object)
			objects, copies = append(objects, obj), append(copies, obj.DeepCopyObject())
		}
	}
	return objects, copies
}

func TestSyncWritesOnceAndThenNothing(t *testing.T) {
	idms := fixtures.IDMS("team", fixtures.Mirror("quay.io/team", "m.local/team"))
	key := fixtures.PublicKey([]byte("-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n"))
	s := newFakeShell(t, []runtime.Object{idms, fixtures.Image(fixtures.Insecure("lab.local")), fixtures.ITMS("tools", fixtures.Mirror("quay.io/tools", "m.local/tools")),
		fixtures.CIP("signed", key, "quay.io/signed"), fixtures.IP("team-a", "own", key, "quay.io/signed/app"),
		fixtures.ClusterVersion(fixtures.ReleaseImage), fixtures.Infrastructure("AWS"), fixtures.CRIOCredentialProviderConfig("registry.example.com")},
		[]runtime.Object{fixtures.Pool("master", true), fixtures.Pool("worker", true)}, Config{})
	cached, before := s.cachedObjects()
	if len(cached) != 10 {
		t.Fatalf("%d objects cached, want the 10 given", len(cached))
	}
	_, ctx := ktesting.NewTestContext(t)

	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	// The pools' writes go out concurrently (apply): in any order.
	want := []string{"create 97-master-generated-credentialproviderconfig", "create 97-worker-generated-credentialproviderconfig",
		"create 99-master-generated-registries", "create 99-worker-generated-registries"}
	if got := s.writes(); !reflect.DeepEqual(sorted(got), want) {
		t.Fatalf("first sync wrote %v, want %v", got, want)
	}
	for i := range cached {
		if !reflect.DeepEqual(cached[i], before[i]) {
			t.Errorf("the sync modified the informer cache's %T", cached[i])
		}
	}
	// Wait for the informer to see the created objects, then sync again: nothing to write.
	framework.Eventually(t, 5*time.Second, "the informer to hold 4 MachineConfigs", func() (bool, string) {
		l, _ := s.ctrl.configs.List(labels.Everything())
		return len(l) == 4, fmt.Sprint(len(l))
	})
	s.mc.ClearActions()
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.writes(); len(got) != 0 {
		t.Errorf("a sync with nothing changed wrote %v", got)
	}
}

func TestInvalidInputWritesNothingAndRecordsOneWarning(t *testing.T) {
	bad := fixtures.IDMS("bad", fixtures.Mirror("quay.io/bad", "https://m.local/bad"))
	s := newFakeShell(t, []runtime.Object{bad}, nil, Config{})
	_, ctx := ktesting.NewTestContext(t)
	for range 3 {
		if err := s.syncAndReport(ctx); err != nil {
			t.Fatalf("invalid input must not be retried as an error: %v", err)
		}
	}
	if got := s.writes(); len(got) != 0 {
		t.Errorf("wrote %v for invalid input", got)
	}
	close(s.recorder.Events)
	var events []string
	for e := range s.recorder.Events {
		events = append(events, e)
	}
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning InvalidMirrorConfiguration") || !strings.Contains(events[0], "must not carry a scheme") {
		t.Errorf("events %q, want one Warning naming the problem", events)
	}
}

func TestSettlingWaitsUntilTheInputsAreQuiet(t *testing.T) {
	clock := clocktesting.NewFakeClock(time.Unix(1000, 0))
	s := newFakeShell(t, nil, nil, Config{Clock: clock, SettleDelay: time.Second, MaxSettleDelay: 3 * time.Second})
	s.ctrl.settleMu.Lock()
	s.ctrl.firstEvent = time.Time{} // the informers' initial events started a burst; start from none
	s.ctrl.settleMu.Unlock()

	s.ctrl.enqueue()
	clock.Step(100 * time.Millisecond)
	if d, ahead := s.ctrl.settling(); d != 150*time.Millisecond || ahead {
		t.Errorf("0.1s after an event: wait %v more (render ahead: %t), want 0.15s until the inputs may be rendered ahead", d, ahead)
	}
	clock.Step(300 * time.Millisecond)
	if d, ahead := s.ctrl.settling(); d != 600*time.Millisecond || !ahead {
		t.Errorf("0.4s after an event: wait %v more (render ahead: %t), want 0.6s and a render ahead", d, ahead)
	}
	if d, ahead := s.ctrl.settling(); d != 600*time.Millisecond || ahead {
		t.Errorf("asked again: wait %v more (render ahead: %t), want 0.6s and no second render ahead", d, ahead)
	}
	// A stream of events every 0.7s: rendered ahead once in the burst, not after each event.
	clock.Step(700 * time.Millisecond)
	s.ctrl.enqueue()
	clock.Step(300 * time.Millisecond)
	if d, ahead := s.ctrl.settling(); d != 700*time.Millisecond || ahead {
		t.Errorf("0.3s after the next event of the burst: wait %v more (render ahead: %t), want 0.7s and no render ahead", d, ahead)
	}
	clock.Step(400 * time.Millisecond)
	s.ctrl.enqueue()
	for range 2 {
		clock.Step(700 * time.Millisecond)
		s.ctrl.enqueue()
	}
	if d, _ := s.ctrl.settling(); d != 0 {
		t.Errorf("after 3.2s of continuous events: wait %v more, want 0 (the 3s bound)", d)
	}
	clock.Step(time.Second)
	if d, _ := s.ctrl.settling(); d != 0 {
		t.Errorf("after a quiet second: wait %v, want 0", d)
	}
	s.ctrl.enqueue() // a new burst is rendered ahead again
	clock.Step(300 * time.Millisecond)
	if d, ahead := s.ctrl.settling(); d != 700*time.Millisecond || !ahead {
		t.Errorf("0.3s after the event of a new burst: wait %v more (render ahead: %t), want 0.7s and a render ahead", d, ahead)
	}
}

// TestAFailedWriteDoesNotKeepTheOtherPoolsWaiting fixes MCO's behaviour of stopping at the first pool whose
// MachineConfig cannot be written: the other pools' MachineConfigs are written, and the error is returned for a
// retry.
func TestAFailedWriteDoesNotKeepTheOtherPoolsWaiting(t *testing.T) {
	s := newFakeShell(t, []runtime.Object{fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a"))},
		[]runtime.Object{fixtures.Pool("master", true), fixtures.Pool("worker", true)}, Config{})
	s.mc.PrependReactor("create", "machineconfigs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.CreateAction).GetObject().(metav1.Object).GetName() == "99-master-generated-registries" {
			return true, nil, apierrors.NewInternalError(errors.New("admission webhook refused it"))
		}
		return false, nil, nil
	})
	_, ctx := ktesting.NewTestContext(t)
	res, err := s.ctrl.sync(ctx)
	if err == nil || !strings.Contains(err.Error(), "99-master-generated-registries") || res.outcome != OutcomeError {
		t.Fatalf("outcome %s, error %v; want the master write's error", res.outcome, err)
	}
	if got := s.writes(); !slices.Contains(got, "create 99-worker-generated-registries") {
		t.Errorf("writes %v: the worker pool waited for the master", got)
	}
}

// countingChecker counts the renders that reach the load-back.
type countingChecker struct {
	render.Checker
	calls int
}

func (c *countingChecker) Check(files nodefiles.Files) (int, error) {
	c.calls++
	return c.Checker.Check(files)
}

// TestASyncOfUnchangedInputsRendersNothing: a resync, or an event of a pool's status, finds the same versions of
// the same objects and reuses the last render: no merge, no load-back, no encode, no decode.
func TestASyncOfUnchangedInputsRendersNothing(t *testing.T) {
	checker := &countingChecker{Checker: registriesconf.NewChecker()}
	idms := fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a"))
	pool := fixtures.Pool("worker", true)
	idms.ResourceVersion, pool.ResourceVersion = "1", "1" // the fake clientset sets none; an API server always does
	s := newFakeShell(t, []runtime.Object{idms}, []runtime.Object{pool}, Config{Checker: checker})
	_, ctx := ktesting.NewTestContext(t)
	for range 3 {
		if err := s.syncAndReport(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if checker.calls != 1 {
		t.Errorf("%d renders for three syncs of the same inputs, want 1", checker.calls)
	}
	changed := idms.DeepCopy()
	changed.ResourceVersion = "2"
	changed.Spec.ImageDigestMirrors[0].Mirrors = append(changed.Spec.ImageDigestMirrors[0].Mirrors, "m2.local/a")
	if _, err := s.config.ConfigV1().ImageDigestMirrorSets().Update(ctx, changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, "the informer to see the second mirror", func() (bool, string) {
		mirrors := s.ctrl.reader.Inputs().ImageDigestMirrorSets[0].Spec.ImageDigestMirrors[0].Mirrors
		return len(mirrors) == 2, fmt.Sprint(mirrors)
	})
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if checker.calls != 2 {
		t.Errorf("a changed object rendered %d times in all, want 2", checker.calls)
	}
}

// TestAnUpdateWhoseRetryFindsTheObjectInLineWritesNothing: an update refused with a conflict (the cache was behind,
// e.g. the controller's own write not yet seen) is retried on the object read again; when that one already says what
// the render says, nothing was written. The client returns an empty object with the conflict, which was taken for
// a write before: a "revert" of an unknown writer, reported with an event on a MachineConfig without a name.
func TestAnUpdateWhoseRetryFindsTheObjectInLineWritesNothing(t *testing.T) {
	s := newFakeShell(t, []runtime.Object{fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m1.local/a"))},
		[]runtime.Object{fixtures.Pool("master", true), fixtures.Pool("worker", true)}, Config{})
	_, ctx := ktesting.NewTestContext(t)
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, "the informer to hold 2 MachineConfigs", func() (bool, string) {
		l, _ := s.ctrl.configs.List(labels.Everything())
		return len(l) == 2, fmt.Sprint(len(l))
	})
	changed := fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m2.local/a"))
	if _, err := s.config.ConfigV1().ImageDigestMirrorSets().Update(ctx, changed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, "the informer to see the changed mirror", func() (bool, string) {
		o := s.cached(t, inputs.KindImageDigestMirrorSet, "a").(*configv1.ImageDigestMirrorSet)
		return o.Spec.ImageDigestMirrors[0].Mirrors[0] == "m2.local/a", string(o.Spec.ImageDigestMirrors[0].Mirrors[0])
	})
	// The worker's MachineConfig already holds the new content on the server; the cache still has the old one.
	conflicts := 0
	s.mc.PrependReactor("update", "machineconfigs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.UpdateAction).GetObject().(*mcfgv1.MachineConfig)
		if obj.Name != "99-worker-generated-registries" || conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		if err := s.mc.Tracker().Update(mcfgv1.GroupVersion.WithResource("machineconfigs"), obj.DeepCopy(), ""); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(mcfgv1.GroupVersion.WithResource("machineconfigs").GroupResource(), obj.Name, errors.New("the object has been modified"))
	})
	s.mc.ClearActions()
	res, err := s.ctrl.sync(ctx)
	s.ctrl.status.report(ctx, res, err)
	if err != nil || conflicts != 1 {
		t.Fatalf("sync: %v, %d conflicts", err, conflicts)
	}
	var written []string
	for _, w := range res.writes {
		name := ""
		if w.object != nil {
			name = w.object.Name
		}
		written = append(written, fmt.Sprintf("%s %s (object %q, revert %v)", w.op, w.key.Name(), name, w.revert != nil))
	}
	if want := []string{`update 99-master-generated-registries (object "99-master-generated-registries", revert false)`}; !reflect.DeepEqual(written, want) {
		t.Errorf("writes reported %q, want %q", written, want)
	}
	close(s.recorder.Events)
	for e := range s.recorder.Events {
		if strings.Contains(e, reasons.MachineConfigOverwritten) {
			t.Errorf("event %q", e)
		}
	}
}
