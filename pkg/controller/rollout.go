package controller

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// rolloutQueueName names the rollout tracker's queue in logs and workqueue metrics.
const rolloutQueueName = "registries-controller-rollout"

// rolloutTracker follows each built-in pool's generated MachineConfigs after a write until the write is live
// there, and reports it: the events above, and the metrics registries_controller_rollout_pending{pool,output} and
// registries_controller_rollout_duration_seconds{pool,output}. It only reads: pools and MachineConfigs (rendered
// ones included) from the caches. Its queue holds (pool, output) keys, so that a pool's status changing at every
// step of a rollout never re-renders.
type rolloutTracker struct {
	reader   *cluster.Reader
	recorder record.EventRecorder
	metrics  *rolloutMetrics
	clock    clock.PassiveClock
	queue    workqueue.TypedRateLimitingInterface[machineconfigs.Key]
	// operator is told where each pool's MachineConfigs stand, for the ClusterOperator (clusteroperator.go); nil:
	// nobody.
	operator *operatorStatus

	mu sync.Mutex
	// set is the desired set of the last successful render: what must be live, for the outputs it manages (Written
	// or Removed); nil before the first.
	set *machineconfigs.Set
	// tracked are the (pool, output) keys followed (keys without a suffix, machineconfigs.Key.Unsuffixed): for every
	// output set manages, the pools whose MachineConfigs of it the render decides on (setTracked).
	tracked map[machineconfigs.Key]*keyRollout
	// written holds, per output, the objects configuring it as of its last write (by reference: UID and
	// generation); nil before the first write since the start.
	written map[*machineconfigs.Output]map[inputs.ObjectRef]objectVersion
}

// keyRollout is what the tracker knows of one pool's MachineConfig of one output.
type keyRollout struct {
	// change is the write being followed until it is live; nil when none.
	change *change
}

// change is a write of a generated MachineConfig and the objects it is attributed to.
type change struct {
	wrote time.Time
	// objects are the Image "cluster" (registries, when it exists) and the objects configuring the output created
	// or changed since its previous write.
	objects []attributedObject
	// deleted are the objects deleted since the previous write, named in the Image's event.
	deleted []inputs.ObjectRef
	// degraded maps each object told RolloutDegraded to the pool condition it was told, so that a condition is
	// told once, also across a superseding change.
	degraded map[inputs.ObjectRef]string
}

// attributedObject is an object a change is attributed to, as it was when written.
type attributedObject struct {
	ref inputs.ObjectRef
	obj inputs.Object
}

// objectVersion tells two states of an object apart by what matters to a render: a new object (UID) or a new
// spec (generation), not metadata.
type objectVersion struct {
	uid        types.UID
	generation int64
}

func newRolloutTracker(reader *cluster.Reader, recorder record.EventRecorder, metrics *controllerMetrics, cfg Config) (*rolloutTracker, error) {
	t := &rolloutTracker{
		reader: reader, recorder: recorder, metrics: metrics.rollout, clock: cfg.Clock,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[machineconfigs.Key](),
			workqueue.TypedRateLimitingQueueConfig[machineconfigs.Key]{Name: rolloutQueueName, MetricsProvider: metrics.WorkqueueProvider(), Clock: cfg.Clock}),
		tracked: map[machineconfigs.Key]*keyRollout{},
		written: map[*machineconfigs.Output]map[inputs.ObjectRef]objectVersion{},
	}
	pools := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.enqueuePool(obj) },
		UpdateFunc: func(_, obj any) { t.enqueuePool(obj) },
		DeleteFunc: func(obj any) { t.enqueuePool(obj) },
	}
	if err := reader.AddEventHandler(cluster.OnlyKind(inputs.KindMachineConfigPool), pools); err != nil {
		return nil, err
	}
	configs := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { t.enqueueAll() },
		UpdateFunc: func(any, any) { t.enqueueAll() },
		DeleteFunc: func(any) { t.enqueueAll() },
	}
	if _, err := reader.MachineConfigInformer().AddEventHandler(configs); err != nil {
		return nil, fmt.Errorf("adding event handler: %w", err)
	}
	return t, nil
}

