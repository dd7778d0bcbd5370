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
//	st, err := r.PoolRollout(pool, out) // where out stands on pool
package cluster

import (
	"fmt"
	"slices"
	"sync"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// source is where the objects of one input kind are read.
type source struct {
	kind     *inputs.Kind
	informer cache.SharedIndexInformer
	// unwatched says why the kind's objects are not read, "" while they are (an optional kind whose feature gate
	// is off, or whose CRD is missing).
	unwatched string
}

// handler is an event handler for the informers of the input kinds it is for.
type handler struct {
	forKind func(*inputs.Kind) bool
	handler cache.ResourceEventHandler
}

// Reader reads the render's inputs and the MachineConfigs from informer caches. Objects it returns are shared
// with the caches: read them, never change them.
//
// The informers of the required kinds (inputs.Kind.Optional false) and of MachineConfigs are registered by
// NewReader. An optional kind (a gated kind, the FeatureGate) is read only once Watch registers its informer, as
// MCO watches a gated kind only while its gate is on; until then, and after Unwatch, Inputs says why in
// inputs.Inputs.Unwatched.
type Reader struct {
	inf     Informers
	configs cache.SharedIndexInformer
	lister  mcfglisters.MachineConfigLister
	// decoder decodes each version of a MachineConfig once: generated ones at every sync, rendered ones at every
	// rollout check.
	decoder *machineconfigs.Decoder

	mu          sync.Mutex
	sources     []*source // one per kind of inputs.Kinds, in its order
	handlers    []handler
	watchErrors func(kind string) cache.WatchErrorHandlerWithContext
	started     <-chan struct{} // the stop channel the informers were started with; nil before Start
}

// decoderSize bounds the MachineConfigs whose decoded config a Reader keeps: the generated ones and the rendered
// configs of a few pools, current and previous.
const decoderSize = 64

// notWatchedYet is why an optional kind is not read before Watch or Unwatch says otherwise.
const notWatchedYet = "it is not watched yet"

// NewReader registers with inf an informer for every required input kind (inputs.Kinds) and for MachineConfigs.
// It starts nothing: start them with Start.
func NewReader(inf Informers) (*Reader, error) {
	r := &Reader{inf: inf, decoder: machineconfigs.NewDecoder(decoderSize)}
	for _, k := range inputs.Kinds {
		s := &source{kind: k, unwatched: notWatchedYet}
		if !k.Optional {
			informer, err := inf.ForResource(k.GroupVersionResource())
			if err != nil {
				return nil, fmt.Errorf("informer for %s: %w", k.Name, err)
			}
			s.informer, s.unwatched = informer, ""
		}
		r.sources = append(r.sources, s)
	}
	configs := inf.MachineConfig.Machineconfiguration().V1().MachineConfigs()
	r.configs, r.lister = configs.Informer(), configs.Lister()
	return r, nil
}

// Start starts every informer registered so far, and those Watch registers later; they stop when stop is closed.
func (r *Reader) Start(stop <-chan struct{}) {
	r.mu.Lock()
	r.started = stop
	r.mu.Unlock()
	r.inf.Start(stop)
}

// AddEventHandler adds h to the informer of every input kind forKind accepts, those Watch registers later
// included.
func (r *Reader) AddEventHandler(forKind func(*inputs.Kind) bool, h cache.ResourceEventHandler) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handlers = append(r.handlers, handler{forKind: forKind, handler: h})
	for _, s := range r.sources {
		if s.informer != nil && forKind(s.kind) {
			if _, err := s.informer.AddEventHandler(h); err != nil {
				return fmt.Errorf("adding an event handler to the informer of %s: %w", s.kind.Name, err)
			}
		}
	}
	return nil
}

// OnlyKind accepts the input kind named name, for AddEventHandler.
func OnlyKind(name string) func(*inputs.Kind) bool {
	return func(k *inputs.Kind) bool { return k.Name == name }
}

