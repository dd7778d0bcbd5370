// Package machineconfigs is the model of the MachineConfigs this project writes: the table of outputs (one
// MachineConfig per built-in pool and output, e.g. 99-worker-generated-registries), the node paths each output
// owns, which pools are built in, the one Ignition encoder and decoder, and the comparison that decides whether a
// MachineConfig must be written. Everything that names, reads or compares a generated MachineConfig (the render,
// the controller, rollout tracking, `wait`, `preview`, `explain`, `diff`, `migrate-icsp`) goes through it.
//
//	key := machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}
//	key.Name()                                  // "99-worker-generated-registries"
//	k, ok := machineconfigs.ParseName("97-master-generated-credentialproviderconfig") // {master, CredentialProviders}, true
//	o, ok := machineconfigs.OwnerOf("/etc/containers/policy.json")                     // Registries, true
//	o, ok = machineconfigs.OwnerOf("/etc/kubernetes/credential-providers/ecr-credential-provider.yaml") // CredentialProviders, true
//
// An output's files are the same for every pool: a pool's MachineConfig differs from another pool's only by
// its name and role label.
package machineconfigs

import (
	"path"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Output is one kind of generated MachineConfig: every built-in pool gets one MachineConfig of each output.
type Output struct {
	// ID names the output in MachineConfig names, logs and metric labels, e.g. "registries".
	ID string
	// Prefix orders the MachineConfig among a pool's others: MCO merges them in name order, a later file
	// replacing an earlier one at the same path. "99" for registries (after MCO's base configs), "97" for the
	// credential providers (as MCO names them).
	Prefix string
	// Paths are the node paths the output may write: files, and directories whose files (at any depth) it owns.
	// No path is owned by two outputs.
	Paths []Path
	// Describe says in a few words what the output carries, for help texts and logs.
	Describe string
}

// Path is a node path an output owns.
type Path struct {
	// Path is absolute, e.g. "/etc/containers/registries.conf" or "/etc/crio/policies".
	Path string
	// Dir is true when Path is a directory: the output owns every file below it.
	Dir bool
}

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
	}
)

// Outputs lists every output, in the order the controller writes them.
var Outputs = []*Output{Registries, CredentialProviders}

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

// Key names one generated MachineConfig: a pool and an output.
type Key struct {
	Pool   string
	Output *Output
}

// Name returns the MachineConfig's name, e.g. "99-worker-generated-registries".
func (k Key) Name() string { return k.Output.MachineConfigName(k.Pool) }

// String returns "worker/registries".
func (k Key) String() string { return k.Pool + "/" + k.Output.ID }

// Less orders keys by output (table order), then pool.
func (k Key) Less(o Key) bool {
	if k.Output != o.Output {
		return slices.Index(Outputs, k.Output) < slices.Index(Outputs, o.Output)
	}
	return k.Pool < o.Pool
}

// ParseName returns the key of a generated MachineConfig's name, and false for any other name.
func ParseName(name string) (Key, bool) {
	for _, o := range Outputs {
		prefix, suffix := o.Prefix+"-", "-generated-"+o.ID
		if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix) && len(name) > len(prefix)+len(suffix) {
			return Key{Pool: name[len(prefix) : len(name)-len(suffix)], Output: o}, true
		}
	}
	return Key{}, false
}

// IsGenerated reports whether obj (a MachineConfig, or a cache tombstone holding one) has the name of a
// generated MachineConfig.
func IsGenerated(obj any) bool {
	if tomb, ok := obj.(interface{ GetObject() any }); ok { // cache.DeletedFinalStateUnknown
		obj = tomb.GetObject()
	}
	named, ok := obj.(interface{ GetName() string })
	if !ok {
		return false
	}
	_, ok = ParseName(named.GetName())
	return ok
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