// enqueuePool asks for a look at the keys of the pool obj that are tracked.
func (t *rolloutTracker) enqueuePool(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	o, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for key := range t.tracked {
		if key.Pool == o.GetName() {
			t.queue.Add(key)
		}
	}
}

// enqueueAll asks for a look at every tracked key: a MachineConfig changed, e.g. MCO rendered a config.
func (t *rolloutTracker) enqueueAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for key := range t.tracked {
		t.queue.Add(key)
	}
}

// afterSync takes in what a sync did: the pools and outputs it rendered, and the MachineConfigs it wrote (created,
// updated or deleted), each of which starts a change to follow, superseding the one that key was following.
func (t *rolloutTracker) afterSync(ctx context.Context, res *syncResult) {
	if res == nil || res.inputs == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if res.output != nil {
		t.set = &res.output.Set
	}
	t.setTracked(res.inputs, res.writes)
	changes := map[*machineconfigs.Output]*change{}
	for _, w := range res.writes {
		p := t.tracked[w.key.Unsuffixed()]
		if p == nil {
			continue
		}
		c := changes[w.key.Output]
		if c == nil {
			c = t.changeOf(res.inputs, w.key.Output)
			changes[w.key.Output] = c
		}
		if p.change != nil {
			klog.FromContext(ctx).V(2).Info("A new write supersedes the rollout in progress", "machineConfig", w.key.Name(), "since", p.change.wrote)
		}
		p.change = c.superseding(p.change)
	}
	for key := range t.tracked {
		t.queue.Add(key)
	}
}

// setTracked tracks every output the last render manages on the pools of in it decides on (trackedPools), and
// forgets the others. t.mu must be held.
func (t *rolloutTracker) setTracked(in *inputs.Inputs, writes []write) {
	exists := map[string]bool{}
	for _, p := range in.Pools {
		exists[p.Name] = true
	}
	current := map[machineconfigs.Key]bool{}
	for _, o := range t.managed() {
		for _, pool := range t.trackedPools(o, in, writes) {
			if exists[pool] {
				current[machineconfigs.Key{Pool: pool, Output: o}] = true
			}
		}
	}
	for key := range current {
		if t.tracked[key] == nil {
			t.tracked[key] = &keyRollout{}
			t.metrics.pending.WithLabelValues(key.Pool, key.Output.ID).Set(0)
		}
	}
	for key := range t.tracked {
		if !current[key] {
			delete(t.tracked, key)
			t.metrics.pending.DeleteLabelValues(key.Pool, key.Output.ID)
			t.operator.keyGone(key)
		}
	}
}

// changeOf returns the change a write of output o with inputs in makes: for registries the Image, and the objects
// configuring o (inputs.Kind.Configures) created or changed since o's previous write, and those deleted; the first
// write since the start, the Image alone. It remembers in as the state of o's last write. t.mu must be held.
func (t *rolloutTracker) changeOf(in *inputs.Inputs, o *machineconfigs.Output) *change {
	c := &change{wrote: t.clock.Now()}
	if in.Image != nil && o == machineconfigs.Registries {
		c.objects = append(c.objects, attributedObject{ref: inputs.ImageRef, obj: in.Image})
	}
	before := t.written[o]
	now := map[inputs.ObjectRef]objectVersion{}
	var changed []attributedObject
	for _, k := range inputs.Kinds {
		if k.Configures != o {
			continue
		}
		for _, obj := range k.Objects(in) {
			ref := inputs.RefOf(k, obj)
			v := objectVersion{uid: obj.GetUID(), generation: obj.GetGeneration()}
			now[ref] = v
			if old, ok := before[ref]; before != nil && (!ok || old != v) && ref != inputs.ImageRef {
				changed = append(changed, attributedObject{ref: ref, obj: obj})
			}
		}
	}
	for ref := range before {
		if _, ok := now[ref]; !ok {
			c.deleted = append(c.deleted, ref)
		}
	}
	sort.Slice(c.deleted, func(i, j int) bool { return c.deleted[i].Less(c.deleted[j]) })
	c.objects = append(c.objects, changed...)
	t.written[o] = now
	return c
}

