package renderedconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

const (
	// MaxBytes is the largest rendered MachineConfig the render controller accepts, as JSON: 1,572,864 bytes
	// (1.5 MiB, ValidateMachineConfigSize in MCO's render controller).
	MaxBytes = 1536 * 1024
	// RenderedPrefix starts the name of every rendered MachineConfig: rendered-<pool>-<hash>.
	RenderedPrefix = "rendered-"
	// workerRole is the role whose MachineConfigs the render controller merges first.
	workerRole = "worker"
)

// Order returns configs in the order the render controller merges them: those of the worker role first, then the
// others, each by name, so that a custom pool's own MachineConfig replaces a worker one's file. configs is not
// changed.
func Order(configs []*mcfgv1.MachineConfig) []*mcfgv1.MachineConfig {
	out := slices.Clone(configs)
	slices.SortStableFunc(out, func(a, b *mcfgv1.MachineConfig) int {
		aw, bw := a.Labels[mcfgv1.MachineConfigRoleLabelKey] == workerRole, b.Labels[mcfgv1.MachineConfigRoleLabelKey] == workerRole
		if aw != bw {
			if aw {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Merge returns the Ignition config the render controller makes of configs: each parsed (through cache, which may
// be nil) and merged with Ignition's merge in Order. A MachineConfig without a config adds nothing; one whose config
// Ignition refuses is an error naming it.
func Merge(configs []*mcfgv1.MachineConfig, cache *Cache) (ign3types.Config, error) {
	out := ign3types.Config{Ignition: ign3types.Ignition{Version: ign3types.MaxVersion.String()}}
	for _, mc := range Order(configs) {
		cfg, err := cache.parse(mc)
		if err != nil {
			return ign3types.Config{}, err
		}
		if cfg != nil {
			out = ign3.Merge(out, *cfg)
		}
	}
	return out, nil
}

// Encode returns the JSON of a merged config, as the render controller writes it into the rendered MachineConfig's
// spec.config (encoding/json, which keeps empty structs such as "verification":{}).
func Encode(cfg ign3types.Config) ([]byte, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding the merged Ignition config: %w", err)
	}
	return raw, nil
}

// parse returns mc's config translated to Ignition 3.5, nil when it has none.
func parse(mc *mcfgv1.MachineConfig) (*ign3types.Config, error) {
	if len(mc.Spec.Config.Raw) == 0 {
		return nil, nil
	}
	cfg, err := parseRaw(mc.Spec.Config.Raw)
	if err != nil {
		return nil, named(mc, err)
	}
	return cfg, nil
}

// parseRaw returns a config translated to Ignition 3.5.
func parseRaw(raw []byte) (*ign3types.Config, error) {
	cfg, _, err := ign3.ParseCompatibleVersion(raw)
	if err != nil {
		return nil, fmt.Errorf("spec.config is not an Ignition config the render controller accepts: %w", err)
	}
	return &cfg, nil
}
