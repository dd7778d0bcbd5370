package mcosim

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// status returns the status MCO reports for pool with p's machines and the outcome of its last render
// (renderErr, nil when it succeeded), keeping the transition times of conditions whose status stays. As in
// MCO, status.configuration moves to spec.configuration only once every machine is updated and ready.
func (p *poolState) status(pool *mcfgv1.MachineConfigPool, renderErr error, now metav1.Time) mcfgv1.MachineConfigPoolStatus {
	st := *pool.Status.DeepCopy()
	target := pool.Spec.Configuration.Name
	c := p.count(target)
	st.ObservedGeneration = pool.Generation
	st.MachineCount, st.UpdatedMachineCount, st.ReadyMachineCount = c.machines, c.updated, c.ready
	st.UnavailableMachineCount, st.DegradedMachineCount = c.unavailable, c.degraded

	set := func(t mcfgv1.MachineConfigPoolConditionType, s corev1.ConditionStatus, reason, message string) {
		setCondition(&st.Conditions, mcfgv1.MachineConfigPoolCondition{
			Type: t, Status: s, Reason: reason, Message: message, LastTransitionTime: now,
		})
	}
	switch {
	case target == "":
		set(mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "", "")
		set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", "")
	case c.updated == c.machines && c.ready == c.machines && c.unavailable == 0:
		st.Configuration = pool.Spec.Configuration
		set(mcfgv1.MachineConfigPoolUpdated, corev1.ConditionTrue, "", "All nodes are updated with MachineConfig "+target)
		set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionFalse, "", "")
	default:
		set(mcfgv1.MachineConfigPoolUpdated, corev1.ConditionFalse, "", "")
		set(mcfgv1.MachineConfigPoolUpdating, corev1.ConditionTrue, "", "All nodes are updating to MachineConfig "+target)
	}

	degraded := corev1.ConditionFalse
	if c.degraded > 0 {
		reason, message := p.nodeDegradedMessage()
		set(mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionTrue, reason, message)
		degraded = corev1.ConditionTrue
	} else {
		set(mcfgv1.MachineConfigPoolNodeDegraded, corev1.ConditionFalse, "", "")
	}
	if renderErr != nil {
		message := fmt.Sprintf("Failed to render configuration for pool %s: %v", pool.Name, renderErr)
		set(mcfgv1.MachineConfigPoolRenderDegraded, corev1.ConditionTrue, "", message)
		degraded = corev1.ConditionTrue
	} else {
		set(mcfgv1.MachineConfigPoolRenderDegraded, corev1.ConditionFalse, "", "")
	}
	set(mcfgv1.MachineConfigPoolDegraded, degraded, "", "")
	return st
}

// setCondition sets c in conds, keeping the transition time of the condition it replaces when the status
// stays.
func setCondition(conds *[]mcfgv1.MachineConfigPoolCondition, c mcfgv1.MachineConfigPoolCondition) {
	for i := range *conds {
		if old := &(*conds)[i]; old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			*old = c
			return
		}
	}
	*conds = append(*conds, c)
}

// conditionTrue reports whether pool's condition t is True.
func conditionTrue(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) bool {
	return PoolCondition(pool, t).Status == corev1.ConditionTrue
}

// PoolCondition returns pool's status condition of type t; when pool has none, a condition with only its type set
// (no status, reason or message).
func PoolCondition(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) mcfgv1.MachineConfigPoolCondition {
	for _, c := range pool.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return mcfgv1.MachineConfigPoolCondition{Type: t}
}
