package mcosim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// rollout steps p towards pool's spec.configuration until nothing moves, and returns the status after each
// step, as "configuration updated/ready/unavailable Updated".
func rollout(p *poolState, pool *mcfgv1.MachineConfigPool) []string {
	var trace []string
	target := pool.Spec.Configuration.Name
	for i := 0; i < 10 && p.pending(target, false); i++ {
		p.step(target, maxUnavailable(pool, len(p.nodes)), false)
		pool.Status = p.status(pool, nil, metav1.Now())
		trace = append(trace, statusSummary(pool))
	}
	return trace
}

// statusSummary says what pool's status says: "CONFIG updated/ready/unavailable UPDATED".
func statusSummary(pool *mcfgv1.MachineConfigPool) string {
	st := pool.Status
	return fmt.Sprintf("%s %d/%d/%d %s", st.Configuration.Name, st.UpdatedMachineCount, st.ReadyMachineCount,
		st.UnavailableMachineCount, PoolCondition(pool, mcfgv1.MachineConfigPoolUpdated).Status)
}

// poolOn returns a pool with n machines all running config "A", and its spec.configuration set to target.
func poolOn(n int, target string) (*poolState, *mcfgv1.MachineConfigPool) {
	p := &poolState{size: n}
	p.resize("worker", "A")
	pool := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker", Generation: 2}}
	pool.Status.Configuration.Name = "A"
	pool.Spec.Configuration.Name = target
	return p, pool
}

func TestStatusKeepsTheOldConfigUntilEveryMachineIsUpdated(t *testing.T) {
	tests := []struct {
		name           string
		maxUnavailable *intstr.IntOrString
		want           []string
	}{{
		name: "one machine at a time",
		want: []string{"A 0/0/1 False", "A 1/1/1 False", "A 2/2/1 False", "B 3/3/0 True"},
	}, {
		name:           "two machines at a time",
		maxUnavailable: ptr.To(intstr.FromInt32(2)),
		want:           []string{"A 0/0/2 False", "A 2/2/1 False", "B 3/3/0 True"},
	}, {
		name:           "a percentage rounded down, at least one",
		maxUnavailable: ptr.To(intstr.FromString("10%")),
		want:           []string{"A 0/0/1 False", "A 1/1/1 False", "A 2/2/1 False", "B 3/3/0 True"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, pool := poolOn(3, "B")
			pool.Spec.MaxUnavailable = tc.maxUnavailable
			if got := rollout(p, pool); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("trace = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAChangeDuringARolloutSupersedesIt(t *testing.T) {
	p, pool := poolOn(3, "B")
	p.step("B", 1, false)
	p.step("B", 1, false) // worker-0 runs B, worker-1 updates to B
	pool.Spec.Configuration.Name = "C"
	got := rollout(p, pool)
	want := []string{"A 0/0/1 False", "A 1/1/1 False", "A 2/2/1 False", "C 3/3/0 True"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("trace = %q, want %q", got, want)
	}
}

func TestADegradedMachineStopsTheRolloutAndIsReported(t *testing.T) {
	p, pool := poolOn(3, "B")
	p.step("B", 1, false)
	p.degrade = &degradation{message: "failed to drain node"}
	p.applyDegrade("B")
	if p.pending("B", false) {
		t.Errorf("a degraded pool has a step pending")
	}
	p.step("B", 1, false)
	pool.Status = p.status(pool, nil, metav1.Now())
	if got, want := statusSummary(pool), "A 0/0/1 False"; got != want {
		t.Errorf("status = %s, want %s", got, want)
	}
	c := PoolCondition(pool, mcfgv1.MachineConfigPoolNodeDegraded)
	if c.Status != corev1.ConditionTrue || c.Message != `Node worker-0 is reporting: "failed to drain node"` ||
		c.Reason != "1 nodes are reporting degraded status on sync" {
		t.Errorf("NodeDegraded = %+v", c)
	}
	if pool.Status.DegradedMachineCount != 1 || !conditionTrue(pool, mcfgv1.MachineConfigPoolDegraded) {
		t.Errorf("degradedMachineCount = %d, Degraded = %v; want 1, True",
			pool.Status.DegradedMachineCount, PoolCondition(pool, mcfgv1.MachineConfigPoolDegraded).Status)
	}
}

func TestAPausedPoolFinishesTheUpdatingMachineAndStartsNoOther(t *testing.T) {
	p, _ := poolOn(3, "B")
	p.step("B", 1, false)
	p.step("B", 1, true)
	if p.pending("B", true) {
		t.Errorf("a paused pool has a step pending")
	}
	var states []string
	for _, n := range p.nodes {
		states = append(states, n.current+">"+n.desired)
	}
	if got, want := strings.Join(states, " "), "B>B A>A A>A"; got != want {
		t.Errorf("machines = %s, want %s", got, want)
	}
}

func TestConditionsKeepTheirTransitionTimeWhileTheirStatusStays(t *testing.T) {
	p, pool := poolOn(3, "A")
	then := metav1.NewTime(metav1.Now().Add(-3600e9))
	pool.Status = p.status(pool, nil, then)
	pool.Status = p.status(pool, nil, metav1.Now())
	if got := PoolCondition(pool, mcfgv1.MachineConfigPoolUpdated).LastTransitionTime; !got.Equal(&then) {
		t.Errorf("Updated lastTransitionTime = %v, want %v", got, then)
	}
}
