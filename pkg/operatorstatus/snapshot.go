// Package operatorstatus decides what the ClusterOperator "registries-controller" says: its conditions
// (Available, Progressing, Degraded, Upgradeable), its versions and its related objects, from a Snapshot of what
// the controller knows. It is pure: no client, no clock, no logging. The controller keeps a Snapshot current,
// calls Desired with the time, and writes the result with Apply, only when it differs from what the object says
// (pkg/controller/clusteroperator.go).
//
// The conditions follow the conventions of openshift/api config/v1 types_cluster_operator.go; docs/design.md has
// the table of reasons:
//
//	$ oc get clusteroperator registries-controller
//	NAME                    VERSION   AVAILABLE   PROGRESSING   DEGRADED   SINCE
//	registries-controller   4.22.0    True        False         False      5m
package operatorstatus

import "time"

// Name is the name of the ClusterOperator.
const Name = "registries-controller"

// OperatorVersionName names the version of the controller itself in status.versions, as the cluster-version
// operator expects of every ClusterOperator.
const OperatorVersionName = "operator"

// Snapshot is what the controller knows at one moment, as far as the ClusterOperator is concerned. The zero value
// is a controller that has not finished a sync yet and knows of no problem.
type Snapshot struct {
	// Synced is true once a sync has completed since the controller started, whatever its outcome. Before, only a
	// readiness problem that outlasted the grace period is reported; nothing else is known yet.
	Synced bool
	// Invalid is set while the inputs cannot be rendered: since the first sync that found them invalid, naming
	// every object at fault and its problems.
	Invalid *Problem
	// Failing is set while syncs fail with an error (other than TooLarge), since the first failure of the streak:
	// a MachineConfig write the API server refuses, for example.
	Failing *Problem
	// TooLarge is set while a generated MachineConfig is too large for the API server to take.
	TooLarge *Problem
	// NotReady is set while the controller cannot work at all (what /readyz says), e.g. a CRD is missing.
	NotReady *Problem
	// Rollouts are the pools on which a MachineConfig write of this controller is not live yet, sorted by pool.
	Rollouts []Rollout
	// MachineConfigs are the names of the MachineConfigs the last render generated, sorted; nil before the first
	// render since the start.
	MachineConfigs []string
}

// Problem is one thing keeping the controller from doing its job, in words a person can act on.
type Problem struct {
	// Since is when the problem was first seen; it does not move while the problem lasts, even when its details
	// change.
	Since time.Time
	// Objects name the objects at fault as people read them, e.g. `ImageDigestMirrorSet "team-a"`; empty when
	// no object is at fault.
	Objects []string
	// Details say what is wrong and how to fix it, one line each, e.g.
	//   ImageDigestMirrorSet "team-a": spec.imageDigestMirrors[0].mirrors[0]: "https://m.example.com": a mirror
	//   must not carry a scheme; write it as host[:port][/namespace...], e.g. "m.example.com"
	Details []string
}

// Rollout is a pool on which a write of this controller is not live yet.
type Rollout struct {
	// Pool is the MachineConfigPool's name, e.g. "worker".
	Pool string
	// Degraded quotes the pool's degraded condition, e.g. `NodeDegraded: Node worker-1 is reporting: "..."`; empty
	// while the pool is rolling out normally.
	Degraded string
}
