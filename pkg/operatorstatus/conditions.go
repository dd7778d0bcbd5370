package operatorstatus

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/reasons"
)

// maxDetails bounds the lines a message quotes of one problem; the rest are counted.
const maxDetails = 5

// Options are what Desired needs besides the Snapshot.
type Options struct {
	// Version is the release version the controller runs (the cluster-version operator's RELEASE_VERSION), e.g.
	// "4.22.0"; reported as the version named "operator" once a sync has completed. Empty reports no version.
	Version string
	// Namespace is the controller's namespace, named in the related objects, e.g.
	// "openshift-registries-controller".
	Namespace string
	// GracePeriod is how long invalid input, failing syncs or a readiness problem may last before the conditions
	// report them: an admin fixing a typo, or an API server restart, is no reason to page anyone.
	GracePeriod time.Duration
}

// Report is the status the ClusterOperator should have.
type Report struct {
	// Conditions are Available, Progressing, Degraded and Upgradeable, in that order, without lastTransitionTime
	// (Apply keeps or sets it).
	Conditions []configv1.ClusterOperatorStatusCondition
	// Versions are the versions to report; nil keeps what the object says.
	Versions []configv1.OperandVersion
	// RelatedObjects are what `oc adm inspect clusteroperator/registries-controller` and must-gather collect; nil
	// keeps what the object says.
	RelatedObjects []configv1.ObjectReference
	// Recheck is when the report changes by time alone (a grace period ends); zero when nothing waits.
	Recheck time.Time
}

// Desired returns the status the ClusterOperator should have at now. It returns false when there is nothing to
// report yet: the controller has not finished a sync, and no readiness problem has outlasted the grace period, so
// that a restart writes nothing.
func Desired(s Snapshot, opts Options, now time.Time) (Report, bool) {
	var r Report
	due := func(p *Problem) bool {
		if p == nil {
			return false
		}
		end := p.Since.Add(opts.GracePeriod)
		if now.Before(end) {
			if r.Recheck.IsZero() || end.Before(r.Recheck) {
				r.Recheck = end
			}
			return false
		}
		return true
	}
	notReady := due(s.NotReady)
	if !s.Synced && !notReady {
		return r, false
	}
	problems := degradations(s, due)
	r.Conditions = []configv1.ClusterOperatorStatusCondition{
		available(s, notReady, opts),
		progressing(s),
		degraded(problems),
		upgradeable(problems),
	}
	if s.Synced && opts.Version != "" {
		r.Versions = []configv1.OperandVersion{{Name: OperatorVersionName, Version: opts.Version}}
	}
	if s.MachineConfigs != nil {
		r.RelatedObjects = relatedObjects(opts.Namespace, s.MachineConfigs)
	}
	return r, true
}

// degradation is one reason for Degraded=True, with its message.
type degradation struct {
	reason, message string
}

// degradations returns what makes the controller degraded now, most pressing first: a MachineConfig too large
// (no retry helps), failing syncs, invalid input, degraded pools. due reports whether a problem outlasted the
// grace period.
func degradations(s Snapshot, due func(*Problem) bool) []degradation {
	var out []degradation
	if p := s.TooLarge; p != nil {
		out = append(out, degradation{reasons.MachineConfigTooLarge, "Cannot write " + join(p.Objects) + ": " + details(p) +
			". Remove or merge mirror entries; every MachineConfig keeps its last content until then."})
	}
	if p := s.Failing; due(p) {
		out = append(out, degradation{reasons.SyncFailing, "Every sync has failed since " + stamp(p.Since) +
			", retried with backoff: " + details(p) + ". Check the controller's permissions and the API server; " +
			"`oc logs -n openshift-registries-controller deployment/registries-controller` shows every failure."})
	}
	if p := s.Invalid; due(p) {
		out = append(out, degradation{reasons.InvalidMirrorConfiguration, "The mirror configuration has been invalid since " +
			stamp(p.Since) + ", so no MachineConfig follows it and the nodes keep the last valid one: " + details(p) +
			". Fix " + join(p.Objects) + "; `oc describe` shows each object's problems as InvalidMirrorConfiguration events."})
	}
	for _, ro := range s.Rollouts {
		if ro.Degraded != "" {
			out = append(out, degradation{reasons.RolloutDegraded, fmt.Sprintf("The mirror configuration cannot roll out to pool %s, "+
				"which is degraded: %s. Fix the pool (`oc describe machineconfigpool %s`); its nodes keep their previous "+
				"configuration until then.", ro.Pool, ro.Degraded, ro.Pool)})
		}
	}
	return out
}

