// Package cluster reads a live cluster as the controller does: the render's inputs from shared informer caches
// (Reader.Inputs is the controller's gather), the MachineConfigs, and where a render stands on each pool
// (Reader.Rollout). The controller reads through it, and so do the commands that look at a cluster (`wait`,
// `migrate-icsp --kubeconfig`), so a command judges from exactly what the controller reads.
//
// A command connects read-only (get, list and watch) and reads once the caches are filled:
//
//	r, stop, err := cluster.Connect(ctx, restConfig)
//	if err != nil { ... }
//	defer stop()
//	out, err := render.Render(r.Inputs(), opts)
//	st, err := r.Rollout(pool, generated.Registries, out.Files(generated.Registries)) // where out stands on pool
package cluster

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/generated"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// source is where the objects of one input kind are read.
type source struct {
	kind     *inputs.Kind
	informer cache.SharedIndexInformer
}

// Reader reads the render's inputs and the MachineConfigs from informer caches. Objects it returns are shared
// with the caches: read them, never change them.
type Reader struct {
	sources []source
	configs cache.SharedIndexInformer
	lister  mcfglisters.MachineConfigLister
	synced  []cache.InformerSynced
	// decoder decodes each version of a MachineConfig once: generated ones at every sync, rendered ones at every
	// rollout check.
	decoder *generated.Decoder
}

// decoderSize bounds the MachineConfigs whose decoded config a Reader keeps: the generated ones and the rendered
// configs of a few pools, current and previous.
const decoderSize = 64

// NewReader registers with inf an informer for every input kind (inputs.Kinds) and for MachineConfigs. It
// starts nothing: start inf once every informer is registered.
func NewReader(inf Informers) (*Reader, error) {
	r := &Reader{decoder: generated.NewDecoder(decoderSize)}
	for _, k := range inputs.Kinds {
		informer, err := inf.ForResource(k.GroupVersionResource())
		if err != nil {
			return nil, fmt.Errorf("informer for %s: %w", k.Name, err)
		}
		r.sources = append(r.sources, source{kind: k, informer: informer})
		r.synced = append(r.synced, informer.HasSynced)
	}
	configs := inf.MachineConfig.Machineconfiguration().V1().MachineConfigs()
	r.configs, r.lister = configs.Informer(), configs.Lister()
	r.synced = append(r.synced, r.configs.HasSynced)
	return r, nil
}

// Informer returns the informer of an input kind, e.g. to add event handlers; nil for a kind not in inputs.Kinds.
func (r *Reader) Informer(k *inputs.Kind) cache.SharedIndexInformer {
	for _, s := range r.sources {
		if s.kind == k {
			return s.informer
		}
	}
	return nil
}

// MachineConfigInformer returns the informer of every MachineConfig: generated, rendered and others.
func (r *Reader) MachineConfigInformer() cache.SharedIndexInformer { return r.configs }

// Synced returns the HasSynced functions of every informer the Reader reads.
func (r *Reader) Synced() []cache.InformerSynced { return r.synced }

// HasSynced reports whether every cache is filled.
func (r *Reader) HasSynced() bool {
	for _, s := range r.synced {
		if !s() {
			return false
		}
	}
	return true
}

// Inputs returns every input of a render, as the caches hold them now: one source per input kind. Objects are
// shared with the cache and only read. Reading a cache cannot fail, so unlike the reference's listers
// (docs/semantics.md §9.9, D2) there is no list error to swallow; a failed write is returned and retried.
func (r *Reader) Inputs() *inputs.Inputs {
	in := &inputs.Inputs{}
	for _, s := range r.sources {
		for _, o := range s.informer.GetIndexer().List() {
			if obj, ok := o.(inputs.Object); ok {
				in.Add(s.kind, obj)
			}
		}
	}
	return in
}

// MachineConfigs returns the lister of every MachineConfig.
func (r *Reader) MachineConfigs() mcfglisters.MachineConfigLister { return r.lister }

