package containerruntime

import (
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// SuccessMessage is the message of MCO's Success condition.
const SuccessMessage = "Success"

// MaxConditions is how many conditions a status keeps, the newest: MCO appends without a limit (3313 were seen,
// and the status grew beyond what the API server accepts); its open fix (#6434) keeps 3.
const MaxConditions = 3

// Status returns the status crc gets when its outcome is failure ("" for success: MCO's Success condition; else
// the message of a Failure condition, e.g. "Error: invalid PidsLimit 10"), and whether it differs from the one
// it has. observedGeneration becomes the object's generation. A new condition is added, at now, only when the
// last one says something else (type, status or message): an unchanged outcome writes nothing, where MCO
// rewrites the last condition's time on every sync. MCO's rule otherwise: a message equal to the last one's
// replaces it, another is appended; then the oldest beyond MaxConditions are dropped. MCO's render controller
// renders a pool only while every object selecting it has observedGeneration equal to its generation and a last
// condition of type Success.
func Status(crc *mcfgv1.ContainerRuntimeConfig, failure string, now metav1.Time) (mcfgv1.ContainerRuntimeConfigStatus, bool) {
	cond := mcfgv1.ContainerRuntimeConfigCondition{Type: mcfgv1.ContainerRuntimeConfigSuccess, Status: corev1.ConditionTrue,
		LastTransitionTime: now, Message: SuccessMessage}
	if failure != "" {
		cond.Type, cond.Message = mcfgv1.ContainerRuntimeConfigFailure, failure
	}
	have := crc.Status
	conds := have.Conditions
	if n := len(conds); n > 0 && have.ObservedGeneration == crc.Generation {
		last := conds[n-1]
		if last.Type == cond.Type && last.Status == cond.Status && last.Message == cond.Message && len(conds) <= MaxConditions {
			return have, false
		}
	}
	out := mcfgv1.ContainerRuntimeConfigStatus{ObservedGeneration: crc.Generation}
	out.Conditions = slices.Clone(conds)
	if n := len(out.Conditions); n > 0 && out.Conditions[n-1].Message == cond.Message {
		out.Conditions[n-1] = cond
	} else {
		out.Conditions = append(out.Conditions, cond)
	}
	if n := len(out.Conditions); n > MaxConditions {
		out.Conditions = slices.Clone(out.Conditions[n-MaxConditions:])
	}
	return out, true
}

// Finalizers returns the finalizers crc should carry when its MachineConfigs are names (MCO's contract: one
// finalizer per MachineConfig, named like it, so that MCO's controller could take over and delete them), and
// whether they differ from those it has: each of names added in order, every finalizer naming a MachineConfig of
// this output that is not in names dropped (its pool is no longer selected: the MachineConfig goes too, where MCO
// keeps both), every other finalizer kept as it is (MCO takes them for MachineConfig names and deletes them).
// When crc is being deleted, names is nil: only the other finalizers stay.
func Finalizers(crc *mcfgv1.ContainerRuntimeConfig, names []string) ([]string, bool) {
	var out []string
	for _, f := range crc.Finalizers {
		if _, ours := machineconfigs.ContainerRuntime.ParseName(f); !ours || slices.Contains(names, f) {
			out = append(out, f)
		}
	}
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, !slices.Equal(out, crc.Finalizers)
}
