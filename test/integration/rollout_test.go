package integration

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

// simStep is how long one machine of the simulated MCO takes to update: a pool of 3 rolls in about 0.2s.
const simStep = 50 * time.Millisecond

// startSim runs the MCO simulator (rendered configs, pool status) for one test.
func startSim(t *testing.T) *mcosim.Sim {
	t.Helper()
	return mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: simStep})
}

// rolledOut matches a RolledOut message and captures the pool and rendered config.
var rolledOut = regexp.MustCompile(`^live on pool (\w+): 3/3 nodes on (rendered-\w+-[0-9a-f]{32}), \d+(m\d+)?s after the change(; deleted: .*)?$`)

// rolloutEvents returns the messages of the events with reason about the object named name, by pool, checking that
// each has the given type.
func rolloutEvents(t *testing.T, name, reason, eventType string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, e := range events(t, name, reason) {
		if e.Type != eventType {
			t.Errorf("%s event on %s is %s, want %s: %s", reason, name, e.Type, eventType, e.Message)
		}
		pool := "?"
		if m := regexp.MustCompile(`on pool (\w+)`).FindStringSubmatch(e.Message); m != nil {
			pool = m[1]
		}
		for range max(e.Count, 1) {
			out[pool] = append(out[pool], e.Message)
		}
	}
	return out
}

// waitRolledOut waits until the object named name has n RolledOut events for the worker pool and at least one for
// master, and returns them by pool. (A change made in two syncs rolls master twice while worker is held.)
func waitRolledOut(t *testing.T, name string, n int) map[string][]string {
	t.Helper()
	var got map[string][]string
	framework.Eventually(t, 30*time.Second, "RolledOut events on "+name, func() (bool, string) {
		got = rolloutEvents(t, name, "RolledOut", "Normal")
		return len(got[framework.PoolMaster]) >= 1 && len(got[framework.PoolWorker]) == n, fmt.Sprint(got)
	})
	return got
}

// statusConfig returns the rendered config the pool's status names.
func statusConfig(t *testing.T, pool string) string {
	t.Helper()
	p, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Get(context.Background(), pool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Status.Configuration.Name
}

// checkRolledOut checks that msg is a RolledOut message for pool naming the rendered config its status names.
func checkRolledOut(t *testing.T, msg, pool string) {
	t.Helper()
	m := rolledOut.FindStringSubmatch(msg)
	if m == nil || m[1] != pool {
		t.Errorf("RolledOut message %q: not of the form %q for pool %s", msg, rolledOut, pool)
		return
	}
	if status := statusConfig(t, pool); m[2] != status {
		t.Errorf("RolledOut names %s, the pool's status %s", m[2], status)
	}
}

func TestARolloutIsReportedOnTheImageAndTheObjectsChangedOnceLive(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(fixtures.Insecure("lab.local:5000")),
		fixtures.IDMS("steady", fixtures.Mirror("quay.io/steady", "m.local/steady")),
		fixtures.IDMS("old", fixtures.Mirror("quay.io/old", "m.local/old")))
	sim := startSim(t)
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)

	// The first write after the start is attributed to the Image alone.
	for pool, msgs := range waitRolledOut(t, "cluster", 1) {
		checkRolledOut(t, msgs[0], pool)
	}
	for _, name := range []string{"steady", "old"} {
		if got := events(t, name, "RolledOut"); len(got) != 0 {
			t.Errorf("the first write was attributed to %s: %v", name, got[0].Message)
		}
	}
	framework.Eventually(t, 10*time.Second, "rollout_pending 0 for both pools", func() (bool, string) {
		m, w := ctrl.gauge(t, "registries_controller_rollout_pending", "master"), ctrl.gauge(t, "registries_controller_rollout_pending", "worker")
		return m == 0 && w == 0, fmt.Sprint(m, w)
	})
	if n := ctrl.histogramCount(t, "registries_controller_rollout_duration_seconds", "worker"); n != 1 {
		t.Errorf("rollout_duration_seconds{pool=worker} observed %d times, want 1", n)
	}

	// A change while the worker pool is paused: pending there, live on master.
	sim.Pause(framework.PoolWorker)
	apply(t, fixtures.IDMS("team-a", fixtures.Mirror("quay.io/team-a", "m.local/team-a")))
	cp.RunKubectl(t, "delete", "imagedigestmirrorset", "old")
	framework.Eventually(t, 20*time.Second, "rollout_pending 1 for the paused worker pool, 0 for master", func() (bool, string) {
		m, w := ctrl.gauge(t, "registries_controller_rollout_pending", "master"), ctrl.gauge(t, "registries_controller_rollout_pending", "worker")
		master := rolloutEvents(t, "team-a", "RolledOut", "Normal")[framework.PoolMaster]
		return m == 0 && w == 1 && len(master) >= 1, fmt.Sprint(m, w, master)
	})
	framework.Quiet(t, time.Second, "a RolledOut event for the paused worker pool", ctrl.pokedSync(t), func() (bool, string) {
		got := rolloutEvents(t, "team-a", "RolledOut", "Normal")[framework.PoolWorker]
		return len(got) != 0, fmt.Sprint(got)
	})
	if got := rolloutEvents(t, "team-a", "RolledOut", "Normal")[framework.PoolWorker]; len(got) != 0 {
		t.Fatalf("RolledOut for the paused worker pool: %v", got)
	}
	sim.Resume(framework.PoolWorker)

	got := waitRolledOut(t, "team-a", 1)
	checkRolledOut(t, got[framework.PoolWorker][0], framework.PoolWorker)
	deleted := 0
	for _, msg := range waitRolledOut(t, "cluster", 2)[framework.PoolWorker] {
		if strings.HasSuffix(msg, `; deleted: ImageDigestMirrorSet "old"`) {
			checkRolledOut(t, msg, framework.PoolWorker)
			deleted++
		}
	}
	if deleted != 1 {
		t.Errorf("the Image's events for pool worker name the deleted object %d times, want once", deleted)
	}
	if got := events(t, "steady", "RolledOut"); len(got) != 0 {
		t.Errorf("an unchanged object got a RolledOut event: %s", got[0].Message)
	}
	framework.Eventually(t, 10*time.Second, "rollout_pending 0 again", func() (bool, string) {
		w := ctrl.gauge(t, "registries_controller_rollout_pending", "worker")
		return w == 0, fmt.Sprint(w)
	})
	if n := ctrl.histogramCount(t, "registries_controller_rollout_duration_seconds", "worker"); n != 2 {
		t.Errorf("rollout_duration_seconds{pool=worker} observed %d times, want 2", n)
	}
	t.Logf("worker: %s", got[framework.PoolWorker][0])
}

