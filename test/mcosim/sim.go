package mcosim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	"k8s.io/client-go/tools/cache"
)

const (
	// DefaultNodes is the number of machines of a pool when Options say nothing about it.
	DefaultNodes = 3
	// DefaultStepDelay is how long one rollout step takes when Options say nothing about it.
	DefaultStepDelay = 100 * time.Millisecond
	// DefaultControllerVersion is written into the rendered configs when Options say nothing about it.
	DefaultControllerVersion = "mcosim"
	// BaseFilePath is the file the base MachineConfig 00-<pool> of a built-in pool writes; it holds the
	// pool's name and a newline.
	BaseFilePath = "/etc/mcosim/pool"

	// resyncPeriod is how often the simulator looks at everything again with nothing to wait for.
	resyncPeriod = time.Second
	// retryDelay is how long the simulator waits after a failed write before trying again.
	retryDelay = 200 * time.Millisecond
)

// Options configure Start. The zero value is ready to use.
type Options struct {
	// Nodes is the number of simulated machines of the pools it names, e.g. {"infra": 1}. Other pools have
	// DefaultNodes. SetNodes changes it while the simulator runs.
	Nodes map[string]int
	// StepDelay is how long one rollout step takes: a machine's drain, update and reboot. Zero means
	// DefaultStepDelay. SetStepDelay changes it while the simulator runs.
	StepDelay time.Duration
	// ControllerVersion is the simulated MCO's build: written into the generated-by-controller-version
	// annotation of the rendered configs, and the only non-empty value of that annotation a pool's
	// MachineConfigs may carry (another makes the pool RenderDegraded). Empty means DefaultControllerVersion.
	ControllerVersion string
	// NoBaseConfigs leaves out the MachineConfig 00-<pool> the simulator otherwise creates for each built-in
	// pool (labelled machineconfiguration.openshift.io/mco-built-in), standing in for the configs MCO's
	// template controller writes. Without it, a pool no MachineConfig selects is RenderDegraded.
	NoBaseConfigs bool
	// RenderedBytes, when not 0, adds to each base config a MachineConfig 01-<pool>-padding that makes the pool's
	// rendered MachineConfig this long with the base configs alone, e.g. 243503, the largest of a default cluster
	// (docs/semantics.md §3.6): the size budget then is that of a real cluster.
	RenderedBytes int
}

// Sim plays MCO's render controller and the machine-config daemons of simulated nodes against an API
// server. Its methods are safe for concurrent use.
type Sim struct {
	client  mcfgclient.Interface
	opts    Options
	configs mcfglisters.MachineConfigLister
	factory mcfginformers.SharedInformerFactory
	// wakeup asks the loop for a pass; it holds at most one request, so bursts coalesce.
	wakeup   chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
	// passes counts the passes over all pools that finished (Passes).
	passes atomic.Int64

	mu        sync.Mutex
	pools     map[string]*poolState
	stepDelay time.Duration
}

// Start starts a simulator against client: it watches MachineConfigs and MachineConfigPools and acts on
// them until ctx ends or Stop is called. It returns once its caches are filled.
func Start(ctx context.Context, client mcfgclient.Interface, opts Options) (*Sim, error) {
	if opts.StepDelay <= 0 {
		opts.StepDelay = DefaultStepDelay
	}
	if opts.ControllerVersion == "" {
		opts.ControllerVersion = DefaultControllerVersion
	}
	ctx, cancel := context.WithCancel(ctx)
	factory := mcfginformers.NewSharedInformerFactory(client, 0)
	s := &Sim{
		client: client, opts: opts, factory: factory,
		configs: factory.Machineconfiguration().V1().MachineConfigs().Lister(),
		wakeup:  make(chan struct{}, 1), cancel: cancel, done: make(chan struct{}),
		pools: map[string]*poolState{}, stepDelay: opts.StepDelay,
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { s.wake() },
		UpdateFunc: func(any, any) { s.wake() },
		DeleteFunc: func(any) { s.wake() },
	}
	informers := []cache.SharedIndexInformer{
		factory.Machineconfiguration().V1().MachineConfigs().Informer(),
		factory.Machineconfiguration().V1().MachineConfigPools().Informer(),
	}
	for _, informer := range informers {
		if _, err := informer.AddEventHandler(handler); err != nil {
			cancel()
			return nil, fmt.Errorf("mcosim: %w", err)
		}
	}
	factory.Start(ctx.Done())
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			cancel()
			factory.Shutdown()
			return nil, fmt.Errorf("mcosim: the cache of %v did not fill: %w", typ, context.Cause(ctx))
		}
	}
	go s.run(ctx)
	return s, nil
}

