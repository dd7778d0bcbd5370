package mcosim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

const (
	// renderedPrefix starts the name of every rendered MachineConfig: rendered-<pool>-<hash>.
	renderedPrefix = "rendered-"
	// hashBytes is how much of the SHA-256 of the merged config goes into a rendered name: 16 bytes, 32 hex
	// digits, as long as MCO's MD5.
	hashBytes = 16
)

// selectConfigs returns the MachineConfigs pool's machineConfigSelector matches, sorted by name, leaving out
// rendered ones. As in MCO, a nil selector selects nothing and an empty one selects everything.
func selectConfigs(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig) ([]*mcfgv1.MachineConfig, error) {
	if pool.Spec.MachineConfigSelector == nil {
		return nil, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid spec.machineConfigSelector: %w", err)
	}
	var out []*mcfgv1.MachineConfig
	for _, mc := range all {
		if !strings.HasPrefix(mc.Name, renderedPrefix) && selector.Matches(labels.Set(mc.Labels)) {
			out = append(out, mc)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// renderPool returns the rendered MachineConfig of pool merged from all (see merge), and the references to
// the MachineConfigs it merged, for spec.configuration.source. The error says why the pool cannot be
// rendered, as MCO's RenderDegraded condition does.
func renderPool(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig, version string) (*mcfgv1.MachineConfig, []corev1.ObjectReference, error) {
	selected, err := selectConfigs(pool, all)
	if err != nil {
		return nil, nil, err
	}
	if len(selected) == 0 {
		return nil, nil, fmt.Errorf("no MachineConfigs found matching selector %s", metav1.FormatLabelSelector(pool.Spec.MachineConfigSelector))
	}
	raw, err := merge(mergeOrder(selected))
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(raw)
	rendered := &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name:        renderedPrefix + pool.Name + "-" + hex.EncodeToString(sum[:hashBytes]),
			Annotations: map[string]string{machineconfigs.VersionAnnotation: version},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         mcfgv1.SchemeGroupVersion.String(),
				Kind:               "MachineConfigPool",
				Name:               pool.Name,
				UID:                pool.UID,
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: raw}},
	}
	source := make([]corev1.ObjectReference, len(selected))
	for i, mc := range selected {
		source[i] = corev1.ObjectReference{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfig", Name: mc.Name}
	}
	return rendered, source, nil
}

// mergeOrder returns configs (sorted by name) in the order MCO's MergeMachineConfigs merges them: those of the
// worker role first, then the others, each in name order, so that a custom pool's own MachineConfig replaces a
// worker one's file. Written here from MCO's code, not taken from the code under test.
func mergeOrder(configs []*mcfgv1.MachineConfig) []*mcfgv1.MachineConfig {
	var worker, others []*mcfgv1.MachineConfig
	for _, mc := range configs {
		if mc.Labels[mcfgv1.MachineConfigRoleLabelKey] == "worker" {
			worker = append(worker, mc)
		} else {
			others = append(others, mc)
		}
	}
	return append(worker, others...)
}

// merge returns the Ignition 3.5.0 JSON of configs merged in the given order: their storage.files
// concatenated, where a file whose path an earlier config already wrote replaces that file in its place.
// Everything else in the configs (units, kernel arguments, ...) is left out: the simulator only serves
// tests of files.
func merge(configs []*mcfgv1.MachineConfig) ([]byte, error) {
	merged := ign3types.Config{Ignition: ign3types.Ignition{Version: machineconfigs.IgnitionVersion}}
	index := map[string]int{}
	for _, mc := range configs {
		if len(mc.Spec.Config.Raw) == 0 {
			continue
		}
		var cfg ign3types.Config
		if err := json.Unmarshal(mc.Spec.Config.Raw, &cfg); err != nil {
			return nil, fmt.Errorf("MachineConfig %s: spec.config is not an Ignition config: %w", mc.Name, err)
		}
		for _, f := range cfg.Storage.Files {
			if i, ok := index[f.Path]; ok {
				merged.Storage.Files[i] = f
				continue
			}
			index[f.Path] = len(merged.Storage.Files)
			merged.Storage.Files = append(merged.Storage.Files, f)
		}
	}
	return json.Marshal(merged)
}

// baseConfig returns the MachineConfig 00-<pool> standing in for the configs MCO's template controller
// writes for a built-in pool, so that the pool has a rendered config before any other MachineConfig exists.
// It writes BaseFilePath, holding the pool's name.
func baseConfig(pool string) (*mcfgv1.MachineConfig, error) {
	raw, err := machineconfigs.Encode(nodefiles.Files{{Path: BaseFilePath, Data: []byte(pool + "\n")}})
	if err != nil {
		return nil, err
	}
	return &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name:   baseConfigName(pool),
			Labels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: pool},
		},
		Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: raw}},
	}, nil
}

// baseConfigName returns the name of the base MachineConfig of a built-in pool, e.g. "00-worker".
func baseConfigName(pool string) string { return "00-" + pool }