// superseding returns c, taking over the objects of older, a change c replaces before it was live: their changes
// go live with c (those deleted since are named as deleted), and no success is ever reported for older.
func (c *change) superseding(older *change) *change {
	if older == nil {
		return c
	}
	refs := map[inputs.ObjectRef]bool{}
	for _, o := range c.objects {
		refs[o.ref] = true
	}
	gone := map[inputs.ObjectRef]bool{}
	for _, ref := range c.deleted {
		gone[ref] = true
	}
	for _, o := range older.objects {
		if !refs[o.ref] && !gone[o.ref] {
			refs[o.ref] = true
			c.objects = append(c.objects, o)
		}
	}
	for ref, told := range older.degraded {
		if refs[ref] {
			c.tell(ref, told)
		}
	}
	for _, ref := range older.deleted {
		if !gone[ref] && !refs[ref] {
			gone[ref] = true
			c.deleted = append(c.deleted, ref)
		}
	}
	sort.Slice(c.deleted, func(i, j int) bool { return c.deleted[i].Less(c.deleted[j]) })
	return c
}

// tell records that the object ref was told the pool condition msg.
func (c *change) tell(ref inputs.ObjectRef, msg string) {
	if c.degraded == nil {
		c.degraded = map[inputs.ObjectRef]string{}
	}
	c.degraded[ref] = msg
}

func (t *rolloutTracker) runWorker(ctx context.Context) {
	for t.processNextWorkItem(ctx) {
	}
}

func (t *rolloutTracker) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := t.queue.Get()
	if shutdown {
		return false
	}
	defer t.queue.Done(key)
	if err := t.check(ctx, key); err != nil {
		klog.FromContext(ctx).Error(err, "Judging the rollout failed, will retry", "machineConfig", key.Name())
		t.queue.AddRateLimited(key)
		return true
	}
	t.queue.Forget(key)
	return true
}

// check judges where the last render of key's output stands on key's pool, sets its pending gauge, and reports the
// change it follows once it is live or when the pool is degraded.
func (t *rolloutTracker) check(ctx context.Context, key machineconfigs.Key) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, pool := t.tracked[key], t.reader.Pool(key.Pool)
	if p == nil || pool == nil || t.set == nil || t.set.StateOf(key.Output).State == machineconfigs.Unmanaged {
		return nil
	}
	st, err := t.reader.Rollout(pool, key.Output, t.set.MachineConfigs)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx).WithValues("pool", key.Pool, "output", key.Output.ID)
	defer func() { t.operator.rolloutState(key, st, p.change != nil) }()
	if st.Phase == rollout.Live {
		t.metrics.pending.WithLabelValues(key.Pool, key.Output.ID).Set(0)
	} else {
		t.metrics.pending.WithLabelValues(key.Pool, key.Output.ID).Set(1)
	}
	c := p.change
	if c == nil {
		logger.V(4).Info("Rollout", "phase", st.Phase, "state", st.Message)
		return nil
	}
	switch st.Phase {
	case rollout.Live:
		took := t.clock.Since(c.wrote)
		t.metrics.duration.WithLabelValues(key.Pool, key.Output.ID).Observe(took.Seconds())
		msg := fmt.Sprintf("live on pool %s: %s, %s after the change", key.Pool, st.Message, took.Round(time.Second))
		if key.Output != machineconfigs.Registries {
			msg = fmt.Sprintf("%s live on pool %s: %s, %s after the change", rolloutSubject(key), key.Pool, st.Message, took.Round(time.Second))
		}
		logger.Info("Rolled out", "renderedConfig", st.Rendered, "after", took, "objects", len(c.objects))
		t.record(c.objects, c.deleted, corev1.EventTypeNormal, reasons.RolledOut, msg)
		p.change = nil
	case rollout.Degraded:
		var untold []attributedObject
		for _, o := range c.objects {
			if c.degraded[o.ref] != st.Message {
				c.tell(o.ref, st.Message)
				untold = append(untold, o)
			}
		}
		if len(untold) > 0 {
			logger.Info("Pool degraded during the rollout", "condition", st.Message)
			t.record(untold, nil, corev1.EventTypeWarning, reasons.RolloutDegraded,
				fmt.Sprintf("not live on pool %s, the pool is degraded: %s", key.Pool, st.Message))
		}
	default:
		logger.V(2).Info("Rollout pending", "state", st.Message)
	}
	return nil
}

