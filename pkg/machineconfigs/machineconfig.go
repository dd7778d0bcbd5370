package machineconfigs

import (
	"bytes"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// VersionAnnotation records which controller build generated a MachineConfig.
const VersionAnnotation = "machineconfiguration.openshift.io/generated-by-controller-version"

// Desired is a MachineConfig as a render wants it: its key, the object it is rendered from, the files it writes
// (as rendered, in memory: a comparison reads them, never the encoded object), and the object to write.
type Desired struct {
	Key Key
	// Owner is the object the MachineConfig is rendered from (an Image, a CRIOCredentialProviderConfig, ...), nil
	// when there is none, also before it has a UID (read from a file); Object carries a reference to it once it
	// has one.
	Owner *metav1.OwnerReference
	// Files are what the MachineConfig writes, in its order.
	Files nodefiles.Files
	// Object is the MachineConfig to create or update: name, role label, version annotation, owner reference and
	// spec.config (Encode of Files).
	Object *mcfgv1.MachineConfig
}

// NewDesired returns the MachineConfig of key (docs/semantics.md §3): the role label (the pool's name), the version
// annotation (none for an output of Output.NoVersion), the owner reference when owner has a UID (an object read from a file at install time has none, and a
// reference needs one) and raw, the Ignition config of files (Encode; MachineConfigs writing the same files share
// one encoding).
func NewDesired(key Key, files nodefiles.Files, raw []byte, owner *metav1.OwnerReference, version string) *Desired {
	mc := &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfig"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        key.Name(),
			Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: key.Pool},
			Annotations: map[string]string{VersionAnnotation: version},
		},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: bytes.Clone(raw)}},
	}
	if key.Output.NoVersion {
		mc.Annotations = nil
	}
	if owner != nil && owner.UID != "" {
		mc.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return &Desired{Key: key, Owner: owner, Files: files, Object: mc}
}

// WithVersion returns a copy of d whose version annotation is version, or absent when version is "" (to compare
// with a MachineConfig another build wrote, the annotation aside).
func (d *Desired) WithVersion(version string) *Desired {
	out := *d
	out.Object = d.Object.DeepCopy()
	if out.Object.Annotations == nil {
		out.Object.Annotations = map[string]string{}
	}
	if version == "" {
		delete(out.Object.Annotations, VersionAnnotation)
	} else {
		out.Object.Annotations[VersionAnnotation] = version
	}
	return &out
}

// Same reports whether d and o say the same: files, labels, annotations and owner references.
func (d *Desired) Same(o *Desired) bool {
	return d.Key == o.Key && slices.EqualFunc(d.Files, o.Files, nodefiles.File.Equal) &&
		equalMaps(d.Object.Labels, o.Object.Labels) && equalMaps(d.Object.Annotations, o.Object.Annotations) &&
		slices.Equal(d.Object.OwnerReferences, o.Object.OwnerReferences)
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Config returns the decoded config d's object holds, from its files in memory: what Decode would return, without
// encoding and decoding. Compare two renders with Differences(a.Object, a.Config(), b).
func (d *Desired) Config() *Config {
	return &Config{Version: IgnitionVersion, Files: d.Files, Attributes: map[string]string{}}
}
