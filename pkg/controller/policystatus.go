package controller

import (
	"context"
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/reasons"
)

// statusWrite records one status update of an object.
type statusWrite struct {
	ref inputs.ObjectRef
	// conditions names the conditions set, e.g. "Pending=True/ConflictScopes"; "" when only some were removed.
	conditions string
}

// conditionChange is what a sync wants of one object's status.conditions: conditions to set, with
// meta.SetStatusCondition's semantics, and types to remove. Other conditions are kept.
type conditionChange struct {
	set    []metav1.Condition
	remove []string
}

// wantedConditions returns what every object reported on through its status should have after a sync: the
// signature policies' Pending condition and the CRIOCredentialProviderConfig's Validated and MachineConfigRendered
// (docs/semantics.md §10.5).
func wantedConditions(res *syncResult) map[inputs.ObjectRef]conditionChange {
	out := policyConditions(res)
	for ref, ch := range credentialConditions(res) {
		out[ref] = ch
	}
	return out
}

// policyConditions returns the Pending condition (reasons.PolicyPending) every policy object should have after a
// sync. Only Pending is written, True while part of the object does not take effect, and removed once everything
// does. No Applied condition: what this controller knows is that the MachineConfigs say what the policies say, not
// that any node enforces them yet (that is the pools' rollout), so an Applied=True would claim more than is known,
// the very fault D3 finds in MCO's Pending=False (docs/semantics.md §9.9); it would also mean a status
// write for every policy object on the first sync of every cluster. An invalid sync
// judges only the objects it found problems with (a problem elsewhere may have stopped the render before the
// others were judged); the other objects keep their conditions until a sync succeeds.
func policyConditions(res *syncResult) map[inputs.ObjectRef]conditionChange {
	out := map[inputs.ObjectRef]conditionChange{}
	if res.invalid != nil {
		for ref, lines := range problemLines(res.invalid, inputs.KindClusterImagePolicy, inputs.KindImagePolicy) {
			out[ref] = conditionChange{set: []metav1.Condition{{Type: reasons.PolicyPending, Status: metav1.ConditionTrue, Reason: reasons.InvalidPolicy,
				Message: truncate("not applied, every MachineConfig keeps its last good content: " + strings.Join(lines, "; "))}}}
		}
		return out
	}
	if res.output == nil || res.output.Policies == nil {
		return out
	}
	for _, o := range res.output.Policies.Objects {
		out[o.Ref] = conditionChange{remove: []string{reasons.PolicyPending}}
		if len(o.DroppedScopes) > 0 {
			out[o.Ref] = conditionChange{set: []metav1.Condition{{Type: reasons.PolicyPending, Status: metav1.ConditionTrue, Reason: reasons.ConflictScopes,
				Message: imagepolicy.ConflictMessage(o.DroppedScopes)}}}
		}
	}
	// With the gate off the policy objects take no effect at all: their conditions are left as they are.
	return out
}

// credentialConditions returns the conditions of the CRIOCredentialProviderConfig, as MCO writes them
// (credentialprovider.Conditions) once its MachineConfigs are written or failed to be; Validated False with the
// API's reason ValidationFailed when it is invalid (MCO renders such an object anyway). While its output is not
// managed (gate off, CRD missing) or the object is gone, nothing is written.
func credentialConditions(res *syncResult) map[inputs.ObjectRef]conditionChange {
	out := map[inputs.ObjectRef]conditionChange{}
	if res.inputs == nil || res.inputs.CRIOCredentialProviderConfig == nil {
		return out
	}
	ref := inputs.ObjectRef{Kind: inputs.KindCRIOCredentialProvider, Name: res.inputs.CRIOCredentialProviderConfig.Name}
	if res.invalid != nil {
		if lines := problemLines(res.invalid, inputs.KindCRIOCredentialProvider)[ref]; len(lines) > 0 {
			out[ref] = conditionChange{set: []metav1.Condition{credentialprovider.Condition(nil, configv1.ConditionTypeValidated,
				configv1.ReasonValidationFailed, "%s", truncate("not applied, every MachineConfig keeps its last good content: "+strings.Join(lines, "; ")))}}
			out[ref].set[0].Status = metav1.ConditionFalse
		}
		return out
	}
	if res.output == nil || res.output.StateOf(machineconfigs.CredentialProviders).State != machineconfigs.Written {
		return out
	}
	out[ref] = conditionChange{set: credentialprovider.Conditions(res.output.Credentials, res.applyErr, 0)}
	return out
}

// problemLines returns the problems of objects of the given kinds, by object, as lines naming the field.
func problemLines(invalid *inputs.InvalidError, kinds ...string) map[inputs.ObjectRef][]string {
	out := map[inputs.ObjectRef][]string{}
	for _, p := range invalid.Problems {
		for _, k := range kinds {
			if p.At.Object.Kind == k {
				out[p.At.Object] = append(out[p.At.Object], p.OnObject())
			}
		}
	}
	return out
}

// updateStatus writes the conditions of every object whose conditions change (wantedConditions), with
// meta.SetStatusCondition's semantics: LastTransitionTime moves only when the status does, observedGeneration is
// the object's generation, other conditions are kept. It is the only place that writes status.
func (c *Controller) updateStatus(ctx context.Context, res *syncResult) ([]statusWrite, error) {
	if res.inputs == nil {
		return nil, nil
	}
	var writes []statusWrite
	for ref, want := range wantedConditions(res) {
		k := inputs.KindNamed(ref.Kind)
		obj := res.inputs.Get(ref)
		if obj == nil || k.Status == nil {
			continue
		}
		have := k.Status.Conditions(obj)
		next := append([]metav1.Condition(nil), have...)
		var set []string
		for _, t := range want.remove {
			meta.RemoveStatusCondition(&next, t)
		}
		for _, cond := range want.set {
			cond.ObservedGeneration = obj.GetGeneration()
			cond.LastTransitionTime = metav1.NewTime(c.cfg.Clock.Now())
			meta.SetStatusCondition(&next, cond)
			set = append(set, fmt.Sprintf("%s=%s/%s", cond.Type, cond.Status, cond.Reason))
		}
		if equality.Semantic.DeepEqual(have, next) || (len(have) == 0 && len(next) == 0) {
			continue
		}
		if err := c.writeConditions(ctx, k, obj, next); err != nil {
			if apierrors.IsNotFound(err) {
				continue // deleted since it was gathered; its delete event brings another sync
			}
			return writes, fmt.Errorf("updating the status of %s: %w", ref, err)
		}
		writes = append(writes, statusWrite{ref: ref, conditions: strings.Join(set, ", ")})
	}
	return writes, nil
}

// writeConditions sends a copy of the cached object with the new conditions to its status subresource.
func (c *Controller) writeConditions(ctx context.Context, k *inputs.Kind, obj inputs.Object, conds []metav1.Condition) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(k.Status.WithConditions(obj, conds))
	if err != nil {
		return fmt.Errorf("converting %s %q: %w", k.Name, obj.GetName(), err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetAPIVersion(k.GroupVersion.String())
	u.SetKind(k.Name)
	_, err = c.statusWriter.Resource(k.GroupVersionResource()).Namespace(obj.GetNamespace()).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}

// statusClient writes the status of the objects reported on through their status (inputs.Kind.Status).
type statusClient = dynamic.Interface
