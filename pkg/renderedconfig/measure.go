package renderedconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

const (
	// nearPercent is how full a rendered MachineConfig may get before admins are warned.
	nearPercent = 80
	// topConfigs is how many of a pool's MachineConfigs a size names.
	topConfigs = 5
)

// Pool is what the measurement of one pool needs besides its MachineConfigs.
type Pool struct {
	// Pool's spec.machineConfigSelector says which MachineConfigs are merged.
	Pool *mcfgv1.MachineConfigPool
	// Rendered is the pool's current rendered MachineConfig (status.configuration.name), nil when it has none yet:
	// its metadata and its spec but spec.config are what the next rendered MachineConfig carries too.
	Rendered *mcfgv1.MachineConfig
}

// Size is how large a pool's rendered MachineConfig is, or will be.
type Size struct {
	// Pool is the pool's name, e.g. "worker".
	Pool string
	// Bytes is the length of the rendered MachineConfig's JSON, e.g. 1204116.
	Bytes int
	// Before is the length with the cluster's MachineConfigs as they are, measured only when Bytes is over the
	// limit (MeasureChange), else 0: a change that shrinks a rendered MachineConfig already over the limit is not
	// refused.
	Before int
	// Configs are the MachineConfigs merged (for an offline estimate, this project's only), with the length of each
	// one's spec.config, largest first, at most five.
	Configs []Contributor
}

// Contributor is one MachineConfig merged into a rendered one.
type Contributor struct {
	// Name is the MachineConfig's, e.g. "99-worker-generated-registries".
	Name string
	// Bytes is the length of its spec.config, e.g. 1427000.
	Bytes int
}

// Percent is Bytes as a share of MaxBytes, rounded down.
func (s Size) Percent() int { return s.Bytes * 100 / MaxBytes }

// Near reports whether the rendered MachineConfig is at least 80% of the limit.
func (s Size) Near() bool { return s.Percent() >= nearPercent }

// Over reports whether the render controller refuses the rendered MachineConfig.
func (s Size) Over() bool { return s.Bytes > MaxBytes }

// Refused reports whether the change measured must not be written: it leaves the rendered MachineConfig over the
// limit, and no smaller than it is (the render controller refuses it, and the pool's nodes get no configuration at
// all until the input shrinks).
func (s Size) Refused() bool { return s.Over() && (s.Before == 0 || s.Bytes >= s.Before) }

// String says it for a person: `the rendered MachineConfig of pool worker is 1,304,116 bytes, 82% of the 1,572,864
// bytes (1.5 MiB) the machine-config-operator accepts`.
func (s Size) String() string {
	return fmt.Sprintf("the rendered MachineConfig of pool %s is %s bytes, %d%% of the %s bytes (1.5 MiB) the machine-config-operator accepts",
		s.Pool, Thousands(s.Bytes), s.Percent(), Thousands(MaxBytes))
}

// Largest names the largest MachineConfigs merged, e.g. "99-worker-generated-registries (1,427,000 bytes),
// 01-worker-kubelet (98,000 bytes)"; those ours says are this project's are left out.
func (s Size) Largest(ours func(name string) bool) string {
	var parts []string
	for _, c := range s.Configs {
		if ours == nil || !ours(c.Name) {
			parts = append(parts, fmt.Sprintf("%s (%s bytes)", c.Name, Thousands(c.Bytes)))
		}
	}
	return strings.Join(parts, ", ")
}

// Select returns the MachineConfigs of all that pool's spec.machineConfigSelector matches, rendered ones left out.
// As in the render controller, a nil selector selects nothing and an empty one everything.
func Select(pool *mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig) ([]*mcfgv1.MachineConfig, error) {
	if pool.Spec.MachineConfigSelector == nil {
		return nil, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil {
		return nil, fmt.Errorf("MachineConfigPool %q: spec.machineConfigSelector: %w", pool.Name, err)
	}
	var out []*mcfgv1.MachineConfig
	for _, mc := range all {
		if !strings.HasPrefix(mc.Name, RenderedPrefix) && selector.Matches(labels.Set(mc.Labels)) {
			out = append(out, mc)
		}
	}
	return out, nil
}

// After returns the MachineConfigs the cluster holds once actions (machineconfigs.Plan) are carried out: existing,
// with the desired MachineConfig of each create and update in place of the one it replaces, and without those
// deleted.
func After(existing []*mcfgv1.MachineConfig, actions []machineconfigs.Action) []*mcfgv1.MachineConfig {
	replaced := map[string]*mcfgv1.MachineConfig{}
	for _, a := range actions {
		switch a.Op {
		case machineconfigs.Create, machineconfigs.Update:
			replaced[a.Want.Object.Name] = a.Want.Object
		case machineconfigs.Delete:
			replaced[a.Have.Name] = nil
		}
	}
	out := make([]*mcfgv1.MachineConfig, 0, len(existing)+len(replaced))
	for _, mc := range existing {
		if r, ok := replaced[mc.Name]; ok {
			if r != nil {
				out = append(out, r)
			}
			delete(replaced, mc.Name)
			continue
		}
		out = append(out, mc)
	}
	names := make([]string, 0, len(replaced))
	for name, mc := range replaced {
		if mc != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, replaced[name])
	}
	return out
}

