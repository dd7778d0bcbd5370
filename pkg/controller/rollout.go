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
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// Event reasons of rollout tracking.
const (
	// ReasonRolledOut (Normal) is recorded once a write is live on a pool (rollout.Judge), on the Image "cluster"
	// and on every configuration object created or changed since the previous write:
	//   live on pool worker: 5/5 nodes on rendered-worker-<hash>, 4m12s after the change
	// The Image's event also names the objects deleted since the previous write. The first write after the
	// controller starts is attributed to the Image alone.
	ReasonRolledOut = "RolledOut"
	// ReasonRolloutDegraded (Warning) is recorded on the same objects when the pool goes degraded before the
	// write is live, quoting the pool's condition, once per distinct condition:
	//   not live on pool worker, the pool is degraded: NodeDegraded: Node worker-1 is reporting: "..."
	ReasonRolloutDegraded = "RolloutDegraded"

	// rolloutQueueName names the rollout tracker's queue in logs and workqueue metrics.
	rolloutQueueName = "registries-controller-rollout"
)

// rolloutTracker follows each built-in pool after a write until the write is live there, and reports it: the
// events above, and the metrics registries_controller_rollout_pending{pool} and
// registries_controller_rollout_duration_seconds{pool}. It only reads: pools and MachineConfigs (rendered ones
// included) from the caches. Its queue holds pool names, so that a pool's status changing at every step of a
// rollout never re-renders.
type rolloutTracker struct {
	reader   *cluster.Reader
	recorder record.EventRecorder
	metrics  *rolloutMetrics
	clock    clock.PassiveClock
	queue    workqueue.TypedRateLimitingInterface[string]
	// operator is told where each pool stands, for the ClusterOperator (clusteroperator.go); nil: nobody.
	operator *operatorStatus

	mu sync.Mutex
	// files are the node files of the last successful render (rendered tells whether there was one): what must
	// be live.
	files    nodefiles.Files
	rendered bool
	// pools are the built-in pools of the last sync.
	pools map[string]*poolRollout
	// written holds the configuration objects as of the last write (by reference: UID and generation); nil
	// before the first write since the start.
	written map[inputs.ObjectRef]objectVersion
}

// poolRollout is what the tracker knows of one pool.
type poolRollout struct {
	// change is the write being followed until it is live; nil when none.
	change *change
}

// change is a write of a pool's MachineConfig and the objects it is attributed to.
type change struct {
	wrote time.Time
	// objects are the Image "cluster" (when it exists) and the objects created or changed since the previous write.
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

func newRolloutTracker(reader *cluster.Reader, recorder record.EventRecorder, metrics *Metrics, cfg Config) (*rolloutTracker, error) {
	t := &rolloutTracker{
		reader: reader, recorder: recorder, metrics: metrics.rollout, clock: cfg.Clock,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: rolloutQueueName, MetricsProvider: metrics.WorkqueueProvider(), Clock: cfg.Clock}),
		pools: map[string]*poolRollout{},
	}
	pools := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.enqueue(obj) },
		UpdateFunc: func(_, obj any) { t.enqueue(obj) },
		DeleteFunc: func(obj any) { t.enqueue(obj) },
	}
	if _, err := reader.Informer(inputs.KindNamed(inputs.KindMachineConfigPool)).AddEventHandler(pools); err != nil {
		return nil, fmt.Errorf("adding event handler: %w", err)
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

// enqueue asks for a look at the pool obj, when it is tracked.
func (t *rolloutTracker) enqueue(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	o, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	t.mu.Lock()
	_, tracked := t.pools[o.GetName()]
	t.mu.Unlock()
	if tracked {
		t.queue.Add(o.GetName())
	}
}

// enqueueAll asks for a look at every tracked pool: a MachineConfig changed, e.g. MCO rendered a config.
func (t *rolloutTracker) enqueueAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name := range t.pools {
		t.queue.Add(name)
	}
}

// afterSync takes in what a sync did: the pools it rendered for, the files it rendered and the MachineConfigs it
// wrote, each of which starts a change to follow, superseding the one that pool was following.
func (t *rolloutTracker) afterSync(ctx context.Context, res *syncResult) {
	if res == nil || res.inputs == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if res.output != nil {
		t.files, t.rendered = res.output.Files, true
	}
	t.setPools(res.inputs)
	var written []string
	for _, w := range res.writes {
		if w.object != nil && t.pools[w.pool] != nil {
			written = append(written, w.pool)
		}
	}
	if len(written) > 0 {
		c := t.changeOf(res.inputs)
		for _, pool := range written {
			p := t.pools[pool]
			if p.change != nil {
				klog.FromContext(ctx).V(2).Info("A new write supersedes the rollout in progress", "pool", pool, "since", p.change.wrote)
			}
			p.change = c.superseding(p.change)
		}
	}
	for name := range t.pools {
		t.queue.Add(name)
	}
}

// setPools tracks the built-in pools of in, and forgets the others. t.mu must be held.
func (t *rolloutTracker) setPools(in *inputs.Inputs) {
	current := map[string]bool{}
	for _, p := range in.Pools {
		if _, builtIn := p.Labels[render.BuiltInPoolLabel]; builtIn {
			current[p.Name] = true
		}
	}
	for name := range current {
		if t.pools[name] == nil {
			t.pools[name] = &poolRollout{}
			t.metrics.pending.WithLabelValues(name).Set(0)
		}
	}
	for name := range t.pools {
		if !current[name] {
			delete(t.pools, name)
			t.metrics.pending.DeleteLabelValues(name)
			t.operator.poolGone(name)
		}
	}
}

