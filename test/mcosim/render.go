package mcosim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
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
	merged, err := renderedconfig.Merge(selected, nil)
	if err != nil {
		return nil, nil, err
	}
	raw, err := renderedconfig.Encode(merged)
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

// paddingPath is the file of the MachineConfig 01-<pool>-padding (Options.RenderedBytes).
const paddingPath = "/etc/mcosim/padding"

// paddingConfig returns the MachineConfig 01-<pool>-padding that makes the pool's rendered MachineConfig, with only
// the base config 00-<pool> besides it, renderedBytes long (to within a few bytes): it writes paddingPath, filled to
// the size measured with the render's own merge, standing in for the MachineConfigs an install creates.
func paddingConfig(pool *mcfgv1.MachineConfigPool, base *mcfgv1.MachineConfig, renderedBytes int) (*mcfgv1.MachineConfig, error) {
	padding := func(n int) (*mcfgv1.MachineConfig, error) {
		raw, err := machineconfigs.Encode(nodefiles.Files{{Path: paddingPath, Data: []byte(strings.Repeat("#", max(n, 0)))}})
		if err != nil {
			return nil, err
		}
		return &mcfgv1.MachineConfig{
			ObjectMeta: metav1.ObjectMeta{Name: "01-" + pool.Name + "-padding", Labels: map[string]string{mcfgv1.MachineConfigRoleLabelKey: pool.Name}},
			Spec:       mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: raw}},
		}, nil
	}
	n := 0
	for range 3 { // base64: four bytes for three; measure, correct, measure again
		mc, err := padding(n)
		if err != nil {
			return nil, err
		}
		size, err := renderedconfig.Measure(renderedconfig.Pool{Pool: pool}, []*mcfgv1.MachineConfig{base, mc}, nil)
		if err != nil {
			return nil, err
		}
		n += (renderedBytes - size.Bytes) * 3 / 4
	}
	return padding(n)
}

// baseConfigName returns the name of the base MachineConfig of a built-in pool, e.g. "00-worker".
func baseConfigName(pool string) string { return "00-" + pool }