// SetWatchErrorHandler makes handlerFor(kind) the watch error handler of every informer, those Watch registers
// later included. Call it before Start.
func (r *Reader) SetWatchErrorHandler(handlerFor func(kind string) cache.WatchErrorHandlerWithContext) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watchErrors = handlerFor
	for _, s := range r.sources {
		if s.informer != nil {
			if err := s.informer.SetWatchErrorHandlerWithContext(handlerFor(s.kind.Name)); err != nil {
				return fmt.Errorf("watch error handler of %s: %w", s.kind.Name, err)
			}
		}
	}
	if err := r.configs.SetWatchErrorHandlerWithContext(handlerFor("MachineConfig")); err != nil {
		return fmt.Errorf("watch error handler of MachineConfig: %w", err)
	}
	return nil
}

// Watch reads the optional kind k from now on: it registers its informer (once) with the handlers given so far,
// and starts it when the Reader was started. It reports whether k was not read before.
func (r *Reader) Watch(k *inputs.Kind) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.source(k)
	if s == nil {
		return false, fmt.Errorf("%s is not an input kind", k.Name)
	}
	if s.informer != nil && s.unwatched == "" {
		return false, nil
	}
	if s.informer == nil {
		informer, err := r.inf.ForResource(k.GroupVersionResource())
		if err != nil {
			return false, fmt.Errorf("informer for %s: %w", k.Name, err)
		}
		if r.watchErrors != nil {
			if err := informer.SetWatchErrorHandlerWithContext(r.watchErrors(k.Name)); err != nil {
				return false, fmt.Errorf("watch error handler of %s: %w", k.Name, err)
			}
		}
		for _, h := range r.handlers {
			if h.forKind(k) {
				if _, err := informer.AddEventHandler(h.handler); err != nil {
					return false, fmt.Errorf("adding an event handler to the informer of %s: %w", k.Name, err)
				}
			}
		}
		s.informer = informer
		if r.started != nil {
			r.inf.Start(r.started)
		}
	}
	s.unwatched = ""
	return true, nil
}

// Unwatch stops reading the optional kind k, for the reason why (e.g. "the feature gate X is off"): Inputs then
// holds none of its objects and says why in Unwatched. Its informer, if any, keeps running, so that a Watch again
// finds its cache filled. It reports whether k was read before.
func (r *Reader) Unwatch(k *inputs.Kind, why string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.source(k)
	if s == nil || !k.Optional {
		return false
	}
	was := s.unwatched == ""
	s.unwatched = why
	return was
}

// Watched reports whether the kind k is read.
func (r *Reader) Watched(k *inputs.Kind) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.source(k)
	return s != nil && s.unwatched == ""
}

// source returns the source of k. r.mu must be held.
func (r *Reader) source(k *inputs.Kind) *source {
	for _, s := range r.sources {
		if s.kind == k {
			return s
		}
	}
	return nil
}

// Informer returns the informer of an input kind, nil for a kind not in inputs.Kinds or an optional kind never
// watched.
func (r *Reader) Informer(k *inputs.Kind) cache.SharedIndexInformer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.source(k); s != nil {
		return s.informer
	}
	return nil
}

// MachineConfigInformer returns the informer of every MachineConfig: generated, rendered and others.
func (r *Reader) MachineConfigInformer() cache.SharedIndexInformer { return r.configs }

// HasSynced reports whether the cache of every kind read, and of the MachineConfigs, is filled.
func (r *Reader) HasSynced() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sources {
		if s.unwatched == "" && !s.informer.HasSynced() {
			return false
		}
	}
	return r.configs.HasSynced()
}