// changeOf returns the change a write with inputs in makes: the Image and the configuration objects created or
// changed since the previous write, and those deleted; the first write since the start, the Image alone. It
// remembers in as the state of the last write. t.mu must be held.
func (t *rolloutTracker) changeOf(in *inputs.Inputs) *change {
	c := &change{wrote: t.clock.Now()}
	if in.Image != nil {
		c.objects = append(c.objects, attributedObject{ref: inputs.ImageRef, obj: in.Image})
	}
	now := map[inputs.ObjectRef]objectVersion{}
	var changed []attributedObject
	for _, k := range inputs.Kinds {
		if !attributed(k) {
			continue
		}
		for _, o := range k.Objects(in) {
			ref := inputs.RefOf(k, o)
			v := objectVersion{uid: o.GetUID(), generation: o.GetGeneration()}
			now[ref] = v
			if old, ok := t.written[ref]; t.written != nil && (!ok || old != v) && k.Name != inputs.KindImage {
				changed = append(changed, attributedObject{ref: ref, obj: o})
			}
		}
	}
	for ref := range t.written {
		if _, ok := now[ref]; !ok {
			c.deleted = append(c.deleted, ref)
		}
	}
	sort.Slice(c.deleted, func(i, j int) bool { return c.deleted[i].Less(c.deleted[j]) })
	c.objects = append(c.objects, changed...)
	t.written = now
	return c
}

// attributed reports whether rollouts are attributed to objects of kind k: the configuration an admin writes.
func attributed(k *inputs.Kind) bool {
	switch k.Name {
	case inputs.KindImage, inputs.KindClusterImagePolicy, inputs.KindImagePolicy:
		return true
	}
	return k.Mirrors
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
	pool, shutdown := t.queue.Get()
	if shutdown {
		return false
	}
	defer t.queue.Done(pool)
	if err := t.check(ctx, pool); err != nil {
		klog.FromContext(ctx).Error(err, "Judging the rollout failed, will retry", "pool", pool)
		t.queue.AddRateLimited(pool)
		return true
	}
	t.queue.Forget(pool)
	return true
}

// check judges where the last render stands on pool, sets its pending gauge, and reports the change it follows
// once it is live or when the pool is degraded.
func (t *rolloutTracker) check(ctx context.Context, name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, pool := t.pools[name], t.reader.Pool(name)
	if p == nil || pool == nil || !t.rendered {
		return nil
	}
	st, err := t.reader.Rollout(pool, t.files)
	if err != nil {
		return err
	}
	logger := klog.FromContext(ctx).WithValues("pool", name)
	defer func() { t.operator.rolloutState(name, st, p.change != nil) }()
	if st.Phase == rollout.Live {
		t.metrics.pending.WithLabelValues(name).Set(0)
	} else {
		t.metrics.pending.WithLabelValues(name).Set(1)
	}
	c := p.change
	if c == nil {
		logger.V(4).Info("Rollout", "phase", st.Phase, "state", st.Message)
		return nil
	}
	switch st.Phase {
	case rollout.Live:
		took := t.clock.Since(c.wrote)
		t.metrics.duration.WithLabelValues(name).Observe(took.Seconds())
		msg := fmt.Sprintf("live on pool %s: %s, %s after the change", name, st.Message, took.Round(time.Second))
		logger.Info("Rolled out", "renderedConfig", st.Rendered, "after", took, "objects", len(c.objects))
		t.record(c.objects, c.deleted, corev1.EventTypeNormal, ReasonRolledOut, msg)
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
			t.record(untold, nil, corev1.EventTypeWarning, ReasonRolloutDegraded,
				fmt.Sprintf("not live on pool %s, the pool is degraded: %s", name, st.Message))
		}
	default:
		logger.V(2).Info("Rollout pending", "state", st.Message)
	}
	return nil
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

// rolloutMetrics are registries_controller_rollout_pending{pool} (1 while a built-in pool does not run the last
// render, 0 otherwise) and registries_controller_rollout_duration_seconds{pool} (from a write to live).
type rolloutMetrics struct {
	pending  *prometheus.GaugeVec
	duration *prometheus.HistogramVec
}

func newRolloutMetrics(reg prometheus.Registerer) *rolloutMetrics {
	m := &rolloutMetrics{
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "rollout_pending",
			Help: "1 while a built-in pool's nodes do not all run a rendered config carrying the last render, 0 otherwise.",
		}, []string{"pool"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "rollout_duration_seconds",
			Help:    "Time from a MachineConfig write to every node of the pool running it.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16), // 1s to 9h
		}, []string{"pool"}),
	}
	reg.MustRegister(m.pending, m.duration)
	return m
}

// poolsRenderHandler passes on the pool events that can change a render: adds, deletes and label changes. A
// render reads only the pools' names and labels (render.PoolNames); their status changes at every step of a
// rollout and must not re-render.
func poolsRenderHandler(h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    h.AddFunc,
		DeleteFunc: h.DeleteFunc,
		UpdateFunc: func(oldObj, newObj any) {
			o, errO := meta.Accessor(oldObj)
			n, errN := meta.Accessor(newObj)
			if errO != nil || errN != nil || !reflect.DeepEqual(o.GetLabels(), n.GetLabels()) {
				h.UpdateFunc(oldObj, newObj)
			}
		},
	}
}