func available(s Snapshot, notReady bool, opts Options) configv1.ClusterOperatorStatusCondition {
	if notReady {
		return condition(configv1.OperatorAvailable, configv1.ConditionFalse, reasons.NotReady,
			fmt.Sprintf("The controller has not been able to work since %s: %s. No MachineConfig changes until then.",
				stamp(s.NotReady.Since), details(s.NotReady)))
	}
	return condition(configv1.OperatorAvailable, configv1.ConditionTrue, reasons.AsExpected,
		"The controller renders the mirror configuration into MachineConfigs.")
}

func progressing(s Snapshot) configv1.ClusterOperatorStatusCondition {
	var pools []string
	for _, ro := range s.Rollouts {
		if ro.Degraded == "" {
			pools = append(pools, ro.Pool)
		}
	}
	if len(pools) == 0 {
		return condition(configv1.OperatorProgressing, configv1.ConditionFalse, reasons.AsExpected,
			"No change of the mirror configuration is rolling out.")
	}
	noun := "pool"
	if len(pools) > 1 {
		noun = "pools"
	}
	return condition(configv1.OperatorProgressing, configv1.ConditionTrue, reasons.RollingOut,
		fmt.Sprintf("Rolling out the mirror configuration to %s %s: the machine-config operator updates the nodes one by one "+
			"(`oc get machineconfigpool %s`; `registries-controller wait` blocks until they all run it).",
			noun, strings.Join(pools, ", "), strings.Join(pools, " ")))
}

func degraded(problems []degradation) configv1.ClusterOperatorStatusCondition {
	if len(problems) == 0 {
		return condition(configv1.OperatorDegraded, configv1.ConditionFalse, reasons.AsExpected,
			"Nothing keeps the mirror configuration from the nodes.")
	}
	return condition(configv1.OperatorDegraded, configv1.ConditionTrue, problems[0].reason, messages(problems))
}

func upgradeable(problems []degradation) configv1.ClusterOperatorStatusCondition {
	if len(problems) == 0 {
		return condition(configv1.OperatorUpgradeable, configv1.ConditionTrue, reasons.AsExpected,
			"The nodes can receive the mirror configuration.")
	}
	return condition(configv1.OperatorUpgradeable, configv1.ConditionFalse, problems[0].reason,
		"Minor upgrades wait until the nodes can receive the mirror configuration again (in a disconnected cluster, the "+
			"new release's images are pulled through these mirrors): "+messages(problems))
}

func messages(problems []degradation) string {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.message
	}
	return strings.Join(lines, "\n")
}

func condition(t configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, message string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: status, Reason: reason, Message: message}
}

// details joins the first maxDetails details of p, and counts the rest.
func details(p *Problem) string {
	d := p.Details
	more := ""
	if len(d) > maxDetails {
		more = fmt.Sprintf("; and %d more", len(d)-maxDetails)
		d = d[:maxDetails]
	}
	return strings.Join(d, "; ") + more
}

// join names objects in a sentence: `A`, `A and B`, `A, B and C`.
func join(objects []string) string {
	switch len(objects) {
	case 0:
		return "the objects named"
	case 1:
		return objects[0]
	}
	return strings.Join(objects[:len(objects)-1], ", ") + " and " + objects[len(objects)-1]
}

// stamp writes a time as the API does, in UTC to the second.
func stamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
