// Package controller is the thin shell around the pure render path: informers feed one work queue key,
// and each sync gathers every input from the listers, renders once, and writes only the
// MachineConfigs whose meaning changed.
package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned/typed/config/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned/typed/machineconfiguration/v1"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

const (
	// queueName names the work queue in logs and workqueue metrics.
	queueName = "registries-controller"
	// FieldManager is the field manager of every write.
	FieldManager = "registries-controller"
	// queueKey is the one key every event enqueues: any change can affect every pool, so a burst of
	// events becomes one sync.
	queueKey = "cluster"
)

// Config tunes the controller. The zero value of each field means its default.
type Config struct {
	// SettleDelay is how long the inputs must stay quiet before a sync runs, so that `kubectl apply -f dir/`
	// becomes one write per pool instead of one per object. Default 1s.
	SettleDelay time.Duration
	// MaxSettleDelay bounds the wait under a continuous stream of events. Default 10 × SettleDelay.
	MaxSettleDelay time.Duration
	// Clock tells the time for the settle delay and the queue's delays. Default the real clock.
	Clock clock.WithTicker
	// RateLimiter spaces the retries of failed syncs. Default exponential, from 200ms to 2 minutes.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Checker loads every rendered set of files back with containers/image. Default registriesconf.NewChecker().
	Checker render.Checker
	// ClusterOperator says what the ClusterOperator reports besides the controller's state (clusteroperator.go).
	ClusterOperator ClusterOperatorConfig
	// RevertBackoff and MaxRevertBackoff space out the reverts of a MachineConfig that another writer keeps
	// changing (see revertLimiter). Default 1s and 5m.
	RevertBackoff, MaxRevertBackoff time.Duration
	// KeepUnreadFields makes the informer caches hold whole objects (cluster.KeepUnreadFields): a benchmark switch,
	// to measure the memory their transform saves. Off in production.
	KeepUnreadFields bool
}

// withDefaults returns cfg with every unset field at its default.
func (cfg Config) withDefaults() Config {
	if cfg.SettleDelay <= 0 {
		cfg.SettleDelay = time.Second
	}
	if cfg.MaxSettleDelay < cfg.SettleDelay {
		cfg.MaxSettleDelay = 10 * cfg.SettleDelay
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](200*time.Millisecond, 2*time.Minute)
	}
	if cfg.Checker == nil {
		cfg.Checker = registriesconf.NewChecker()
	}
	if cfg.RevertBackoff <= 0 {
		cfg.RevertBackoff = defaultRevertBackoff
	}
	if cfg.MaxRevertBackoff < cfg.RevertBackoff {
		cfg.MaxRevertBackoff = max(defaultMaxRevertBackoff, cfg.RevertBackoff)
	}
	return cfg
}

// Controller keeps every built-in pool's generated registries MachineConfig in line with the cluster's
// mirror configuration.
type Controller struct {
	client mcfgclient.MachineConfigsGetter
	// status writes the status of the objects reported on through their status (inputs.Kind.Status).
	statusWriter statusClient
	metrics      *controllerMetrics
	status       *statusReporter
	cfg          Config

	reader   *cluster.Reader
	rollouts *rolloutTracker
	configs  mcfglisters.MachineConfigLister

	queue   workqueue.TypedRateLimitingInterface[string]
	reverts *revertLimiter
	// last is the last render, reused while the inputs do not change; only the worker touches it.
	last lastRender
	// rendered are the pools' rendered MachineConfigs measured last, for renderedFor (renderedKey), reused by a
	// sync that writes nothing while the pools' rendered MachineConfigs stay; budgetCache keeps the parsed configs
	// the measurements merge. Only the worker touches them.
	rendered    []renderedconfig.Size
	renderedFor string
	budgetCache *renderedconfig.Cache
	// operator keeps the ClusterOperator's status current (clusteroperator.go).
	operator *operatorStatus

	// settle tracks the burst being absorbed: the last event, the first one since the last sync, and whether the
	// inputs were rendered ahead in it (settling).
	settleMu      sync.Mutex
	lastEvent     time.Time
	firstEvent    time.Time
	renderedAhead bool
}

// clients are what the controller writes with: the MachineConfigs, the status of the objects reported on through
// their status (the signature policies, the CRIOCredentialProviderConfig), and the ClusterOperator (nil: not
// written).
type clients struct {
	MachineConfigs   mcfgclient.MachineConfigsGetter
	Status           statusClient
	ClusterOperators configclient.ClusterOperatorsGetter
}

