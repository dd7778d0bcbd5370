// Package reasons holds every event reason and condition reason the controller writes, in one place, as
// sample-controller keeps them in one block: what an admin greps for in `kubectl get events
// --field-selector reason=...` and reads in `kubectl describe` and `oc get clusteroperator -o yaml`. Where a
// condition says what an event says, the reason is the event's.
package reasons

import configv1 "github.com/openshift/api/config/v1"

// Event reasons, on the objects at fault, the Image "cluster" and the generated MachineConfigs.
const (
	// InvalidMirrorConfiguration (Warning) is recorded on each object whose content blocks rendering, once per
	// distinct problem; every MachineConfig keeps its last good content.
	InvalidMirrorConfiguration = "InvalidMirrorConfiguration"
	// MirrorConfigurationApplied (Normal) is recorded on an object once its problems are gone and the configuration
	// was applied again.
	MirrorConfigurationApplied = "MirrorConfigurationApplied"
	// MirrorConfigurationNotApplied (Warning) is recorded when part of an object is deliberately not applied, e.g. a
	// blocked registry that would block the release payload, or a matchImages entry a cloud provider covers.
	MirrorConfigurationNotApplied = "MirrorConfigurationNotApplied"
	// MachineConfigWritten (Normal) is recorded on a generated MachineConfig each time it is written.
	MachineConfigWritten = "MachineConfigWritten"
	// MachineConfigTooLarge (Warning) is recorded on the Image "cluster" when the API server refuses a
	// MachineConfig for its size.
	MachineConfigTooLarge = "MachineConfigTooLarge"
	// MachineConfigNearSizeLimit (Warning) is recorded on the Image "cluster" when a MachineConfig is 80% of the size
	// etcd accepts or more: admins see it coming.
	MachineConfigNearSizeLimit = "MachineConfigNearSizeLimit"
	// MachineConfigOverwritten (Warning) is recorded on a generated MachineConfig each time the controller puts back
	// its content after another writer changed it.
	MachineConfigOverwritten = "MachineConfigOverwritten"
	// RolledOut (Normal) is recorded once a write is live on a pool, on the Image "cluster" and on every
	// configuration object created or changed since the previous write:
	//   live on pool worker: 5/5 nodes on rendered-worker-<hash>, 4m12s after the change
	RolledOut = "RolledOut"
	// RolloutDegraded (Warning) is recorded on the same objects when the pool goes degraded before the write is
	// live, quoting the pool's condition, once per distinct condition. It is also the ClusterOperator's Degraded
	// reason then.
	RolloutDegraded = "RolloutDegraded"
)

// The condition of the signature policies (ClusterImagePolicy, ImagePolicy): only Pending is written, True while
// part of the object does not take effect, removed once everything does (docs/semantics.md §9.9 D3).
const (
	// PolicyPending is the condition type.
	PolicyPending = configv1.ImagePolicyPending
	// ConflictScopes: ImagePolicy scopes equal to or nested in a ClusterImagePolicy scope, which wins.
	ConflictScopes = "ConflictScopes"
	// InvalidPolicy: the object has problems; no MachineConfig changes until they are fixed.
	InvalidPolicy = "Invalid"
)

// Reasons of the ClusterOperator's conditions (docs/design.md has the table); MachineConfigTooLarge,
// InvalidMirrorConfiguration and RolloutDegraded above are reasons there too.
const (
	// AsExpected: the condition is in its normal state.
	AsExpected = "AsExpected"
	// NotReady (Available=False): the controller has not been able to work for longer than the grace period, e.g.
	// a CRD it reads is missing; the message quotes /readyz.
	NotReady = "NotReady"
	// RollingOut (Progressing=True): a MachineConfig this controller wrote is rolling out to a pool's nodes.
	RollingOut = "RollingOut"
	// SyncFailing (Degraded=True, Upgradeable=False): every sync has failed for longer than the grace period, e.g.
	// the API server refuses the MachineConfig writes.
	SyncFailing = "SyncFailing"
)
