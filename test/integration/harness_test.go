package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2/ktesting"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/controller"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	masterMC = "99-master-generated-registries"
	workerMC = "99-worker-generated-registries"
)

// running is a controller started in this process for one test.
type running struct {
	metrics *prometheus.Registry
	health  *controller.Health
	stop    func()
}

// startInProcess runs the real controller shell in the test's process (not the binary, which
// framework.StartController runs) against the control plane, wired by NewRuntime as `start` wires it, with the given
// REST config (e.g. impersonating the ServiceAccount) and settle delay. It stops with the test.
func startInProcess(t testing.TB, cfg *rest.Config, settle, resync time.Duration) *running {
	t.Helper()
	return startInProcessWith(t, cfg, controller.Config{SettleDelay: settle}, resync)
}

// startInProcessWith is startInProcess with the whole configuration of the controller.
func startInProcessWith(t testing.TB, cfg *rest.Config, conf controller.Config, resync time.Duration) *running {
	t.Helper()
	registry := prometheus.NewRegistry()
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	rt, err := controller.NewRuntime(ctx, cfg, resync, registry, conf)
	if err != nil {
		t.Fatal(err)
	}
	rt.Start(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := rt.Controller.Run(ctx); err != nil {
			t.Errorf("controller: %v", err)
		}
	}()
	var once sync.Once
	r := &running{metrics: registry, health: rt.Health, stop: func() {
		once.Do(func() {
			cancel()
			<-done
			rt.Shutdown()
		})
	}}
	t.Cleanup(r.stop)
	return r
}

// counter returns the value of a counter (or gauge) of the controller's registry, summed over the series
// whose labels include want.
func (r *running) counter(t testing.TB, name string, want map[string]string) float64 {
	t.Helper()
	families, err := r.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if hasLabels(m, want) {
				sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

// syncs is a witness of the controller's syncs for framework.Quiet: it needs need more.
func (r *running) syncs(t testing.TB, need float64) framework.Witness {
	return framework.Witness{What: "syncs of the controller", Need: need, Count: func() float64 {
		return r.counter(t, "registries_controller_syncs_total", nil)
	}}
}

// pokedSync is cp.PokedSync of the controller: one sync after a new label on the worker pool (cp.PokePool), which
// changes nothing the controller renders. The controller has one queue key, so that sync runs after every event
// before the label: once it ran, whatever those events would write is written.
func (r *running) pokedSync(t testing.TB) framework.Witness {
	return cp.PokedSync(t, "the controller", func() float64 { return r.counter(t, "registries_controller_syncs_total", nil) })
}

// settle waits until the controller has synced after a change it makes now (the label pokedSync sets): the
// writes that every earlier event leads to are over. A settling wait before counting writes, not a negative wait.
func (r *running) settle(t testing.TB) {
	t.Helper()
	w := r.pokedSync(t)
	from := w.Count()
	w.Start()
	framework.Eventually(t, 30*time.Second, w.What, func() (bool, string) {
		n := w.Count() - from
		return n >= w.Need, fmt.Sprint(n)
	})
}

func hasLabel(m *dto.Metric, name string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return true
		}
	}
	return false
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// writeCounter counts the writes the API server reports for the generated MachineConfigs, from a watch:
// every create, update or delete is one event, whoever sent it.
type writeCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func countWrites(t testing.TB) *writeCounter {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	list, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	c := &writeCounter{counts: map[string]int{}}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			mc, ok := ev.Object.(*mcfgv1.MachineConfig)
			if !ok || (ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted) {
				continue
			}
			c.mu.Lock()
			c.counts[mc.Name]++
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *writeCounter) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[name]
}

// registriesConf reads the pool's generated registries.conf from the cluster, decoded into the
// containers/image model; nil when the MachineConfig or the file does not exist.
func registriesConf(t testing.TB, name string) *sysregistriesv2.V2RegistriesConf {
	t.Helper()
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	data, ok := framework.MustNodeFiles(t, mc)["/etc/containers/registries.conf"]
	if !ok {
		return nil
	}
	conf := &sysregistriesv2.V2RegistriesConf{}
	if _, err := toml.Decode(data, conf); err != nil {
		t.Fatalf("%s: registries.conf does not decode: %v", name, err)
	}
	return conf
}