// newController wires the controller to its informers: one per input kind (inputs.Kinds), and the
// MachineConfigs it generates. It registers event handlers; it starts nothing.
func newController(writers clients, inf cluster.Informers, recorder record.EventRecorder, metrics *controllerMetrics, cfg Config) (*Controller, error) {
	cfg = cfg.withDefaults()
	c := &Controller{
		client:       writers.MachineConfigs,
		statusWriter: writers.Status,
		metrics:      metrics,
		status:       newStatusReporter(recorder, metrics),
		cfg:          cfg,
		reverts:      newRevertLimiter(cfg.RevertBackoff, cfg.MaxRevertBackoff, cfg.Clock),
		budgetCache:  renderedconfig.NewCache(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(cfg.RateLimiter,
			workqueue.TypedRateLimitingQueueConfig[string]{Name: queueName, MetricsProvider: metrics.WorkqueueProvider(), Clock: cfg.Clock}),
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueue() },
		UpdateFunc: func(any, any) { c.enqueue() },
		DeleteFunc: func(any) { c.enqueue() },
	}
	reader, err := cluster.NewReader(inf)
	if err != nil {
		return nil, err
	}
	c.reader = reader
	if c.rollouts, err = newRolloutTracker(reader, recorder, metrics, cfg); err != nil {
		return nil, err
	}
	c.operator = newOperatorStatus(writers.ClusterOperators, metrics, cfg)
	c.rollouts.operator = c.operator
	notPools := func(k *inputs.Kind) bool { return k.Name != inputs.KindMachineConfigPool }
	if err := reader.AddEventHandler(notPools, handler); err != nil {
		return nil, err
	}
	if err := reader.AddEventHandler(cluster.OnlyKind(inputs.KindMachineConfigPool), poolsRenderHandler(handler)); err != nil {
		return nil, err
	}
	// Every MachineConfig but the rendered ones: this project's (another writer's change is reverted) and other
	// writers' (they change the size of the pools' rendered MachineConfigs, docs/semantics.md §3.6).
	mergedOnly := cache.FilteringResourceEventHandler{FilterFunc: mergedIntoPools, Handler: handler}
	if _, err := reader.MachineConfigInformer().AddEventHandler(mergedOnly); err != nil {
		return nil, fmt.Errorf("adding event handler: %w", err)
	}
	c.configs = reader.MachineConfigs()
	return c, nil
}

// HasSynced reports whether every informer cache is filled; /readyz uses it.
func (c *Controller) HasSynced() bool { return c.reader.HasSynced() }

// enqueue records an event and schedules the queue key for when the inputs will have been quiet long enough to
// render them ahead (renderAheadQuiet); the sync itself waits for SettleDelay (settling).
func (c *Controller) enqueue() {
	now := c.cfg.Clock.Now()
	c.settleMu.Lock()
	c.lastEvent = now
	if c.firstEvent.IsZero() {
		c.firstEvent = now
	}
	c.settleMu.Unlock()
	c.metrics.events.Inc()
	c.queue.AddAfter(queueKey, c.renderAheadQuiet())
}

// renderAheadQuiet is how long the inputs must be quiet before the worker renders them ahead of the sync: a
// quarter of the settle delay. Within a burst (`kubectl apply -f dir/` sends an object every few milliseconds) it
// never is, so a burst is rendered once, at its end, as before; a lone change is rendered while the rest of the
// settle delay runs, and the sync at its end finds the render done (lastRender) and goes straight to the writes.
func (c *Controller) renderAheadQuiet() time.Duration {
	return c.cfg.SettleDelay / 4
}

// settling returns how much longer to wait before syncing, or 0 when the burst is over (or has lasted
// MaxSettleDelay). A zero return also starts a new burst. While it waits, ahead says whether the inputs have been
// quiet for renderAheadQuiet for the first time in this burst: the worker then renders them, and wait runs to the
// end of the settle delay; otherwise wait runs until they will have been quiet that long. Once per burst: a stream
// of events a little further apart than renderAheadQuiet (an object updated every half second) is rendered once
// ahead and once at MaxSettleDelay, not at every event.
func (c *Controller) settling() (wait time.Duration, ahead bool) {
	now := c.cfg.Clock.Now()
	c.settleMu.Lock()
	defer c.settleMu.Unlock()
	quiet := now.Sub(c.lastEvent)
	if !c.firstEvent.IsZero() && quiet < c.cfg.SettleDelay && now.Sub(c.firstEvent) < c.cfg.MaxSettleDelay {
		if early := c.renderAheadQuiet() - quiet; early > 0 && !c.renderedAhead {
			return early, false
		}
		ahead, c.renderedAhead = !c.renderedAhead, true
		return c.cfg.SettleDelay - quiet, ahead
	}
	c.firstEvent, c.renderedAhead = time.Time{}, false
	return 0, false
}

// mayRenderAhead lets settling ask for a render ahead again in the current burst.
func (c *Controller) mayRenderAhead() {
	c.settleMu.Lock()
	c.renderedAhead = false
	c.settleMu.Unlock()
}

// Run waits for the caches, then syncs until ctx is cancelled. A sync in progress when ctx is cancelled
// finishes its current API call and stops; nothing half-written is left behind because each
// MachineConfig is written in one request.
func (c *Controller) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	defer c.rollouts.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting controller", "queue", queueName, "settleDelay", c.cfg.SettleDelay)
	go c.operator.Run(ctx) // also while the caches wait for a missing CRD: Available=False says so
	if !cache.WaitForNamedCacheSync(queueName, ctx.Done(), c.reader.HasSynced) {
		return fmt.Errorf("caches did not sync")
	}
	c.queue.Add(queueKey) // the first sync does not wait for an event
	go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	go wait.UntilWithContext(ctx, c.rollouts.runWorker, time.Second)
	<-ctx.Done()
	logger.Info("Stopping controller")
	return nil
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	wait, ahead := c.settling()
	if ahead {
		rendered := c.renderAhead()
		wait, _ = c.settling() // the render took some of the delay: the sync is due at its end, not later
		if !rendered {
			c.mayRenderAhead() // the inputs had been rendered (the writes' own events): a later change still may be
		}
	}
	if wait > 0 {
		c.queue.AddAfter(key, wait)
		return true
	}
	res, err := c.sync(ctx)
	c.status.report(ctx, res, err)
	c.operator.syncDone(res, err)
	c.rollouts.afterSync(ctx, res)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Sync failed, will retry")
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	if res.deferred > 0 {
		c.queue.AddAfter(key, res.deferred)
	}
	return true
}

// retryNow runs the next sync without waiting out the backoff of failed ones, e.g. once the API server answers
// again.
func (c *Controller) retryNow() {
	c.queue.Add(queueKey)
}