// Pool returns the MachineConfigPool named name, or nil when there is none.
func (r *Reader) Pool(name string) *mcfgv1.MachineConfigPool {
	o, ok, err := r.Informer(inputs.KindNamed(inputs.KindMachineConfigPool)).GetIndexer().GetByKey(name)
	if err != nil || !ok {
		return nil
	}
	p, _ := o.(*mcfgv1.MachineConfigPool)
	return p
}

// Decoder returns the Reader's MachineConfig decoder, which decodes each version of a MachineConfig once.
func (r *Reader) Decoder() *generated.Decoder { return r.decoder }

// Running returns the rendered config every node of pool runs, as its status names it (status.configuration),
// and its files at the paths a render may write (generated.Managed): what a node has before a change, e.g. for
// `preview`. The error says the pool has no rendered config yet, or it cannot be read.
func (r *Reader) Running(pool *mcfgv1.MachineConfigPool) (string, nodefiles.Files, error) {
	name := pool.Status.Configuration.Name
	if name == "" {
		return "", nil, fmt.Errorf("MachineConfigPool %s has no rendered config in its status yet", pool.Name)
	}
	mc, err := r.lister.Get(name)
	if err == nil {
		var files nodefiles.Files
		if files, err = rollout.ManagedFiles(r.decoder, mc, generated.Managed); err == nil {
			return name, files, nil
		}
	}
	return name, nil, fmt.Errorf("the rendered config of MachineConfigPool %s: %w", pool.Name, err)
}

// Generated returns output's generated MachineConfig whose files pool's nodes get (rollout.GeneratedFor: a built-in
// pool's own, the worker one for a custom pool), or an error for which apierrors.IsNotFound is true when the
// controller has not written it.
func (r *Reader) Generated(pool *mcfgv1.MachineConfigPool, output *generated.Output) (*mcfgv1.MachineConfig, error) {
	configs, err := r.lister.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	return r.lister.Get(rollout.GeneratedFor(pool, configs, output))
}

// Expect returns what pool's rendered config must hold for files, a render's node files of output, to be live
// there (rollout.Expect), with the MachineConfigs the cluster holds now: Want.Files are the files its nodes will run
// at the output's paths once files roll out, e.g. to compare with Running.
func (r *Reader) Expect(pool *mcfgv1.MachineConfigPool, output *generated.Output, files nodefiles.Files) (rollout.Want, error) {
	configs, err := r.lister.List(labels.Everything())
	if err != nil {
		return rollout.Want{}, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	return rollout.Expect(pool, configs, r.decoder, output, files)
}

// Rollout returns where files, a render's node files of output, stand on pool (rollout.Judge), with what the
// cluster's MachineConfigs say now. The error is about the pool's other MachineConfigs (one that cannot be read)
// or its selector.
func (r *Reader) Rollout(pool *mcfgv1.MachineConfigPool, output *generated.Output, files nodefiles.Files) (rollout.State, error) {
	want, err := r.Expect(pool, output, files)
	if err != nil {
		return rollout.State{}, err
	}
	return rollout.Judge(pool, r.lister.Get, r.decoder, want), nil
}

// PoolRollout returns where out, a render, stands on pool: Live when every output out manages (render.Written or
// render.Removed) is live there; otherwise the state of the first output that is not, a Degraded one first.
func (r *Reader) PoolRollout(pool *mcfgv1.MachineConfigPool, out *render.Output) (rollout.State, error) {
	var live, pending *rollout.State
	for _, o := range out.Outputs {
		if o.State == render.Unmanaged {
			continue
		}
		st, err := r.Rollout(pool, o.Output, o.Files)
		if err != nil {
			return rollout.State{}, err
		}
		switch st.Phase {
		case rollout.Degraded:
			return st, nil
		case rollout.Live:
			if live == nil {
				live = &st
			}
		default:
			if pending == nil {
				pending = &st
			}
		}
	}
	switch {
	case pending != nil:
		return *pending, nil
	case live != nil:
		return *live, nil
	}
	return rollout.State{Pool: pool.Name, Phase: rollout.Live, Message: "nothing to roll out"}, nil
}
