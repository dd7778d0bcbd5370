package machineconfigs

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// MaxSuffix is the largest suffix of a per-object output's MachineConfig name (MCO's MaxMCNameSuffix): one digit,
// so that name order, which is merge order, is numeric order.
const MaxSuffix = 9

// Key names one MachineConfig this project writes: a pool, an output and, for an output with one MachineConfig per
// object (Output.PerObject), the object's suffix, 0 for none. A key without a suffix also stands for "the pool's
// MachineConfigs of the output", e.g. in rollout tracking and metrics, which are per pool and output.
type Key struct {
	Pool   string
	Output *Output
	// Suffix is 1 to MaxSuffix for the second and later objects of a per-object output, 0 otherwise.
	Suffix int
}

// Name returns the MachineConfig's name, e.g. "99-worker-generated-registries" or
// "99-infra-generated-containerruntime-2".
func (k Key) Name() string {
	name := k.Output.MachineConfigName(k.Pool)
	if k.Suffix > 0 {
		name += "-" + strconv.Itoa(k.Suffix)
	}
	return name
}

// String returns "worker/registries", or "infra/containerruntime-2" with a suffix.
func (k Key) String() string {
	s := k.Pool + "/" + k.Output.ID
	if k.Suffix > 0 {
		s += "-" + strconv.Itoa(k.Suffix)
	}
	return s
}

// Unsuffixed returns the key of the pool and output alone: what rollout tracking and the metrics are keyed by.
func (k Key) Unsuffixed() Key { return Key{Pool: k.Pool, Output: k.Output} }

// Less orders keys by output (table order), then pool, then suffix.
func (k Key) Less(o Key) bool { return k.Compare(o) < 0 }

// Compare returns -1, 0 or 1 as k orders before, with or after o (Less), for slices.SortFunc.
func (k Key) Compare(o Key) int {
	if k.Output != o.Output {
		return cmp.Compare(slices.Index(Outputs, k.Output), slices.Index(Outputs, o.Output))
	}
	if k.Pool != o.Pool {
		return strings.Compare(k.Pool, o.Pool)
	}
	return cmp.Compare(k.Suffix, o.Suffix)
}

// ParseName returns the key of the name of one of the MachineConfigs this project writes, and false for any other
// name. A suffix (-1 to -9) is a key's only for outputs with one MachineConfig per object.
func ParseName(name string) (Key, bool) { return parseName(name, Outputs) }

// parseName is ParseName among outputs.
func parseName(name string, outputs []*Output) (Key, bool) {
	for _, o := range outputs {
		if k, ok := o.ParseName(name); ok {
			return k, true
		}
	}
	return Key{}, false
}

// ParseName returns the key of name when it names a MachineConfig of o.
func (o *Output) ParseName(name string) (Key, bool) {
	prefix, base := o.Prefix+"-", "-generated-"+o.ID
	suffix := 0
	if i := strings.LastIndexByte(name, '-'); o.PerObject && i >= 0 && strings.HasSuffix(name[:i], base) {
		n, err := strconv.Atoi(name[i+1:])
		if err != nil || n < 1 || n > MaxSuffix || strconv.Itoa(n) != name[i+1:] {
			return Key{}, false
		}
		name, suffix = name[:i], n
	}
	if strings.HasPrefix(name, prefix) && strings.HasSuffix(name, base) && len(name) > len(prefix)+len(base) {
		return Key{Pool: name[len(prefix) : len(name)-len(base)], Output: o, Suffix: suffix}, true
	}
	return Key{}, false
}

// IsGenerated reports whether obj (a MachineConfig, or a cache tombstone holding one) has the name of one of the
// MachineConfigs this project writes.
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

// Ours reports whether mc, whose name is key's, was written by this controller (or by the controller it replaces),
// and may be deleted when no render wants it: its role label names key's pool, and it carries a controller reference
// to an object of the output's owner kind or, for an output older builds and MCO marked with the version annotation
// alone (Output.OursByVersion), that annotation. A name alone never makes a MachineConfig ours (MCO deletes every
// MachineConfig whose name contains generated-containerruntime, an admin's included: a defect), nor does a version
// annotation on an output never recognised by it.
func Ours(key Key, mc *mcfgv1.MachineConfig) bool {
	if mc.Labels[mcfgv1.MachineConfigRoleLabelKey] != key.Pool {
		return false
	}
	if key.Output.Owner.controls(mc.OwnerReferences) {
		return true
	}
	_, versioned := mc.Annotations[VersionAnnotation]
	return versioned && key.Output.OursByVersion
}
