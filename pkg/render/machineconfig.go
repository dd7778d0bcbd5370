package render

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/vincent-petithory/dataurl"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

const (
	// IgnitionVersion is the Ignition spec version of the generated configs.
	IgnitionVersion = "3.5.0"
	// VersionAnnotation records which controller build generated a MachineConfig.
	VersionAnnotation = "machineconfiguration.openshift.io/generated-by-controller-version"
	// fileMode is 0644, the mode of every generated file.
	fileMode = 0o644
)

// MachineConfigName returns the name of the generated MachineConfig of a pool: "99-worker-generated-registries".
func MachineConfigName(pool string) string { return fmt.Sprintf("99-%s-generated-registries", pool) }

// machineConfig returns the generated MachineConfig of one pool (docs/semantics.md §3): its spec.config is raw
// (IgnitionJSON of the files, the same for every pool), with the role label, an owner reference to the Image
// "cluster" when it exists in a cluster, and the version annotation. It exists even when no file is written.
func machineConfig(pool string, raw []byte, image *configv1.Image, version string) *mcfgv1.MachineConfig {
	mc := &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfig"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        MachineConfigName(pool),
			Labels:      map[string]string{mcfgv1.MachineConfigRoleLabelKey: pool},
			Annotations: map[string]string{VersionAnnotation: version},
		},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: bytes.Clone(raw)}},
	}
	if image != nil && image.UID != "" {
		// An Image read from a file at install time has no UID yet, and an owner reference needs one:
		// the controller adds the reference once the cluster exists (a metadata-only update).
		mc.OwnerReferences = []metav1.OwnerReference{imageOwnerReference(image)}
	}
	return mc
}

// imageOwnerReference points at the Image "cluster", so that the generated MachineConfigs go away with it.
func imageOwnerReference(image *configv1.Image) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: configv1.GroupVersion.String(),
		Kind:       "Image",
		Name:       image.Name,
		UID:        image.UID,
	}
}

// IgnitionJSON returns the spec.config of a MachineConfig that writes files: the Ignition config, as JSON.
func IgnitionJSON(files nodefiles.Files) ([]byte, error) {
	raw, err := json.Marshal(ignitionConfig(files))
	if err != nil {
		return nil, fmt.Errorf("encoding the Ignition config: %w", err)
	}
	return raw, nil
}

// ignitionConfig returns the Ignition config that writes files, as the reference builds it
// (MCO's NewIgnFileBytesOverwriting): overwrite, mode 0644, a data URL and an explicit empty compression
// (docs/semantics.md §9.6).
func ignitionConfig(files nodefiles.Files) *ign3types.Config {
	cfg := &ign3types.Config{Ignition: ign3types.Ignition{Version: IgnitionVersion}}
	for _, f := range files {
		cfg.Storage.Files = append(cfg.Storage.Files, ign3types.File{
			Node: ign3types.Node{Path: f.Path, Overwrite: ptr.To(true)},
			FileEmbedded1: ign3types.FileEmbedded1{
				Contents: ign3types.Resource{Source: ptr.To(dataURL(f.Data)), Compression: ptr.To("")},
				Mode:     ptr.To(fileMode),
			},
		})
	}
	return cfg
}

// dataURL returns the data URL of contents byte for byte as vincent-petithory/dataurl's EncodeBytes writes it
// (MCO uses it): "data:", the media type http.DetectContentType gives without the space after ";" (for our
// files "text/plain;charset=utf-8"), ";base64," and the standard base64 of contents. It takes one allocation
// where the library writes through a growing buffer and fmt, which was most of the cost of a MachineConfig.
func dataURL(contents []byte) string {
	prefix := "data:" + strings.ReplaceAll(http.DetectContentType(contents), "; ", ";") + ";base64,"
	buf := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(contents)))
	copy(buf, prefix)
	base64.StdEncoding.Encode(buf[len(prefix):], contents)
	return string(buf)
}

// Files decodes the files a MachineConfig writes, in order: path and contents.
func Files(mc *mcfgv1.MachineConfig) (nodefiles.Files, error) {
	cfg, err := parseIgnition(mc)
	if err != nil {
		return nil, err
	}
	out := make(nodefiles.Files, 0, len(cfg.Storage.Files))
	for _, f := range cfg.Storage.Files {
		data, err := decodeContents(f)
		if err != nil {
			return nil, err
		}
		out = append(out, nodefiles.File{Path: f.Path, Data: data})
	}
	return out, nil
}

func parseIgnition(mc *mcfgv1.MachineConfig) (*ign3types.Config, error) {
	cfg := &ign3types.Config{}
	if len(mc.Spec.Config.Raw) == 0 {
		return cfg, nil
	}
	if err := json.Unmarshal(mc.Spec.Config.Raw, cfg); err != nil {
		return nil, fmt.Errorf("MachineConfig %s: spec.config is not an Ignition config: %w", mc.Name, err)
	}
	return cfg, nil
}

func decodeContents(f ign3types.File) ([]byte, error) {
	if f.Contents.Source == nil {
		return nil, nil
	}
	if f.Contents.Compression != nil && *f.Contents.Compression != "" {
		return nil, fmt.Errorf("file %s: compressed contents (%s) are not produced by this controller", f.Path, *f.Contents.Compression)
	}
	u, err := dataurl.DecodeString(*f.Contents.Source)
	if err != nil {
		return nil, fmt.Errorf("file %s: contents are not a data URL: %w", f.Path, err)
	}
	return u.Data, nil
}