// trackedPools returns the pools whose MachineConfigs of o the last render decides on: every built-in pool of in
// for an output of built-in pools; for an output of the pools objects select, those with a desired MachineConfig,
// those written in this sync (a delete is followed until it is live) and those still following a change. t.mu
// must be held.
func (t *rolloutTracker) trackedPools(o *machineconfigs.Output, in *inputs.Inputs, writes []write) []string {
	if o.Pools == machineconfigs.OnBuiltInPools {
		return machineconfigs.BuiltInPools(in.Pools)
	}
	pools := t.set.PoolsOf(o)
	for _, w := range writes {
		if w.key.Output == o {
			pools = append(pools, w.key.Pool)
		}
	}
	for key, p := range t.tracked {
		if key.Output == o && p.change != nil {
			pools = append(pools, key.Pool)
		}
	}
	return pools
}

// managed returns the outputs the last render manages, none before the first. t.mu must be held.
func (t *rolloutTracker) managed() []*machineconfigs.Output {
	if t.set == nil {
		return nil
	}
	return t.set.Managed()
}

// rolloutSubject names what a RolledOut event of key, a pool and an output, is about: the pool's MachineConfig of
// the output, or, for an output with one per object, all of them.
func rolloutSubject(key machineconfigs.Key) string {
	if key.Output.PerObject {
		return fmt.Sprintf("the %s MachineConfigs", key.Output.ID)
	}
	return key.Name()
}

// record records an event on every object of objects; the Image's names the objects deleted.
func (t *rolloutTracker) record(objects []attributedObject, deleted []inputs.ObjectRef, eventType, reason, msg string) {
	for _, o := range objects {
		text := msg
		if o.ref == inputs.ImageRef && len(deleted) > 0 {
			names := make([]string, len(deleted))
			for i, ref := range deleted {
				names[i] = ref.String()
			}
			text += "; deleted: " + strings.Join(names, ", ")
		}
		t.recorder.Event(o.obj, eventType, reason, truncate(text))
	}
}

// rolloutMetrics are registries_controller_rollout_pending{pool,output} (1 while a built-in pool does not run the
// last render of the output, 0 otherwise) and registries_controller_rollout_duration_seconds{pool,output} (from a
// write to live).
type rolloutMetrics struct {
	pending  *prometheus.GaugeVec
	duration *prometheus.HistogramVec
}

func newRolloutMetrics(reg prometheus.Registerer) *rolloutMetrics {
	m := &rolloutMetrics{
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "rollout_pending",
			Help: "1 while a built-in pool's nodes do not all run a rendered config carrying the last render of the output, 0 otherwise.",
		}, []string{"pool", "output"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "rollout_duration_seconds",
			Help:    "Time from a MachineConfig write to every node of the pool running it.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16), // 1s to 9h
		}, []string{"pool", "output"}),
	}
	reg.MustRegister(m.pending, m.duration)
	return m
}

// poolsRenderHandler passes on the pool events that can change a render or its budget: adds, deletes, label changes,
// and a new rendered MachineConfig or selector (another writer's MachineConfig changes the rendered size, docs/semantics.md
// §3.6). A render reads only the pools' names and labels (machineconfigs.BuiltInPools); their status changes at every
// step of a rollout and must not re-render.
func poolsRenderHandler(h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    h.AddFunc,
		DeleteFunc: h.DeleteFunc,
		UpdateFunc: func(oldObj, newObj any) {
			o, errO := meta.Accessor(oldObj)
			n, errN := meta.Accessor(newObj)
			if errO != nil || errN != nil || !reflect.DeepEqual(o.GetLabels(), n.GetLabels()) || renderedChanged(oldObj, newObj) {
				h.UpdateFunc(oldObj, newObj)
			}
		},
	}
}
