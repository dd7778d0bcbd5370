// Package machineconfigs is the model of the MachineConfigs this project writes: the table of outputs (kinds of
// MachineConfig, e.g. 99-<pool>-generated-registries) with the node paths each owns, the keys that name one
// MachineConfig (pool, output and, for outputs with one MachineConfig per object, the object's suffix), the desired
// set a render produces (Set: per key the files that MachineConfig writes, and per output whether it is written,
// removed or left alone), what a pool's nodes get from it (Set.PoolFiles, merged in MCO's order), the one Ignition
// encoder and decoder, the comparison by meaning (Differences) and the plan that turns the MachineConfigs a cluster
// holds into the desired ones (Plan). Everything that names, reads, compares or writes one of these MachineConfigs
// (the render, the controller, rollout tracking, `wait`, `preview`, `explain`, `diff`, `migrate-icsp`) goes through
// it.
//
//	key := machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}
//	key.Name()                                  // "99-worker-generated-registries"
//	k, ok := machineconfigs.ParseName("97-master-generated-credentialproviderconfig") // {master, CredentialProviders}, true
//	o, ok := machineconfigs.OwnerOf("/etc/containers/policy.json")                     // Registries, true
//	o, ok = machineconfigs.OwnerOf("/etc/kubernetes/credential-providers/ecr-credential-provider.yaml") // CredentialProviders, true
//	actions := machineconfigs.Plan(existing, decoder, &out.Set, machineconfigs.PlanOptions{}) // create, update, delete
package machineconfigs

import (
	"path"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Output is one kind of MachineConfig this project writes: a row of the outputs table. What a row says is all the
// controller, rollout tracking, preview, migrate-icsp, explain and the metrics need to know of an output; a new
// output is a row here, the kinds it reads (pkg/inputs) and a renderer returning its desired MachineConfigs.
type Output struct {
	// ID names the output in MachineConfig names, logs and metric labels, e.g. "registries".
	ID string
	// Prefix orders the MachineConfig among a pool's others: MCO merges them in name order, a later file
	// replacing an earlier one at the same path. "99" for registries (after MCO's base configs), "97" for the
	// credential providers (as MCO names them).
	Prefix string
	// Paths are the node paths the output may write: files, and directories whose files (at any depth) it owns.
	// No path is owned by two outputs. Two MachineConfigs of one output may write the same path on one pool (one
	// per object, PerObject): the one MCO merges last wins (SortForMerge).
	Paths []Path
	// Describe says in a few words what the output carries, for help texts and logs.
	Describe string
	// PerObject is true when every object of the Owner kind gets a MachineConfig of its own on each pool it
	// selects: the first object's is named without a suffix, the others with theirs, -1 to -9 (Key.Suffix, chosen
	// by the object), and they merge in that order. False: one MachineConfig per pool, never suffixed.
	PerObject bool
	// Pools says which pools get the output's MachineConfigs.
	Pools PoolScope
	// Owner is the kind of object the output's MachineConfigs are rendered from; a MachineConfig carries a controller
	// reference to its object once the object has a UID (read from a file at install time, it has none).
	Owner OwnerKind
	// OursByVersion is true for an output whose MachineConfigs older builds of this project wrote with the version
	// annotation (VersionAnnotation, their build) and an owner reference that was no controller reference, as MCO
	// writes them (with its build). Such a MachineConfig is still ours (Ours), so that the first sync after an
	// upgrade or a swap of controllers takes it over: a metadata-only update drops the annotation and makes the
	// reference a controller reference, and no node rolls. No output writes the annotation any more: MCO's render
	// controller refuses to render a pool while one of its MachineConfigs names another build than MCO's own
	// there (docs/semantics.md §3.1).
	OursByVersion bool
}

// PoolScope says which pools get an output's MachineConfigs.
type PoolScope int

const (
	// OnBuiltInPools: every built-in pool (BuiltIn) gets one; other pools inherit the worker one through their
	// machineConfigSelector. A MachineConfig of a pool that is no longer built in, or gone, is deleted.
	OnBuiltInPools PoolScope = iota
	// OnSelectedPools: the pools an object selects, custom pools included, get one each; a MachineConfig no object
	// renders any more (the object is gone or selects the pool no more) is deleted.
	OnSelectedPools
)

// OwnerKind is the kind of object an output's MachineConfigs are rendered from. The object controls them: each
// MachineConfig written carries a controller reference to it, and that reference says the MachineConfig is ours
// (Ours), as no version annotation does any more; an admin may name a MachineConfig alike, and a name alone never
// makes it ours.
type OwnerKind struct {
	// APIVersion and Kind are the owner reference's, e.g. "config.openshift.io/v1" and "Image".
	APIVersion, Kind string
	// BlockOwnerDeletion is set on the reference when the object's deletion waits for its MachineConfigs, as MCO's
	// ContainerRuntimeConfig references do (the controller then needs update on the kind's finalizers
	// subresource). The Image and the CRIOCredentialProviderConfig are singletons whose MachineConfigs the
	// controller deletes itself: their references block nothing.
	BlockOwnerDeletion bool
}

// Reference returns the controller reference to the object name with uid, of this kind.
func (k OwnerKind) Reference(name string, uid types.UID) *metav1.OwnerReference {
	ref := &metav1.OwnerReference{APIVersion: k.APIVersion, Kind: k.Kind, Name: name, UID: uid, Controller: ptr.To(true)}
	if k.BlockOwnerDeletion {
		ref.BlockOwnerDeletion = ptr.To(true)
	}
	return ref
}

// controls reports whether refs hold a controller reference to an object of this kind.
func (k OwnerKind) controls(refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller && r.APIVersion == k.APIVersion && r.Kind == k.Kind {
			return true
		}
	}
	return false
}

