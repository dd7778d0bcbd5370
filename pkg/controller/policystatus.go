package controller

import (
	"context"
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned/typed/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// Status conditions of ClusterImagePolicies and ImagePolicies (docs/semantics.md §9.2, §9.9 D3).
//
// Only Pending is written, True while part of the object does not take effect, and removed once everything
// does. No Applied condition: what this controller knows is that the MachineConfigs say what the policies say,
// not that any node enforces them yet (that is the pools' rollout), so an Applied=True would claim more than is
// known, the very fault D3 finds in the reference's Pending=False. It would also mean a status write for every
// policy object on the first sync of every cluster.
const (
	// ConditionPending is True while some scope of the object does not take effect.
	ConditionPending = configv1.ImagePolicyPending
	// ReasonConflictScopes: ImagePolicy scopes equal to or nested in a ClusterImagePolicy scope, which wins.
	ReasonConflictScopes = "ConflictScopes"
	// ReasonInvalidPolicy: the object has problems; no MachineConfig changes until they are fixed.
	ReasonInvalidPolicy = "Invalid"
)

// statusWrite records one status update of a policy object.
type statusWrite struct {
	ref    inputs.ObjectRef
	reason string // "" when the condition was removed
}

// policyConditions returns the Pending condition every policy object should have after a sync, nil for
// "none". An invalid sync judges only the objects it found problems with (a problem elsewhere may have stopped
// the render before the others were judged); the other objects keep their conditions until a sync succeeds.
func policyConditions(res *syncResult) map[inputs.ObjectRef]*metav1.Condition {
	out := map[inputs.ObjectRef]*metav1.Condition{}
	if res.invalid != nil {
		byObject := map[inputs.ObjectRef][]string{}
		for _, p := range res.invalid.Problems {
			if k := p.At.Object.Kind; k == inputs.KindClusterImagePolicy || k == inputs.KindImagePolicy {
				byObject[p.At.Object] = append(byObject[p.At.Object], p.OnObject())
			}
		}
		for ref, lines := range byObject {
			out[ref] = &metav1.Condition{Type: ConditionPending, Status: metav1.ConditionTrue, Reason: ReasonInvalidPolicy,
				Message: truncate("not applied, every MachineConfig keeps its last good content: " + strings.Join(lines, "; "))}
		}
		return out
	}
	if res.output == nil || res.output.Policies == nil {
		return out
	}
	for _, o := range res.output.Policies.Objects {
		out[o.Ref] = nil
		if len(o.DroppedScopes) > 0 {
			out[o.Ref] = &metav1.Condition{Type: ConditionPending, Status: metav1.ConditionTrue, Reason: ReasonConflictScopes,
				Message: imagepolicy.ConflictMessage(o.DroppedScopes)}
		}
	}
	// With the gate off the policy objects take no effect at all: their conditions are left as they are.
	return out
}

// updatePolicyStatus writes the Pending condition of every policy object whose conditions change, with
// meta.SetStatusCondition's semantics: LastTransitionTime moves only when the status does, observedGeneration is
// the object's generation, other conditions are kept. It is the only place that writes policy status.
func (c *Controller) updatePolicyStatus(ctx context.Context, res *syncResult) ([]statusWrite, error) {
	if res.inputs == nil {
		return nil, nil
	}
	var writes []statusWrite
	for ref, want := range policyConditions(res) {
		obj := res.inputs.Get(ref)
		if obj == nil {
			continue
		}
		have := conditionsOf(obj)
		next := append([]metav1.Condition(nil), have...)
		reason := ""
		if want == nil {
			meta.RemoveStatusCondition(&next, ConditionPending)
		} else {
			cond := *want
			cond.ObservedGeneration = obj.GetGeneration()
			cond.LastTransitionTime = metav1.NewTime(c.cfg.Clock.Now())
			meta.SetStatusCondition(&next, cond)
			reason = cond.Reason
		}
		if equality.Semantic.DeepEqual(have, next) || (len(have) == 0 && len(next) == 0) {
			continue
		}
		if err := c.writeConditions(ctx, obj, next); err != nil {
			if apierrors.IsNotFound(err) {
				continue // deleted since it was gathered; its delete event brings another sync
			}
			return writes, fmt.Errorf("updating the status of %s: %w", ref, err)
		}
		writes = append(writes, statusWrite{ref: ref, reason: reason})
	}
	return writes, nil
}

func conditionsOf(obj inputs.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *configv1.ClusterImagePolicy:
		return o.Status.Conditions
	case *configv1.ImagePolicy:
		return o.Status.Conditions
	}
	return nil
}

// writeConditions sends a copy of the cached object with the new conditions to the status subresource.
func (c *Controller) writeConditions(ctx context.Context, obj inputs.Object, conds []metav1.Condition) error {
	opts := metav1.UpdateOptions{FieldManager: FieldManager}
	switch o := obj.(type) {
	case *configv1.ClusterImagePolicy:
		cp := o.DeepCopy()
		cp.Status.Conditions = conds
		_, err := c.policies.ClusterImagePolicies().UpdateStatus(ctx, cp, opts)
		return err
	case *configv1.ImagePolicy:
		cp := o.DeepCopy()
		cp.Status.Conditions = conds
		_, err := c.policies.ImagePolicies(o.Namespace).UpdateStatus(ctx, cp, opts)
		return err
	}
	return nil
}

// policyClient is what the controller needs of the config clientset: the status of the policy objects.
type policyClient interface {
	configclient.ClusterImagePoliciesGetter
	configclient.ImagePoliciesGetter
}
