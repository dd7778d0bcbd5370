package renderedconfig

import (
	"crypto/sha256"
	"fmt"
	"sync"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// Cache keeps the parsed config of every MachineConfig by the SHA-256 of its config, so that a pool's merge after a
// change parses only the configs that changed, pools whose MachineConfigs write the same files parse them once (also
// when they are measured at the same time: one parses, the others wait for it), and this project's MachineConfig,
// parsed before its write, is not parsed again once written. A stored MachineConfig's sum is kept by name, UID and
// resourceVersion (one not yet written by its encoding), so that an unchanged one is not hashed again. Sweep drops
// what the measurements since the last Sweep did not use. Safe for concurrent use; a nil Cache parses every time.
type Cache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*cached
	sums    map[version]*sum
}

// version identifies a stored MachineConfig by name, UID and resourceVersion, or one not yet written by its
// encoding (raw: the first byte of spec.config, n its length), which the desired MachineConfigs of pools writing the
// same files share and which is never changed once encoded.
type version struct {
	name, uid, resourceVersion string
	raw                        *byte
	n                          int
}

type sum struct {
	sum  [sha256.Size]byte
	used bool
}

type cached struct {
	// done is closed once cfg and err are set.
	done chan struct{}
	cfg  *ign3types.Config
	err  error
	used bool
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{entries: map[[sha256.Size]byte]*cached{}, sums: map[version]*sum{}}
}

// parse returns parse(mc), from the cache when the same config was parsed before. The result is shared: read it,
// never change it.
func (c *Cache) parse(mc *mcfgv1.MachineConfig) (*ign3types.Config, error) {
	if c == nil || len(mc.Spec.Config.Raw) == 0 {
		return parse(mc)
	}
	e := c.load(c.sumOf(mc), func() (*ign3types.Config, error) { return parseRaw(mc.Spec.Config.Raw) })
	if e.err != nil {
		return nil, named(mc, e.err)
	}
	return e.cfg, nil
}

// AddDesired puts the config of each desired MachineConfig in the cache as Ignition parses it, built from its files
// (machineconfigs.Parsed) instead of parsed from its spec.config, which is Encode of those files: measuring a
// change before its write then parses only the cluster's other MachineConfigs, not the megabyte just encoded.
// Desired MachineConfigs sharing one encoding (pools writing the same files) are added once.
func (c *Cache) AddDesired(desired ...*machineconfigs.Desired) {
	if c == nil {
		return
	}
	for _, d := range desired {
		if d != nil && len(d.Object.Spec.Config.Raw) > 0 {
			c.load(c.sumOf(d.Object), func() (*ign3types.Config, error) {
				if d.Parsed != nil {
					return d.Parsed, nil
				}
				return machineconfigs.Parsed(d.Files), nil
			})
		}
	}
}

// load returns the entry of key, made by compute when the cache has none; a caller asking for a key being made
// waits for it.
func (c *Cache) load(key [sha256.Size]byte, compute func() (*ign3types.Config, error)) *cached {
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &cached{done: make(chan struct{})}
		c.entries[key] = e
	}
	e.used = true
	c.mu.Unlock()
	if ok {
		<-e.done
	} else {
		e.cfg, e.err = compute()
		close(e.done)
	}
	return e
}

// sumOf returns the SHA-256 of mc's config (not empty), kept by its version so that it is hashed once.
func (c *Cache) sumOf(mc *mcfgv1.MachineConfig) [sha256.Size]byte {
	v := version{name: mc.Name, uid: string(mc.UID), resourceVersion: mc.ResourceVersion}
	if mc.ResourceVersion == "" {
		v = version{raw: &mc.Spec.Config.Raw[0], n: len(mc.Spec.Config.Raw)}
	}
	c.mu.Lock()
	s, ok := c.sums[v]
	if ok {
		s.used = true
	}
	c.mu.Unlock()
	if ok {
		return s.sum
	}
	s = &sum{sum: sha256.Sum256(mc.Spec.Config.Raw), used: true}
	c.mu.Lock()
	c.sums[v] = s
	c.mu.Unlock()
	return s.sum
}

// Sweep drops every entry not used since the last Sweep: call it after each round of measurements, so that old
// versions do not stay.
func (c *Cache) Sweep() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if !e.used {
			delete(c.entries, k)
			continue
		}
		e.used = false
	}
	for k, s := range c.sums {
		if !s.used {
			delete(c.sums, k)
			continue
		}
		s.used = false
	}
}

// Len returns how many parsed configs the cache holds.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// named says which MachineConfig's config err is about.
func named(mc *mcfgv1.MachineConfig, err error) error {
	return fmt.Errorf("MachineConfig %s: %w", mc.Name, err)
}
