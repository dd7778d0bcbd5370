package controller

import (
	"fmt"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/reasons"
)

// Defaults of Config.RevertBackoff and Config.MaxRevertBackoff.
const (
	defaultRevertBackoff    = time.Second
	defaultMaxRevertBackoff = 5 * time.Minute
)

// revertLimiter spaces out the reverts of a generated MachineConfig that another writer keeps changing (a second
// controller, an old machine-config-operator, a script). The first revert is immediate, as a hand edit expects;
// while the other writer goes on, each revert waits twice as long as the one before, from Config.RevertBackoff
// up to Config.MaxRevertBackoff; once the MachineConfig has been left alone for twice the current wait, the
// fight is over and the next revert is immediate again. Every write rolls a pool's nodes, so fighting at full
// speed would keep every node rebooting; giving up would leave the other writer's content on the nodes.
//
// A write is a revert when the controller wrote the MachineConfig last wanting the same content it wants now,
// and the MachineConfig changed since (another resourceVersion). A write because the inputs changed is never
// held back.
type revertLimiter struct {
	base, max time.Duration
	clock     clock.PassiveClock

	mu     sync.Mutex
	byName map[string]*revertState
}

// revertState is what the limiter knows of one MachineConfig.
type revertState struct {
	// written is the resourceVersion of the controller's last write; want is what it wanted then.
	written string
	want    *machineconfigs.Desired
	// reverts counts the reverts of the current fight; last is when the last one was written.
	reverts int
	last    time.Time
}

// revert describes a write that put back the controller's content, for the status reporter.
type revert struct {
	// writer is the field manager of the other writer's last change, "" when the object does not say.
	writer string
	// count is the number of reverts in a row, this one included; wait is how long the next one will wait.
	count int
	wait  time.Duration
}

func newRevertLimiter(base, max time.Duration, clk clock.PassiveClock) *revertLimiter {
	return &revertLimiter{base: base, max: max, clock: clk, byName: map[string]*revertState{}}
}

// backoff is the wait after the n-th revert of a fight (n ≥ 1): base, 2×base, 4×base, ... up to max.
func (l *revertLimiter) backoff(n int) time.Duration {
	d := l.base
	for i := 1; i < n && d < l.max; i++ {
		d *= 2
	}
	return min(d, l.max)
}

// check tells whether writing want over have (which differ) is a revert, and if so how long it must wait; a
// zero wait means write now.
func (l *revertLimiter) check(have *mcfgv1.MachineConfig, want *machineconfigs.Desired) (isRevert bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.byName[want.Object.Name]
	if st == nil || have.ResourceVersion == st.written || !st.want.Same(want) {
		return false, 0
	}
	if st.reverts == 0 {
		return true, 0
	}
	since := l.clock.Since(st.last)
	current := l.backoff(st.reverts)
	if since > 2*current { // left alone long enough: the fight is over
		return true, 0
	}
	return true, max(current-since, 0)
}

// wrote records a write of want that the API server returned as obj; have is what it replaced (nil for a
// create). For a revert it returns what to report.
func (l *revertLimiter) wrote(have, obj *mcfgv1.MachineConfig, want *machineconfigs.Desired, isRevert bool) *revert {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.byName[want.Object.Name]
	if st == nil {
		st = &revertState{}
		l.byName[want.Object.Name] = st
	}
	st.written, st.want = obj.ResourceVersion, want
	if !isRevert {
		return nil
	}
	now := l.clock.Now()
	if st.reverts > 0 && now.Sub(st.last) > 2*l.backoff(st.reverts) {
		st.reverts = 0
	}
	st.reverts++
	st.last = now
	return &revert{writer: lastOtherWriter(have), count: st.reverts, wait: l.backoff(st.reverts)}
}

// forget drops what is known of a MachineConfig the controller deleted.
func (l *revertLimiter) forget(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byName, name)
}

// lastOtherWriter returns the field manager of the latest change to mc made by someone else than the
// controller, "" when mc does not say.
func lastOtherWriter(mc *mcfgv1.MachineConfig) string {
	if mc == nil {
		return ""
	}
	var name string
	var at time.Time
	for _, f := range mc.ManagedFields {
		if f.Manager == FieldManager || f.Time == nil {
			continue
		}
		if name == "" || f.Time.After(at) {
			name, at = f.Manager, f.Time.Time
		}
	}
	return name
}

// reportRevert records the Warning of a revert on the MachineConfig, and logs it.
func (s *statusReporter) reportRevert(w write) {
	if w.revert == nil || w.object == nil {
		return
	}
	s.metrics.reverts.WithLabelValues(w.key.Pool, w.key.Output.ID).Inc()
	writer := w.revert.writer
	if writer == "" {
		writer = "an unknown writer"
	} else {
		writer = fmt.Sprintf("field manager %q", writer)
	}
	s.recorder.Eventf(w.object, corev1.EventTypeWarning, reasons.MachineConfigOverwritten,
		"Changed by %s; the generated content was put back (revert %d in a row). While it keeps being changed, the next "+
			"revert waits %s. Stop the other writer: each revert rolls the nodes of pool %s.",
		writer, w.revert.count, w.revert.wait, w.key.Pool)
}