// Path is a node path an output owns.
type Path struct {
	// Path is absolute, e.g. "/etc/containers/registries.conf" or "/etc/crio/policies".
	Path string
	// Dir is true when Path is a directory: the output owns every file below it.
	Dir bool
}

// configGroupVersion is config.openshift.io/v1, the API of the Image and the CRIOCredentialProviderConfig.
const configGroupVersion = "config.openshift.io/v1"

// Outputs of the project, in the order the controller writes them and tools list them.
var (
	// Registries is 99-<pool>-generated-registries: registries.conf, policy.json, the search-registries drop-in,
	// sigstore-registries.yaml and the namespace signature policies (docs/semantics.md §3, §9.6).
	Registries = &Output{
		ID: "registries", Prefix: "99", Describe: "mirror, registry and signature configuration",
		Paths: []Path{
			{Path: nodefiles.RegistriesConf},
			{Path: nodefiles.PolicyJSON},
			{Path: nodefiles.SigstoreRegistries},
			{Path: nodefiles.NamespacePolicyDir, Dir: true},
			{Path: nodefiles.SearchRegistries},
		},
		Pools:         OnBuiltInPools,
		Owner:         OwnerKind{APIVersion: configGroupVersion, Kind: "Image"},
		OursByVersion: true,
	}
	// CredentialProviders is 97-<pool>-generated-credentialproviderconfig: the kubelet's credential provider
	// configuration for the platform, extended by CRI-O's crio-credential-provider, and on platforms without a cloud
	// provider the kubelet drop-in that reads it (docs/semantics.md §10).
	CredentialProviders = &Output{
		ID: "credentialproviderconfig", Prefix: "97", Describe: "kubelet credential provider configuration",
		Paths: []Path{
			{Path: nodefiles.CredentialProviderDir, Dir: true},
			{Path: nodefiles.KubeletCredentialProviderDropIn},
		},
		Pools:         OnBuiltInPools,
		Owner:         OwnerKind{APIVersion: configGroupVersion, Kind: "CRIOCredentialProviderConfig"},
		OursByVersion: true,
	}
)

// machineConfigurationGroupVersion is machineconfiguration.openshift.io/v1, the API of the ContainerRuntimeConfig.
const machineConfigurationGroupVersion = "machineconfiguration.openshift.io/v1"