func TestADegradedPoolIsReportedAndALaterWriteSupersedesTheRollout(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image())
	sim := startSim(t)
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitRolledOut(t, "cluster", 1)

	// Two writes while the worker pool is held and then degraded: the first is never reported as live there.
	sim.Pause(framework.PoolWorker)
	apply(t, fixtures.IDMS("first", fixtures.Mirror("quay.io/first", "m.local/first")))
	framework.Eventually(t, 20*time.Second, "the first change live on master", func() (bool, string) {
		got := rolloutEvents(t, "first", "RolledOut", "Normal")
		return len(got[framework.PoolMaster]) == 1, fmt.Sprint(got)
	})
	sim.Degrade(framework.PoolWorker, "", "disk full")
	sim.Resume(framework.PoolWorker)
	want := `not live on pool worker, the pool is degraded: NodeDegraded: Node worker-0 is reporting: "disk full"`
	for _, name := range []string{"cluster", "first"} {
		framework.Eventually(t, 20*time.Second, "RolloutDegraded on "+name, func() (bool, string) {
			got := rolloutEvents(t, name, "RolloutDegraded", "Warning")[framework.PoolWorker]
			return len(got) == 1 && got[0] == want, fmt.Sprint(got)
		})
	}

	apply(t, fixtures.IDMS("second", fixtures.Mirror("quay.io/second", "m.local/second")))
	framework.Eventually(t, 20*time.Second, "the second change live on master", func() (bool, string) {
		got := rolloutEvents(t, "second", "RolledOut", "Normal")
		return len(got[framework.PoolMaster]) == 1, fmt.Sprint(got)
	})
	sim.Heal(framework.PoolWorker)

	// One success on worker, for the second write, naming the objects of both.
	for _, name := range []string{"first", "second"} {
		got := waitRolledOut(t, name, 1)
		checkRolledOut(t, got[framework.PoolWorker][0], framework.PoolWorker)
	}
	wantRolledOut := map[string]int{"cluster": 2, "first": 1, "second": 1} // the Image: the start, then the second write
	framework.Quiet(t, time.Second, "a stale RolledOut event", ctrl.pokedSync(t), func() (bool, string) {
		for name, n := range wantRolledOut {
			if got := rolloutEvents(t, name, "RolledOut", "Normal")[framework.PoolWorker]; len(got) > n {
				return true, fmt.Sprintf("on %s for the worker pool: %q, want %d", name, got, n)
			}
		}
		return false, "no more RolledOut events than expected"
	})
	for name, n := range wantRolledOut {
		got := rolloutEvents(t, name, "RolledOut", "Normal")[framework.PoolWorker]
		if len(got) != n {
			t.Errorf("RolledOut events on %s for the worker pool: %q, want %d", name, got, n)
		}
		checkRolledOut(t, got[len(got)-1], framework.PoolWorker)
	}
	// The second write, made while the pool was degraded, was told so; those told before were not told again.
	for _, name := range []string{"cluster", "first", "second"} {
		if got := rolloutEvents(t, name, "RolloutDegraded", "Warning")[framework.PoolWorker]; len(got) != 1 || got[0] != want {
			t.Errorf("RolloutDegraded events on %s: %q, want one: %q", name, got, want)
		}
	}
}
