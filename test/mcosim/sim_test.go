package mcosim_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		return cp.CreateBuiltinPools(context.Background())
	})
}

// timeout bounds every wait of these tests.
const timeout = time.Minute

func waitUpdated(t *testing.T, sim *mcosim.Sim, pool string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	rendered, err := sim.WaitUpdated(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	return rendered
}

// applyConfig creates or replaces mc.
func applyConfig(t *testing.T, mc *mcfgv1.MachineConfig) {
	t.Helper()
	configs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()
	existing, err := configs.Get(t.Context(), mc.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = configs.Create(t.Context(), mc, metav1.CreateOptions{})
	case err == nil:
		mc.ResourceVersion = existing.ResourceVersion
		_, err = configs.Update(t.Context(), mc, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// applyGenerated writes the pool's 99-<pool>-generated-registries as the controller does, with registries.conf
// holding contents.
func applyGenerated(t *testing.T, pool, contents string) {
	t.Helper()
	applyConfig(t, fixtures.MachineConfig(machineconfigs.Registries.MachineConfigName(pool), pool, fixtures.File(nodefiles.RegistriesConf, contents)))
}

// poolWatch follows the changes of one pool.
type poolWatch struct {
	t *testing.T
	w watch.Interface
}

// watchPool watches pool from its current state on.
func watchPool(t *testing.T, pool string) *poolWatch {
	t.Helper()
	pools := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools()
	p, err := pools.Get(t.Context(), pool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := pools.Watch(t.Context(), metav1.ListOptions{
		FieldSelector: "metadata.name=" + pool, ResourceVersion: p.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return &poolWatch{t: t, w: w}
}

// until returns the states of the pool up to and including the first one done accepts.
func (pw *poolWatch) until(what string, done func(*mcfgv1.MachineConfigPool) bool) []*mcfgv1.MachineConfigPool {
	pw.t.Helper()
	var seen []*mcfgv1.MachineConfigPool
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-pw.w.ResultChan():
			if !ok {
				pw.t.Fatalf("the watch closed while waiting for %s", what)
			}
			pool, ok := ev.Object.(*mcfgv1.MachineConfigPool)
			if !ok {
				pw.t.Fatalf("watch event %s: %v", ev.Type, ev.Object)
			}
			if seen = append(seen, pool); done(pool) {
				return seen
			}
		case <-deadline:
			pw.t.Fatalf("timed out waiting for %s; last states:\n%s", what, trace(seen[max(len(seen)-5, 0):]))
		}
	}
}

// trace prints pool states one a line, as the tests log them.
func trace(states []*mcfgv1.MachineConfigPool) string {
	var b strings.Builder
	for _, p := range states {
		st := p.Status
		fmt.Fprintf(&b, "gen %d observed %d spec %s status %s machines %d updated %d ready %d unavailable %d degraded %d",
			p.Generation, st.ObservedGeneration, short(p.Spec.Configuration.Name), short(st.Configuration.Name),
			st.MachineCount, st.UpdatedMachineCount, st.ReadyMachineCount, st.UnavailableMachineCount, st.DegradedMachineCount)
		for _, c := range st.Conditions {
			fmt.Fprintf(&b, " %s=%s", c.Type, c.Status)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// short shortens a rendered config name for the logs: rendered-worker-0123456789ab.
func short(name string) string { return name[:min(len(name), len("rendered-worker-")+12)] }

func isTrue(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) bool {
	return mcosim.PoolCondition(pool, t).Status == corev1.ConditionTrue
}

// observes reports whether pool's status is of its spec and spec.configuration is rendered.
func observes(pool *mcfgv1.MachineConfigPool, rendered string) bool {
	return pool.Spec.Configuration.Name == rendered && pool.Status.ObservedGeneration == pool.Generation
}

func getPool(t *testing.T, name string) *mcfgv1.MachineConfigPool {
	t.Helper()
	p, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestARolloutKeepsTheOldConfigInStatusUntilEveryMachineIsUpdated(t *testing.T) {
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: 100 * time.Millisecond})
	old := waitUpdated(t, sim, framework.PoolWorker)
	w := watchPool(t, framework.PoolWorker)

	applyGenerated(t, framework.PoolWorker, "# rollout\n")
	states := w.until("the new config in status", func(p *mcfgv1.MachineConfigPool) bool {
		return p.Status.Configuration.Name != old
	})
	t.Logf("worker pool from %s on:\n%s", short(old), trace(states))
	rendered := states[len(states)-1].Spec.Configuration.Name
	if got := waitUpdated(t, sim, framework.PoolWorker); got != rendered {
		t.Fatalf("WaitUpdated = %s, want %s", got, rendered)
	}

	var counts []int32
	for i, p := range states {
		if !observes(p, rendered) {
			continue
		}
		if c := p.Status.UpdatedMachineCount; len(counts) == 0 || counts[len(counts)-1] != c {
			counts = append(counts, c)
		}
		if last := i == len(states)-1; !last && p.Status.Configuration.Name != old {
			t.Errorf("status.configuration = %s before every machine was updated, want %s", p.Status.Configuration.Name, old)
		}
		if p.Status.UnavailableMachineCount > 1 {
			t.Errorf("%d machines unavailable at once, want at most 1", p.Status.UnavailableMachineCount)
		}
	}
	if want := []int32{0, 1, 2, 3}; !reflect.DeepEqual(counts, want) {
		t.Errorf("updatedMachineCount went %v, want %v", counts, want)
	}
	final := states[len(states)-1]
	if !isTrue(final, mcfgv1.MachineConfigPoolUpdated) || isTrue(final, mcfgv1.MachineConfigPoolUpdating) {
		t.Errorf("at the end Updated=%s Updating=%s, want True, False",
			mcosim.PoolCondition(final, mcfgv1.MachineConfigPoolUpdated).Status, mcosim.PoolCondition(final, mcfgv1.MachineConfigPoolUpdating).Status)
	}
	var source []string
	for _, ref := range final.Status.Configuration.Source {
		source = append(source, ref.Name)
	}
	if want := []string{"00-worker", "99-worker-generated-registries"}; !reflect.DeepEqual(source, want) {
		t.Errorf("status.configuration.source = %q, want %q", source, want)
	}
	assertRenderedConfig(t, rendered, framework.PoolWorker)
	assertFiles(t, sim, framework.PoolWorker, map[string]string{
		nodefiles.RegistriesConf: "# rollout\n", mcosim.BaseFilePath: "worker\n",
	})
}

// assertRenderedConfig checks the metadata MCO gives a rendered config.
func assertRenderedConfig(t *testing.T, name, pool string) {
	t.Helper()
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mc.Annotations[machineconfigs.VersionAnnotation]; got != mcosim.DefaultControllerVersion {
		t.Errorf("%s: annotation %s = %q, want %q", name, machineconfigs.VersionAnnotation, got, mcosim.DefaultControllerVersion)
	}
	owner := getPool(t, pool)
	if refs := mc.OwnerReferences; len(refs) != 1 || refs[0].UID != owner.UID || refs[0].Kind != "MachineConfigPool" {
		t.Errorf("%s: owner references = %+v, want the pool %s", name, refs, pool)
	}
}

// assertFiles checks that the files the pool runs include want.
func assertFiles(t *testing.T, sim *mcosim.Sim, pool string, want map[string]string) {
	t.Helper()
	files, err := sim.RenderedFiles(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	for path, contents := range want {
		if got, ok := files[path]; !ok || string(got) != contents {
			t.Errorf("pool %s: %s = %q (present %t), want %q", pool, path, got, ok, contents)
		}
	}
}

func TestASecondChangeSupersedesARolloutInProgress(t *testing.T) {
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: 300 * time.Millisecond})
	old := waitUpdated(t, sim, framework.PoolWorker)
	w := watchPool(t, framework.PoolWorker)

	applyGenerated(t, framework.PoolWorker, "# first\n")
	states := w.until("a machine updated to the first change", func(p *mcfgv1.MachineConfigPool) bool {
		return p.Spec.Configuration.Name != old && observes(p, p.Spec.Configuration.Name) && p.Status.UpdatedMachineCount == 1
	})
	first := states[len(states)-1].Spec.Configuration.Name
	applyGenerated(t, framework.PoolWorker, "# second\n")
	states = append(states, w.until("the second change in status", func(p *mcfgv1.MachineConfigPool) bool {
		return p.Status.Configuration.Name != old
	})...)
	t.Logf("worker pool from %s on:\n%s", short(old), trace(states))

	second := waitUpdated(t, sim, framework.PoolWorker)
	if got := states[len(states)-1].Status.Configuration.Name; got != second || second == first {
		t.Errorf("status.configuration = %s, want the second change's %s (the first was %s)", got, second, first)
	}
	assertFiles(t, sim, framework.PoolWorker, map[string]string{nodefiles.RegistriesConf: "# second\n"})
}

func TestADegradedMachineStopsTheRollout(t *testing.T) {
	const step = 300 * time.Millisecond
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: step})
	old := waitUpdated(t, sim, framework.PoolWorker)
	w := watchPool(t, framework.PoolWorker)

	applyGenerated(t, framework.PoolWorker, "# degraded\n")
	w.until("a machine updated", func(p *mcfgv1.MachineConfigPool) bool {
		return p.Spec.Configuration.Name != old && observes(p, p.Spec.Configuration.Name) && p.Status.UpdatedMachineCount == 1
	})
	sim.Degrade(framework.PoolWorker, "", "failed to drain node: pod disruption budget")
	states := w.until("NodeDegraded", func(p *mcfgv1.MachineConfigPool) bool {
		return isTrue(p, mcfgv1.MachineConfigPoolNodeDegraded)
	})
	degraded := states[len(states)-1]
	t.Logf("worker pool degraded:\n%s", trace(states))
	msg := mcosim.PoolCondition(degraded, mcfgv1.MachineConfigPoolNodeDegraded).Message
	if !regexp.MustCompile(`^Node worker-[12] is reporting: "failed to drain node: pod disruption budget"$`).MatchString(msg) {
		t.Errorf("NodeDegraded message = %q, want the updating machine reporting the message", msg)
	}
	if !isTrue(degraded, mcfgv1.MachineConfigPoolDegraded) || degraded.Status.DegradedMachineCount != 1 {
		t.Errorf("Degraded = %s, degradedMachineCount = %d; want True, 1",
			mcosim.PoolCondition(degraded, mcfgv1.MachineConfigPoolDegraded).Status, degraded.Status.DegradedMachineCount)
	}
	if _, err := sim.WaitUpdated(t.Context(), framework.PoolWorker); !errors.Is(err, mcosim.ErrDegraded) {
		t.Errorf("WaitUpdated on a degraded pool: %v, want an error wrapping ErrDegraded", err)
	}

	framework.Quiet(t, quietPasses, "a rollout step while degraded", passesOnceDue(sim, step), func() (bool, string) {
		p := getPool(t, framework.PoolWorker)
		return p.Status.UpdatedMachineCount != degraded.Status.UpdatedMachineCount || p.Status.Configuration.Name != old, trace([]*mcfgv1.MachineConfigPool{p})
	})
	now := getPool(t, framework.PoolWorker)
	if now.Status.UpdatedMachineCount != degraded.Status.UpdatedMachineCount || now.Status.Configuration.Name != old {
		t.Errorf("the rollout went on while degraded:\n%s", trace([]*mcfgv1.MachineConfigPool{degraded, now}))
	}

	sim.Heal(framework.PoolWorker)
	waitUpdated(t, sim, framework.PoolWorker)
	if healed := getPool(t, framework.PoolWorker); isTrue(healed, mcfgv1.MachineConfigPoolNodeDegraded) || healed.Status.DegradedMachineCount != 0 {
		t.Errorf("healed pool still degraded:\n%s", trace([]*mcfgv1.MachineConfigPool{healed}))
	}
}

// quietPasses is the least window in which a rollout must not move: two of the simulator's resync periods (1 s),
// in which it makes its passes with nothing to do.
const quietPasses = 2 * time.Second

// passesOnceDue is a witness for framework.Quiet of the simulator's passes that began once a rollout step was due
// (step after Quiet began): a rollout that must not move would have moved in one of them. The first pass that
// finishes may have begun before, so it needs two.
func passesOnceDue(sim *mcosim.Sim, step time.Duration) framework.Witness {
	due := time.Now().Add(step)
	base := int64(-1)
	return framework.Witness{What: "passes of the simulator once a step was due", Need: 2, Count: func() float64 {
		if base < 0 {
			if time.Now().Before(due) {
				return 0
			}
			base = sim.Passes()
		}
		return float64(sim.Passes() - base)
	}}
}

func TestAPausedPoolHoldsItsRollout(t *testing.T) {
	const step = 50 * time.Millisecond
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: step})
	old := waitUpdated(t, sim, framework.PoolWorker)
	sim.Pause(framework.PoolWorker)

	applyGenerated(t, framework.PoolWorker, "# paused\n")
	framework.Eventually(t, 30*time.Second, "the paused pool's new rendered config in spec", func() (bool, string) {
		p := getPool(t, framework.PoolWorker)
		return p.Spec.Configuration.Name != old, p.Spec.Configuration.Name
	})
	framework.Quiet(t, quietPasses, "a rollout step of the paused pool", passesOnceDue(sim, step), func() (bool, string) {
		p := getPool(t, framework.PoolWorker)
		return p.Status.UpdatedMachineCount != 0 || p.Status.Configuration.Name != old, trace([]*mcfgv1.MachineConfigPool{p})
	})
	if p := getPool(t, framework.PoolWorker); p.Spec.Configuration.Name == old || p.Status.UpdatedMachineCount != 0 || p.Status.Configuration.Name != old {
		t.Errorf("paused pool moved:\n%s", trace([]*mcfgv1.MachineConfigPool{p}))
	}
	sim.Resume(framework.PoolWorker)
	waitUpdated(t, sim, framework.PoolWorker)
}

func TestACustomPoolGetsTheWorkerConfigsItSelects(t *testing.T) {
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{Nodes: map[string]int{"infra": 2}})
	infra := &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: "infra"},
		Spec: mcfgv1.MachineConfigPoolSpec{MachineConfigSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: mcfgv1.MachineConfigRoleLabelKey, Operator: metav1.LabelSelectorOpIn, Values: []string{"worker", "infra"},
			}},
		}},
	}
	createPool(t, infra)
	applyGenerated(t, framework.PoolWorker, "# shared with infra\n")
	infraConfig := fixtures.MachineConfig("50-infra", "infra",
		fixtures.File("/etc/infra.conf", "infra only\n"), fixtures.File(mcosim.BaseFilePath, "infra\n"))
	applyConfig(t, infraConfig)
	t.Cleanup(func() { remove(t, infraConfig) })

	waitUpdated(t, sim, "infra")
	assertFiles(t, sim, "infra", map[string]string{
		nodefiles.RegistriesConf: "# shared with infra\n", "/etc/infra.conf": "infra only\n",
		mcosim.BaseFilePath: "infra\n", // 50-infra comes after 00-worker and replaces its file
	})
	p := getPool(t, "infra")
	var source []string
	for _, ref := range p.Status.Configuration.Source {
		source = append(source, ref.Name)
	}
	if want := []string{"00-worker", "50-infra", "99-worker-generated-registries"}; !reflect.DeepEqual(source, want) {
		t.Errorf("status.configuration.source = %q, want %q", source, want)
	}
	if p.Status.MachineCount != 2 || p.Status.UpdatedMachineCount != 2 {
		t.Errorf("machineCount %d, updatedMachineCount %d; want 2, 2", p.Status.MachineCount, p.Status.UpdatedMachineCount)
	}

	waitUpdated(t, sim, framework.PoolWorker)
	files, err := sim.RenderedFiles(t.Context(), framework.PoolWorker)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["/etc/infra.conf"]; ok {
		t.Errorf("the worker pool runs the infra pool's file")
	}
}

