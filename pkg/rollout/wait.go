package rollout

import (
	"errors"
	"slices"
	"sync/atomic"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/render"
)

// Cluster is what a Waiter reads of a live cluster (cluster.Reader): the inputs, the pools, where a render stands
// on a pool, and events of the inputs and the MachineConfigs.
type Cluster interface {
	Inputs() *inputs.Inputs
	Pool(name string) *mcfgv1.MachineConfigPool
	PoolRollout(pool *mcfgv1.MachineConfigPool, out *render.Output) (State, error)
	AddEventHandler(forKind func(*inputs.Kind) bool, h cache.ResourceEventHandler) error
	MachineConfigInformer() cache.SharedIndexInformer
}

// Waiter follows the pools of a cluster until the render of its inputs is live on every one (`registries-controller
// wait`): it renders again whenever an input changes, and judges each pool with the judgement the controller's
// rollout tracking makes (Judge, over every output the render manages).
//
//	w, err := rollout.NewWaiter(reader, nil, renderFunc) // nil: every built-in pool, and any other the render writes for
//	for {
//		look, err := w.Look()
//		... print look.States ...
//		if look.Live { break }
//		<-w.Wake() // or a timer: an input, a pool or a MachineConfig changed
//	}
type Waiter struct {
	cluster Cluster
	pools   []string
	render  func(*inputs.Inputs) (*render.Output, error)
	wake    chan struct{}
	// inputsChanged is set when an input changed since the last render.
	inputsChanged atomic.Bool
	output        *render.Output
	names         []string
}

// ErrNoBuiltInPool is returned when no pool is named and the cluster has no built-in pool.
var ErrNoBuiltInPool = errors.New("no built-in MachineConfigPool exists; name the pools to wait for")

// NewWaiter returns a Waiter for the pools named (when none is, every built-in pool and any other the render writes
// for), rendering the inputs with render (render.Render with the options of the caller). It registers its event
// handlers on c.
func NewWaiter(c Cluster, pools []string, render func(*inputs.Inputs) (*render.Output, error)) (*Waiter, error) {
	w := &Waiter{cluster: c, pools: pools, render: render, wake: make(chan struct{}, 1)}
	w.inputsChanged.Store(true)
	wake := func() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	changed := func() { w.inputsChanged.Store(true); wake() }
	err := c.AddEventHandler(func(*inputs.Kind) bool { return true }, cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { changed() }, UpdateFunc: func(any, any) { changed() }, DeleteFunc: func(any) { changed() },
	})
	if err != nil {
		return nil, err
	}
	_, err = c.MachineConfigInformer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { wake() }, UpdateFunc: func(any, any) { wake() }, DeleteFunc: func(any) { wake() },
	})
	return w, err
}

// Wake returns a channel that receives when an input, a pool or a MachineConfig changed since the last Look.
func (w *Waiter) Wake() <-chan struct{} { return w.wake }

// Look is what one look at the cluster found.
type Look struct {
	// Rendered is true when the inputs were rendered again; InputsChanged when the new render's MachineConfigs
	// write other files than the previous one's, or are others (the first render is no change).
	Rendered, InputsChanged bool
	// Summary says what the inputs hold, e.g. "1 Image, 2 ImageDigestMirrorSet" (on a render).
	Summary string
	// Pools are the pools waited for, sorted, and States where the render stands on each, in the same order.
	Pools  []string
	States []State
	// Live is true when the render is live on every pool.
	Live bool
}

// Degraded returns the first state that is Degraded: the change cannot roll out there until the pool recovers.
func (l Look) Degraded() (State, bool) {
	i := slices.IndexFunc(l.States, func(s State) bool { return s.Phase == Degraded })
	if i < 0 {
		return State{}, false
	}
	return l.States[i], true
}

// Look renders again when an input changed, and judges every pool. Invalid inputs give the render's
// *inputs.InvalidError: the controller writes nothing, so the change would never roll out.
func (w *Waiter) Look() (Look, error) {
	var look Look
	if w.inputsChanged.Swap(false) || w.output == nil {
		in := w.cluster.Inputs()
		out, err := w.render(in)
		if err != nil {
			return look, err
		}
		look.Rendered, look.Summary = true, in.Summary()
		look.InputsChanged = w.output != nil && !w.output.SameFiles(&out.Set)
		w.output = out
		if w.names, err = w.poolNames(in); err != nil {
			return look, err
		}
	}
	look.Pools, look.Live = w.names, true
	for _, name := range w.names {
		pool := w.cluster.Pool(name)
		if pool == nil {
			return look, &NoPoolError{Pool: name}
		}
		st, err := w.cluster.PoolRollout(pool, w.output)
		if err != nil {
			return look, err
		}
		look.States = append(look.States, st)
		look.Live = look.Live && st.Phase == Live
	}
	return look, nil
}

// NoPoolError says a pool waited for does not exist.
type NoPoolError struct{ Pool string }

func (e *NoPoolError) Error() string { return "MachineConfigPool " + e.Pool + " does not exist" }

// poolNames returns the pools to wait for: those named, or every built-in pool and every other pool the render
// (w.output) wants a MachineConfig for.
func (w *Waiter) poolNames(in *inputs.Inputs) ([]string, error) {
	if len(w.pools) > 0 {
		return slices.Clone(w.pools), nil
	}
	var names []string
	if len(in.Pools) > 0 {
		names = w.output.AllPools()
	}
	if len(names) == 0 {
		return nil, ErrNoBuiltInPool
	}
	return names, nil
}