// Measure returns the size of the rendered MachineConfig the render controller makes for pool from all (every
// MachineConfig the cluster holds, or will hold: After): the selected ones merged (Merge), in pool.Rendered's
// place.
func Measure(pool Pool, all []*mcfgv1.MachineConfig, cache *Cache) (Size, error) {
	selected, err := Select(pool.Pool, all)
	if err != nil {
		return Size{}, err
	}
	merged, err := Merge(selected, cache)
	if err != nil {
		return Size{}, fmt.Errorf("pool %s: %w", pool.Pool.Name, err)
	}
	raw, err := Encode(merged)
	if err != nil {
		return Size{}, err
	}
	envelope := pool.Rendered
	if envelope == nil {
		envelope = newEnvelope(pool.Pool)
	}
	bytes, err := sizeWith(envelope, len(raw))
	if err != nil {
		return Size{}, err
	}
	return Size{Pool: pool.Pool.Name, Bytes: bytes, Configs: largest(selected)}, nil
}

// MeasureChange returns the size of pool's rendered MachineConfig once actions (machineconfigs.Plan) are carried out
// on existing (every MachineConfig of the cluster); when that is over the limit, Before says how large it is
// without them.
func MeasureChange(pool Pool, existing []*mcfgv1.MachineConfig, actions []machineconfigs.Action, cache *Cache) (Size, error) {
	after, err := Measure(pool, After(existing, actions), cache)
	if err != nil || !after.Over() {
		return after, err
	}
	before, err := Measure(pool, existing, cache)
	if err != nil {
		return Size{}, err
	}
	after.Before = before.Bytes
	return after, nil
}

// MeasurePools returns, for each of pools, the size of its rendered MachineConfig once actions are carried out on
// all (every MachineConfig of the cluster): MeasureChange with the pool's current rendered MachineConfig
// (CurrentName) found in all, pools measured concurrently. errs[i] is pool i's error, e.g. another writer's
// MachineConfig the render controller cannot merge, and sizes[i] is then empty. The desired MachineConfigs of actions
// are added to cache (AddDesired).
func MeasurePools(pools []*mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig, actions []machineconfigs.Action, cache *Cache) (sizes []Size, errs []error) {
	for _, a := range actions {
		cache.AddDesired(a.Want)
	}
	byName := make(map[string]*mcfgv1.MachineConfig, len(all))
	for _, mc := range all {
		byName[mc.Name] = mc
	}
	sizes, errs = make([]Size, len(pools)), make([]error, len(pools))
	var wg sync.WaitGroup
	for i, pool := range pools {
		wg.Go(func() {
			sizes[i], errs[i] = MeasureChange(Pool{Pool: pool, Rendered: byName[CurrentName(pool)]}, all, actions, cache)
		})
	}
	wg.Wait()
	return sizes, errs
}

// CurrentName returns the name of the pool's current rendered MachineConfig: the one its nodes run
// (status.configuration), or the one it is rolling out when none runs yet.
func CurrentName(pool *mcfgv1.MachineConfigPool) string {
	if pool.Status.Configuration.Name != "" {
		return pool.Status.Configuration.Name
	}
	return pool.Spec.Configuration.Name
}

// Estimate returns the size of a pool's rendered MachineConfig without a cluster: baseBytes, the rendered
// MachineConfig of the pool before this project's MachineConfigs, plus what ours (the pool's MachineConfigs of
// this project) add to its merged config. It errs on the large side: the files ours replace are counted in
// baseBytes too. Configs are parsed through cache (nil: every time).
func Estimate(pool string, baseBytes int, ours []*mcfgv1.MachineConfig, cache *Cache) (Size, error) {
	empty, err := Encode(ign3types.Config{Ignition: ign3types.Ignition{Version: ign3types.MaxVersion.String()}})
	if err != nil {
		return Size{}, err
	}
	merged, err := Merge(ours, cache)
	if err != nil {
		return Size{}, err
	}
	raw, err := Encode(merged)
	if err != nil {
		return Size{}, err
	}
	return Size{Pool: pool, Bytes: baseBytes + len(raw) - len(empty), Configs: largest(ours)}, nil
}

// sizeWith returns the length of the JSON of mc with a spec.config of n bytes, as the render controller creates it:
// without what the API server adds (uid, resourceVersion, creationTimestamp, managedFields).
func sizeWith(mc *mcfgv1.MachineConfig, n int) (int, error) {
	meta := &mcfgv1.MachineConfig{
		TypeMeta: metav1.TypeMeta{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfig"},
		ObjectMeta: metav1.ObjectMeta{Name: mc.Name, Labels: mc.Labels, Annotations: mc.Annotations,
			OwnerReferences: mc.OwnerReferences},
		Spec: *mc.Spec.DeepCopy(),
	}
	meta.Spec.Config.Raw = nil
	data, err := json.Marshal(meta)
	if err != nil {
		return 0, fmt.Errorf("encoding MachineConfig %s: %w", mc.Name, err)
	}
	return len(data) - len("null") + n, nil
}

// newEnvelope returns a rendered MachineConfig of pool with no config, as the render controller names and owns
// it, for a pool that has none yet.
func newEnvelope(pool *mcfgv1.MachineConfigPool) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{
		ObjectMeta: metav1.ObjectMeta{
			Name: RenderedPrefix + pool.Name + "-" + strings.Repeat("0", 32),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: mcfgv1.SchemeGroupVersion.String(), Kind: "MachineConfigPool",
				Name: pool.Name, UID: pool.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}},
		},
	}
}

// largest returns the five MachineConfigs of configs with the largest spec.config, largest first.
func largest(configs []*mcfgv1.MachineConfig) []Contributor {
	all := make([]Contributor, len(configs))
	for i, mc := range configs {
		all[i] = Contributor{Name: mc.Name, Bytes: len(mc.Spec.Config.Raw)}
	}
	slices.SortFunc(all, func(a, b Contributor) int {
		if a.Bytes != b.Bytes {
			return b.Bytes - a.Bytes
		}
		return strings.Compare(a.Name, b.Name)
	})
	return all[:min(len(all), topConfigs)]
}

// Thousands prints n with commas: 1572864 as "1,572,864".
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