func TestAPoolNothingSelectsIsRenderDegraded(t *testing.T) {
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{})
	createPool(t, &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: "empty"},
		Spec: mcfgv1.MachineConfigPoolSpec{MachineConfigSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: "empty"},
		}},
	})
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	_, err := sim.WaitUpdated(ctx, "empty")
	want := "RenderDegraded: Failed to render configuration for pool empty: no MachineConfigs found matching selector machineconfiguration.openshift.io/role=empty"
	if !errors.Is(err, mcosim.ErrDegraded) || !strings.Contains(err.Error(), want) {
		t.Errorf("WaitUpdated: %v, want an ErrDegraded saying %q", err, want)
	}
}

// As MCO's render controller, the simulator refuses a pool one of whose MachineConfigs names another build in the
// generated-by-controller-version annotation, and renders it again once the annotation is gone.
func TestAMachineConfigOfAnotherBuildMakesThePoolRenderDegraded(t *testing.T) {
	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: 10 * time.Millisecond})
	before := waitUpdated(t, sim, framework.PoolWorker)
	mc := fixtures.MachineConfig("50-worker-other-build", framework.PoolWorker, fixtures.File("/etc/other-build", "x"))
	mc.Annotations = map[string]string{machineconfigs.VersionAnnotation: "v0.1.0"}
	applyConfig(t, mc)
	t.Cleanup(func() { remove(t, mc) })
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	_, err := sim.WaitUpdated(ctx, framework.PoolWorker)
	want := "RenderDegraded: Failed to render configuration for pool worker: ignoring MC 50-worker-other-build generated by older version v0.1.0 (my version: mcosim)"
	if !errors.Is(err, mcosim.ErrDegraded) || !strings.Contains(err.Error(), want) {
		t.Errorf("WaitUpdated: %v, want an ErrDegraded saying %q", err, want)
	}
	if got := getPool(t, framework.PoolWorker).Spec.Configuration.Name; got != before {
		t.Errorf("the pool moved to %s, want it kept on %s", got, before)
	}

	mc = fixtures.MachineConfig("50-worker-other-build", framework.PoolWorker, fixtures.File("/etc/other-build", "x"))
	applyConfig(t, mc) // without the annotation
	if after := waitUpdated(t, sim, framework.PoolWorker); after == before {
		t.Errorf("the pool stayed on %s once the annotation was gone", before)
	}
	assertFiles(t, sim, framework.PoolWorker, map[string]string{"/etc/other-build": "x"})
}

// createPool creates pool and deletes it when the test ends.
func createPool(t *testing.T, pool *mcfgv1.MachineConfigPool) {
	t.Helper()
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Create(t.Context(), pool, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remove(t, pool) })
}

// remove deletes a pool or a MachineConfig.
func remove(t *testing.T, obj metav1.Object) {
	client := cp.MachineConfig.MachineconfigurationV1()
	var err error
	switch obj.(type) {
	case *mcfgv1.MachineConfigPool:
		err = client.MachineConfigPools().Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{})
	case *mcfgv1.MachineConfig:
		err = client.MachineConfigs().Delete(context.Background(), obj.GetName(), metav1.DeleteOptions{})
	}
	if err != nil {
		t.Error(err)
	}
}
