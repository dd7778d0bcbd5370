// Package controller is the thin shell around the pure render path: informers feed one work queue key,
// and each sync gathers every input from the listers, renders once, and writes only the
// MachineConfigs whose meaning changed.
package controller

import (
	"context"
	"fmt"
	"sync"
	"time"

	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	configlisters "github.com/openshift/client-go/config/listers/config/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned/typed/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	mcfglisters "github.com/openshift/client-go/machineconfiguration/listers/machineconfiguration/v1"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	operatorlisters "github.com/openshift/client-go/operator/listers/operator/v1alpha1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

const (
	// QueueName names the work queue in logs and workqueue metrics.
	QueueName = "registries-controller"
	// FieldManager is the field manager of every write.
	FieldManager = "registries-controller"
	// queueKey is the one key every event enqueues: any change can affect every pool, so a burst of
	// events becomes one sync.
	queueKey = "cluster"
)

// Config tunes the controller.
type Config struct {
	// SettleDelay is how long the inputs must stay quiet before a sync runs, so that `kubectl apply -f dir/`
	// becomes one write per pool instead of one per object. Default 1s.
	SettleDelay time.Duration
	// MaxSettleDelay bounds the wait under a continuous stream of events. Default 10s.
	MaxSettleDelay time.Duration
	// Version is written into every generated MachineConfig.
	Version string
}

// Informers are the shared informer factories the controller reads from. The caller starts them.
type Informers struct {
	Config        configinformers.SharedInformerFactory
	Operator      operatorinformers.SharedInformerFactory
	MachineConfig mcfginformers.SharedInformerFactory
}

// Controller keeps every built-in pool's generated registries MachineConfig in line with the cluster's
// mirror configuration.
type Controller struct {
	client   mcfgclient.MachineConfigsGetter
	recorder record.EventRecorder
	metrics  *Metrics
	status   *statusReporter
	cfg      Config
	clock    clock.Clock

	icsps    operatorlisters.ImageContentSourcePolicyLister
	idmss    configlisters.ImageDigestMirrorSetLister
	itmss    configlisters.ImageTagMirrorSetLister
	images   configlisters.ImageLister
	versions configlisters.ClusterVersionLister
	pools    mcfglisters.MachineConfigPoolLister
	configs  mcfglisters.MachineConfigLister
	synced   []cache.InformerSynced

	queue workqueue.TypedRateLimitingInterface[string]

	// settle tracks the burst being absorbed: the last event, and the first one since the last sync.
	settleMu   sync.Mutex
	lastEvent  time.Time
	firstEvent time.Time
}

// NewController wires the controller to its informers. It registers event handlers; it starts nothing.
func NewController(client mcfgclient.MachineConfigsGetter, inf Informers, recorder record.EventRecorder, metrics *Metrics, cfg Config) (*Controller, error) {
	if cfg.SettleDelay <= 0 {
		cfg.SettleDelay = time.Second
	}
	if cfg.MaxSettleDelay < cfg.SettleDelay {
		cfg.MaxSettleDelay = 10 * cfg.SettleDelay
	}
	c := &Controller{
		client:   client,
		recorder: recorder,
		metrics:  metrics,
		status:   newStatusReporter(recorder, metrics),
		cfg:      cfg,
		clock:    clock.RealClock{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedMaxOfRateLimiter(
				workqueue.NewTypedItemExponentialFailureRateLimiter[string](200*time.Millisecond, 2*time.Minute),
			),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: QueueName, MetricsProvider: metrics.WorkqueueProvider()},
		),
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { c.enqueue() },
		UpdateFunc: func(any, any) { c.enqueue() },
		DeleteFunc: func(any) { c.enqueue() },
	}
	generatedOnly := cache.FilteringResourceEventHandler{FilterFunc: isGeneratedName, Handler: handler}
	cfgV1 := inf.Config.Config().V1()
	mcV1 := inf.MachineConfig.Machineconfiguration().V1()
	informers := []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{inf.Operator.Operator().V1alpha1().ImageContentSourcePolicies().Informer(), handler},
		{cfgV1.ImageDigestMirrorSets().Informer(), handler},
		{cfgV1.ImageTagMirrorSets().Informer(), handler},
		{cfgV1.Images().Informer(), handler},
		{cfgV1.ClusterVersions().Informer(), handler},
		{mcV1.MachineConfigPools().Informer(), handler},
		{mcV1.MachineConfigs().Informer(), generatedOnly},
	}
	for _, i := range informers {
		if _, err := i.informer.AddEventHandler(i.handler); err != nil {
			return nil, fmt.Errorf("adding event handler: %w", err)
		}
		c.synced = append(c.synced, i.informer.HasSynced)
	}
	c.icsps = inf.Operator.Operator().V1alpha1().ImageContentSourcePolicies().Lister()
	c.idmss = cfgV1.ImageDigestMirrorSets().Lister()
	c.itmss = cfgV1.ImageTagMirrorSets().Lister()
	c.images = cfgV1.Images().Lister()
	c.versions = cfgV1.ClusterVersions().Lister()
	c.pools = mcV1.MachineConfigPools().Lister()
	c.configs = mcV1.MachineConfigs().Lister()
	c.status.lookup = c.lookupObject
	return c, nil
}

// HasSynced reports whether every informer cache is filled; /readyz uses it.
func (c *Controller) HasSynced() bool {
	for _, s := range c.synced {
		if !s() {
			return false
		}
	}
	return true
}

// enqueue records an event and schedules a sync once the inputs have been quiet for SettleDelay.
func (c *Controller) enqueue() {
	now := c.clock.Now()
	c.settleMu.Lock()
	c.lastEvent = now
	if c.firstEvent.IsZero() {
		c.firstEvent = now
	}
	c.settleMu.Unlock()
	c.queue.AddAfter(queueKey, c.cfg.SettleDelay)
}

// settling returns how much longer to wait before syncing, or 0 when the burst is over (or has lasted
// MaxSettleDelay). A zero return also starts a new burst.
func (c *Controller) settling() time.Duration {
	now := c.clock.Now()
	c.settleMu.Lock()
	defer c.settleMu.Unlock()
	quiet := now.Sub(c.lastEvent)
	if !c.firstEvent.IsZero() && quiet < c.cfg.SettleDelay && now.Sub(c.firstEvent) < c.cfg.MaxSettleDelay {
		return c.cfg.SettleDelay - quiet
	}
	c.firstEvent = time.Time{}
	return 0
}

// Run waits for the caches, then syncs until ctx is cancelled. A sync in progress when ctx is cancelled
// finishes its current API call and stops; nothing half-written is left behind because each
// MachineConfig is written in one request.
func (c *Controller) Run(ctx context.Context) error {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	logger := klog.FromContext(ctx)
	logger.Info("Starting controller", "queue", QueueName, "settleDelay", c.cfg.SettleDelay)
	if !cache.WaitForNamedCacheSync(QueueName, ctx.Done(), c.synced...) {
		return fmt.Errorf("caches did not sync")
	}
	c.queue.Add(queueKey) // the first sync does not wait for an event
	go wait.UntilWithContext(ctx, c.runWorker, time.Second)
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
	if wait := c.settling(); wait > 0 {
		c.queue.AddAfter(key, wait)
		return true
	}
	if err := c.sync(ctx); err != nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}
