package machineconfigs

import (
	"container/list"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Decoder decodes MachineConfigs once per version: it keeps the decoded config of the last version (UID and
// resourceVersion) of up to a number of MachineConfigs, so that a sync or a rollout check that finds a
// MachineConfig unchanged does not decode it again. Safe for concurrent use. Objects without a resourceVersion
// (read from a file) are decoded every time.
type Decoder struct {
	size int

	mu      sync.Mutex
	entries map[string]*list.Element // by name
	order   *list.List               // most recently used first
}

type decoded struct {
	name            string
	uid             types.UID
	resourceVersion string
	cfg             *Config
	err             error
}

// NewDecoder returns a Decoder that keeps up to size MachineConfigs (the least recently used is dropped).
func NewDecoder(size int) *Decoder {
	return &Decoder{size: max(size, 1), entries: map[string]*list.Element{}, order: list.New()}
}

// Decode returns Decode(mc), from the cache when mc's version was decoded before. The result is shared: read it,
// never change it. A nil Decoder decodes every time.
func (d *Decoder) Decode(mc *mcfgv1.MachineConfig) (*Config, error) {
	if d == nil || mc.ResourceVersion == "" {
		return Decode(mc)
	}
	d.mu.Lock()
	if e, ok := d.entries[mc.Name]; ok {
		v := e.Value.(*decoded)
		if v.uid == mc.UID && v.resourceVersion == mc.ResourceVersion {
			d.order.MoveToFront(e)
			d.mu.Unlock()
			return v.cfg, v.err
		}
	}
	d.mu.Unlock()
	cfg, err := Decode(mc)
	d.mu.Lock()
	defer d.mu.Unlock()
	v := &decoded{name: mc.Name, uid: mc.UID, resourceVersion: mc.ResourceVersion, cfg: cfg, err: err}
	if e, ok := d.entries[mc.Name]; ok {
		e.Value = v
		d.order.MoveToFront(e)
	} else {
		d.entries[mc.Name] = d.order.PushFront(v)
	}
	for d.order.Len() > d.size {
		last := d.order.Back()
		d.order.Remove(last)
		delete(d.entries, last.Value.(*decoded).name)
	}
	return cfg, err
}

// Forget drops what is kept of the MachineConfig name, e.g. once it is deleted.
func (d *Decoder) Forget(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.entries[name]; ok {
		d.order.Remove(e)
		delete(d.entries, name)
	}
}
