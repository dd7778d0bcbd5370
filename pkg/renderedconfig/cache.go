package renderedconfig

import (
	"crypto/sha256"
	"sync"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
)

// Cache keeps the parsed config of every MachineConfig by name, UID and resourceVersion, and of every MachineConfig
// not yet written (no resourceVersion) by the SHA-256 of its config, so that a pool's merge after a change parses
// only the MachineConfigs that changed, and pools whose MachineConfigs write the same files parse them once. Sweep
// drops what the measurements since the last Sweep did not use. Safe for concurrent use; a nil Cache parses every
// time.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cached
}

type cacheKey struct {
	// name, uid and resourceVersion identify a stored MachineConfig; sum a desired one's config.
	name, uid, resourceVersion string
	sum                        [sha256.Size]byte
}

type cached struct {
	cfg  *ign3types.Config
	err  error
	used bool
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{entries: map[cacheKey]*cached{}} }

// parse returns parse(mc), from the cache when the same version or the same config was parsed before. The result
// is shared: read it, never change it.
func (c *Cache) parse(mc *mcfgv1.MachineConfig) (*ign3types.Config, error) {
	if c == nil || len(mc.Spec.Config.Raw) == 0 {
		return parse(mc)
	}
	key := cacheKey{name: mc.Name, uid: string(mc.UID), resourceVersion: mc.ResourceVersion}
	if mc.ResourceVersion == "" {
		key = cacheKey{sum: sha256.Sum256(mc.Spec.Config.Raw)}
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		e.used = true
	}
	c.mu.Unlock()
	if ok {
		return e.cfg, e.err
	}
	cfg, err := parse(mc)
	c.mu.Lock()
	c.entries[key] = &cached{cfg: cfg, err: err, used: true}
	c.mu.Unlock()
	return cfg, err
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