// entry returns the [[registry]] entry with the given location or prefix, or nil.
func entry(conf *sysregistriesv2.V2RegistriesConf, scope string) *sysregistriesv2.Registry {
	if conf == nil {
		return nil
	}
	for i := range conf.Registries {
		r := &conf.Registries[i]
		if r.Location == scope || r.Prefix == scope {
			return r
		}
	}
	return nil
}

func mirrorLocations(r *sysregistriesv2.Registry) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, m := range r.Mirrors {
		out = append(out, m.Location+"("+m.PullFromMirror+")")
	}
	return out
}

// waitForEntry waits until both pools' registries.conf satisfy check for the entry of scope.
func waitForEntry(t testing.TB, scope string, what string, check func(*sysregistriesv2.Registry) bool) {
	t.Helper()
	framework.Eventually(t, 20*time.Second, what, func() (bool, string) {
		var seen []string
		for _, name := range []string{masterMC, workerMC} {
			e := entry(registriesConf(t, name), scope)
			if !check(e) {
				return false, fmt.Sprintf("%s: %+v", name, e)
			}
			seen = append(seen, fmt.Sprint(mirrorLocations(e)))
		}
		return true, strings.Join(seen, " ")
	})
}

// scheme knows the kinds the tests apply.
var scheme = controller.Scheme()

// apply applies objects built with test/fixtures with the bundled kubectl, as YAML, as an admin would.
func apply(t testing.TB, objs ...runtime.Object) {
	t.Helper()
	var docs []string
	for _, obj := range objs {
		obj = obj.DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			t.Fatal(err)
		}
		m.SetUID("") // the fixtures' UIDs are for tests without an API server
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			gvks, _, err := scheme.ObjectKinds(obj)
			if err != nil {
				t.Fatal(err)
			}
			obj.GetObjectKind().SetGroupVersionKind(gvks[0])
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	kubectlApply(t, strings.Join(docs, "---\n"))
}

// kubectlApply applies YAML with the bundled kubectl, as an admin would.
func kubectlApply(t testing.TB, yaml string) {
	t.Helper()
	if _, stderr, err := cp.Kubectl(context.Background(), strings.NewReader(yaml), "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
}

// events returns the events recorded about the named object with the given reason.
func events(t testing.TB, name, reason string) []corev1.Event {
	t.Helper()
	list, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + name + ",reason=" + reason,
	})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// controllerBinary returns the registries-controller binary (framework.ControllerBinary: $REGISTRIES_CONTROLLER_BIN,
// set by make test, or one built for this test run).
func controllerBinary(t testing.TB) string {
	t.Helper()
	bin, err := framework.ControllerBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// gauge returns the value of the series of a gauge of the controller's registry with the label pool (and the output
// registries, for a gauge per output); -1 when there is none.
func (r *running) gauge(t testing.TB, name, pool string) float64 {
	t.Helper()
	if m := r.series(t, name, pool); m != nil {
		return m.GetGauge().GetValue()
	}
	return -1
}

// histogramCount returns how many observations the series of a histogram with the label pool holds.
func (r *running) histogramCount(t testing.TB, name, pool string) uint64 {
	t.Helper()
	if m := r.series(t, name, pool); m != nil {
		return m.GetHistogram().GetSampleCount()
	}
	return 0
}

func (r *running) series(t testing.TB, name, pool string) *dto.Metric {
	t.Helper()
	families, err := r.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			// A series per output: the registries one, which every test writes.
			if hasLabels(m, map[string]string{"pool": pool}) && (!hasLabel(m, "output") || hasLabels(m, map[string]string{"output": "registries"})) {
				return m
			}
		}
	}
	return nil
}
