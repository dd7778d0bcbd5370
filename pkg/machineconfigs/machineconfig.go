package machineconfigs

import (
	"bytes"
	"maps"
	"slices"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// VersionAnnotation is where MCO records which build of its controllers generated a MachineConfig. Its render
// controller refuses to render a pool while one of the pool's MachineConfigs holds a value other than its own
// build, so this project writes none, and drops one it finds on a MachineConfig it writes (written by an older
// build of this project, or by MCO before a swap of controllers). An older build's annotation still makes a
// MachineConfig ours (Output.OursByVersion).
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
	// Object is the MachineConfig to create or update: name, role label, controller reference and spec.config
	// (Encode of Files).
	Object *mcfgv1.MachineConfig
	// Parsed is Parsed(Files), what Ignition parses out of spec.config, when the render kept it (it built the data
	// URLs for the encoding); nil otherwise.
	Parsed *ign3types.Config
}

// NewDesired returns the MachineConfig of key (docs/semantics.md §3): the role label (the pool's name), no
// annotation (VersionAnnotation says why), the controller reference to owner when owner has a UID (an object read
// from a file at install time has none, and a reference needs one) and raw, the Ignition config of files (Encode;
// MachineConfigs writing the same files share one encoding).
func NewDesired(key Key, files nodefiles.Files, raw []byte, owner *metav1.OwnerReference) *Desired {
	mc := &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfig"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   key.Name(),
			Labels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: key.Pool},
		},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: bytes.Clone(raw)}},
	}
	if owner != nil && owner.UID != "" {
		mc.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	return &Desired{Key: key, Owner: owner, Files: files, Object: mc}
}

// Same reports whether d and o say the same: files, labels and owner references (NewDesired writes no annotation).
func (d *Desired) Same(o *Desired) bool {
	return d.Key == o.Key && slices.EqualFunc(d.Files, o.Files, nodefiles.File.Equal) &&
		maps.Equal(d.Object.Labels, o.Object.Labels) &&
		slices.EqualFunc(d.Object.OwnerReferences, o.Object.OwnerReferences, sameReference)
}

// sameReference reports whether two owner references say the same, their flags compared by value.
func sameReference(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptr.Equal(a.Controller, b.Controller) && ptr.Equal(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

// Config returns the decoded config d's object holds, from its files in memory: what Decode would return, without
// encoding and decoding. Compare two renders with Differences(a.Object, a.Config(), b).
func (d *Desired) Config() *Config {
	return &Config{Version: IgnitionVersion, Files: d.Files, Attributes: map[string]string{}}
}