// ContainerRuntime is 99-<pool>-generated-containerruntime[-N]: per ContainerRuntimeConfig and pool it selects,
// containers/storage's storage.conf and CRI-O drop-ins (docs/semantics.md §11). Each object's MachineConfigs
// carry its suffix, and MCO merges them in that order, so the newest object wins per file.
var ContainerRuntime = &Output{
	ID: "containerruntime", Prefix: "99", Describe: "CRI-O and container storage settings",
	Paths: []Path{
		{Path: nodefiles.StorageConf},
		{Path: nodefiles.CRIODropInPrefix + "logLevel"},
		{Path: nodefiles.CRIODropInPrefix + "pidsLimit"},
		{Path: nodefiles.CRIODropInPrefix + "logSizeMax"},
		{Path: nodefiles.CRIODropInPrefix + "defaultRuntime"},
		{Path: nodefiles.CRIODropInPrefix + "additionalArtifactStores"},
	},
	PerObject: true,
	Pools:     OnSelectedPools,
	Owner:     OwnerKind{APIVersion: machineConfigurationGroupVersion, Kind: "ContainerRuntimeConfig", BlockOwnerDeletion: true},
}

// Outputs lists every output, in the order the controller writes them.
var Outputs = []*Output{Registries, CredentialProviders, ContainerRuntime}

// MachineConfigName returns the name of the output's MachineConfig for pool: "99-worker-generated-registries".
func (o *Output) MachineConfigName(pool string) string {
	return o.Prefix + "-" + pool + "-generated-" + o.ID
}

// Owns reports whether the output may write node path p.
func (o *Output) Owns(p string) bool {
	for _, owned := range o.Paths {
		if !owned.Dir && p == owned.Path || owned.Dir && strings.HasPrefix(p, owned.Path+"/") {
			return true
		}
	}
	return false
}

// Select returns the files of fs the output owns, in their order.
func (o *Output) Select(fs nodefiles.Files) nodefiles.Files {
	var out nodefiles.Files
	for _, f := range fs {
		if o.Owns(f.Path) {
			out = append(out, f)
		}
	}
	return out
}

func (o *Output) String() string { return o.ID }

// OwnerOf returns the output that owns node path p.
func OwnerOf(p string) (*Output, bool) {
	for _, o := range Outputs {
		if o.Owns(p) {
			return o, true
		}
	}
	return nil, false
}

// Managed reports whether some output may write node path p: only these paths of a rendered config are compared
// with a render.
func Managed(p string) bool {
	_, ok := OwnerOf(p)
	return ok
}

// ManagedDirs returns the directories of the node that hold managed paths ("/etc/containers", "/etc/crio/policies",
// ...), sorted, each once: where `render --node-root` writes and `diff` reads.
func ManagedDirs() []string {
	var out []string
	for _, o := range Outputs {
		for _, p := range o.Paths {
			dir := p.Path
			if !p.Dir {
				dir = path.Dir(p.Path)
			}
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// BuiltInPoolLabel marks the pools that get their own generated MachineConfigs (master, worker, arbiter). Other
// pools inherit the worker ones through their machineConfigSelector.
const BuiltInPoolLabel = "machineconfiguration.openshift.io/mco-built-in"

// defaultPools are rendered when no pool is given, as at install time.
var defaultPools = []string{"master", "worker"}

// BuiltIn reports whether pool gets generated MachineConfigs of its own.
func BuiltIn(pool *mcfgv1.MachineConfigPool) bool {
	_, ok := pool.Labels[BuiltInPoolLabel]
	return ok
}

// BuiltInPools returns the names of the built-in pools of pools, sorted; master and worker when no pool is given
// (at install time).
func BuiltInPools(pools []*mcfgv1.MachineConfigPool) []string {
	if len(pools) == 0 {
		return slices.Clone(defaultPools)
	}
	var names []string
	for _, p := range pools {
		if BuiltIn(p) {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names
}