// Inputs returns every input of a render, as the caches hold them now: one source per input kind read; the
// optional kinds not read are in Unwatched, with the reason. Objects are shared with the cache and only read.
// Reading a cache cannot fail, so unlike MCO's listers (docs/semantics.md §9.9, D2) there is no list
// error to swallow; a failed write is returned and retried.
func (r *Reader) Inputs() *inputs.Inputs {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := &inputs.Inputs{}
	for _, s := range r.sources {
		if s.unwatched != "" {
			if in.Unwatched == nil {
				in.Unwatched = map[string]string{}
			}
			in.Unwatched[s.kind.Name] = s.unwatched
			continue
		}
		for _, o := range s.informer.GetIndexer().List() {
			if obj, ok := o.(inputs.Object); ok {
				in.AddUnique(s.kind, obj) // an informer's objects have unique keys
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
func (r *Reader) Decoder() *machineconfigs.Decoder { return r.decoder }

// Running returns the rendered config every node of pool runs, as its status names it (status.configuration),
// and its files at the paths a render may write (machineconfigs.Managed): what a node has before a change, e.g. for
// `preview`. The error says the pool has no rendered config yet, or it cannot be read.
func (r *Reader) Running(pool *mcfgv1.MachineConfigPool) (string, nodefiles.Files, error) {
	name := pool.Status.Configuration.Name
	if name == "" {
		return "", nil, fmt.Errorf("MachineConfigPool %s has no rendered config in its status yet", pool.Name)
	}
	mc, err := r.lister.Get(name)
	if err == nil {
		var files nodefiles.Files
		if files, err = rollout.ManagedFiles(r.decoder, mc, machineconfigs.Managed); err == nil {
			return name, files, nil
		}
	}
	return name, nil, fmt.Errorf("the rendered config of MachineConfigPool %s: %w", pool.Name, err)
}

// Generated returns the MachineConfigs of output whose files pool's nodes get, as the cluster holds them
// (rollout.Generated: those pool selects that are ours), in merge order.
func (r *Reader) Generated(pool *mcfgv1.MachineConfigPool, output *machineconfigs.Output) ([]*mcfgv1.MachineConfig, error) {
	configs, err := r.lister.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	return rollout.Generated(pool, configs, output)
}

// Expect returns what pool's rendered config must hold for ours, a render's desired MachineConfigs (those of output
// the pool selects count), to be live there (rollout.Expect), with the MachineConfigs the cluster holds now:
// Want.Files are the files its nodes will run at the output's paths once ours roll out, e.g. to compare with
// Running.
func (r *Reader) Expect(pool *mcfgv1.MachineConfigPool, output *machineconfigs.Output, ours []*machineconfigs.Desired) (rollout.Want, error) {
	configs, err := r.lister.List(labels.Everything())
	if err != nil {
		return rollout.Want{}, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	return rollout.Expect(pool, configs, r.decoder, output, ours)
}

// Rollout returns where ours, a render's desired MachineConfigs of output, stand on pool (rollout.Judge), with what
// the cluster's MachineConfigs say now. The error is about the pool's other MachineConfigs (one that cannot be read)
// or its selector.
func (r *Reader) Rollout(pool *mcfgv1.MachineConfigPool, output *machineconfigs.Output, ours []*machineconfigs.Desired) (rollout.State, error) {
	want, err := r.Expect(pool, output, ours)
	if err != nil {
		return rollout.State{}, err
	}
	return rollout.Judge(pool, r.lister.Get, r.decoder, want), nil
}

// PoolRollout returns where out, a render, stands on pool: Live when every output out manages (Written or Removed)
// is live there; otherwise the state of the output furthest from live (rollout.Furthest).
func (r *Reader) PoolRollout(pool *mcfgv1.MachineConfigPool, out *render.Output) (rollout.State, error) {
	var states []rollout.State
	for _, o := range out.Managed() {
		st, err := r.Rollout(pool, o, out.MachineConfigs)
		if err != nil {
			return rollout.State{}, err
		}
		states = append(states, st)
	}
	if len(states) == 0 {
		return rollout.State{Pool: pool.Name, Phase: rollout.Live, Message: "nothing to roll out"}, nil
	}
	return rollout.Furthest(states), nil
}

// PoolState is where the nodes of a pool stand against the pool's generated MachineConfigs as the cluster holds
// them now: what they run, what they will run once those are live, and how far the rollout is.
type PoolState struct {
	// Rendered is the rendered config the pool's status names, which every node runs or is leaving, and Running its
	// files at the paths of the outputs asked about; RunningErr says why they cannot be read (no rendered config
	// yet).
	Rendered   string
	Running    nodefiles.Files
	RunningErr error
	// Generated are the names of the generated MachineConfigs of the outputs asked about whose files the pool's
	// nodes get (Reader.Generated), e.g. 99-worker-generated-registries.
	Generated []string
	// Expected are the files the nodes run at the outputs' paths once the generated MachineConfigs are live
	// (Expect), and Difference the first path at which Running differs from them ("" when the nodes run them
	// already, or Running cannot be read).
	Expected   nodefiles.Files
	Difference string
	// State is the furthest from live of the outputs' rollouts (Degraded, then Pending, then Live).
	State rollout.State
}

// RollingOut reports whether the nodes do not run the generated MachineConfigs yet.
func (s PoolState) RollingOut() bool { return s.Difference != "" }

// PoolState returns where pool stands against its generated MachineConfigs of outputs (every output when none is
// given), as the cluster holds them now: the one judgement of "what is rolling out" `explain --kubeconfig` and
// `preview` make. An output without a generated MachineConfig counts as writing nothing.
func (r *Reader) PoolState(pool *mcfgv1.MachineConfigPool, outputs ...*machineconfigs.Output) (PoolState, error) {
	if len(outputs) == 0 {
		outputs = machineconfigs.Outputs
	}
	var st PoolState
	var running nodefiles.Files
	st.Rendered, running, st.RunningErr = r.Running(pool)
	for _, f := range running {
		if o, ok := machineconfigs.OwnerOf(f.Path); ok && slices.Contains(outputs, o) {
			st.Running = append(st.Running, f)
		}
	}
	var states []rollout.State
	for _, o := range outputs {
		gens, err := r.Generated(pool, o)
		if err != nil {
			return st, err
		}
		held := make([]*machineconfigs.Desired, 0, len(gens))
		for _, gen := range gens {
			d, err := r.held(gen)
			if err != nil {
				return st, err
			}
			st.Generated = append(st.Generated, gen.Name)
			held = append(held, d)
		}
		want, err := r.Expect(pool, o, held)
		if err != nil {
			return st, err
		}
		st.Expected = append(st.Expected, want.Files...)
		states = append(states, rollout.Judge(pool, r.lister.Get, r.decoder, want))
	}
	st.State = rollout.Furthest(states)
	if st.RunningErr == nil {
		st.Difference = rollout.Difference(st.Running, st.Expected)
	}
	return st, nil
}

// held returns a generated MachineConfig as the cluster holds it, as a render would want it: its key, object and
// decoded files.
func (r *Reader) held(mc *mcfgv1.MachineConfig) (*machineconfigs.Desired, error) {
	key, _ := machineconfigs.ParseName(mc.Name)
	cfg, err := r.decoder.Decode(mc)
	if err != nil {
		return nil, err
	}
	return &machineconfigs.Desired{Key: key, Files: cfg.Files, Object: mc}, nil
}

// ExpectAll returns the files pool's nodes run at the paths of outputs once ours, a render's desired
// MachineConfigs, are live, with the MachineConfigs the cluster holds now: Expect of each output, together.
func (r *Reader) ExpectAll(pool *mcfgv1.MachineConfigPool, outputs []*machineconfigs.Output, ours []*machineconfigs.Desired) (nodefiles.Files, error) {
	var out nodefiles.Files
	for _, o := range outputs {
		want, err := r.Expect(pool, o, ours)
		if err != nil {
			return nil, err
		}
		out = append(out, want.Files...)
	}
	return out, nil
}