// StartForTest starts a simulator against client for the test t, as Start does with t's context: it stops when
// the test ends, and a failure to start fails the test (t.Fatal).
func StartForTest(t testing.TB, client mcfgclient.Interface, opts Options) *Sim {
	t.Helper()
	sim, err := Start(t.Context(), client, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Stop)
	return sim
}

// Stop stops the simulator and waits until it has. The pools keep the status it last wrote. It is safe to
// call more than once.
func (s *Sim) Stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
		s.factory.Shutdown()
	})
}

// run makes a pass over all pools whenever something changed or a rollout step is due, until ctx ends.
func (s *Sim) run(ctx context.Context) {
	defer close(s.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wakeup:
		case <-timer.C:
		}
		timer.Reset(s.syncAll(ctx))
		s.passes.Add(1)
	}
}

// Passes returns how many passes over all pools the simulator has finished, each with the writes it made: a
// witness for a test that waits for a rollout not to move (a pass is when it would).
func (s *Sim) Passes() int64 { return s.passes.Load() }

// wake asks for a pass without waiting.
func (s *Sim) wake() {
	select {
	case s.wakeup <- struct{}{}:
	default:
	}
}

// Pause holds the rollout of pool, as spec.paused does: machines that are updating finish, no other starts.
func (s *Sim) Pause(pool string) { s.control(pool, func(p *poolState) { p.paused = true }) }

// Resume lets the rollout of pool go on after Pause.
func (s *Sim) Resume(pool string) { s.control(pool, func(p *poolState) { p.paused = false }) }

// Degrade makes one machine of pool fail, as a daemon that cannot apply a config does: the updating one, or
// else the first one not running the pool's config, or else the first. The rollout stops; the pool reports
// degradedMachineCount 1, Degraded=True and NodeDegraded=True with reason (empty means MCO's "1 nodes are
// reporting degraded status on sync") and the message MCO writes: `Node worker-1 is reporting: "<message>"`.
func (s *Sim) Degrade(pool, reason, message string) {
	s.control(pool, func(p *poolState) {
		p.degrade = &degradation{reason: reason, message: message}
		for i := range p.nodes {
			if p.nodes[i].degraded != nil {
				p.nodes[i].degraded = p.degrade
			}
		}
	})
}

// Heal undoes Degrade: the machine recovers and the rollout goes on.
func (s *Sim) Heal(pool string) {
	s.control(pool, func(p *poolState) {
		p.degrade = nil
		for i := range p.nodes {
			p.nodes[i].degraded = nil
		}
	})
}

// SetNodes gives pool n machines. New machines boot from the pool's spec.configuration, so they are updated
// at once; the last machines are the ones removed.
func (s *Sim) SetNodes(pool string, n int) {
	s.control(pool, func(p *poolState) { p.size = max(n, 0) })
}

// SetStepDelay changes how long one rollout step takes, from the next step on.
func (s *Sim) SetStepDelay(d time.Duration) {
	s.mu.Lock()
	s.stepDelay = d
	s.mu.Unlock()
	s.wake()
}

// control changes the state of pool and asks for a pass.
func (s *Sim) control(pool string, change func(*poolState)) {
	s.mu.Lock()
	change(s.stateLocked(pool))
	s.mu.Unlock()
	s.wake()
}

// stateLocked returns the state of the pool named name, creating it with the machine count of the Options.
// s.mu must be held.
func (s *Sim) stateLocked(name string) *poolState {
	p, ok := s.pools[name]
	if !ok {
		size, set := s.opts.Nodes[name]
		if !set {
			size = DefaultNodes
		}
		p = &poolState{size: size}
		s.pools[name] = p
	}
	return p
}
