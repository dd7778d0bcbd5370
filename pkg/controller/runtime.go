package controller

import (
	"context"
	"fmt"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/transport"

	"github.com/openshift/registries-controller/pkg/cluster"
)

// Runtime is the controller with what it runs on against one API server: the clients, the informer
// factories and the event broadcaster. `start` and the tests wire the controller through it, so the
// tests run exactly the wiring that ships.
type Runtime struct {
	Controller *Controller
	// Health is what /readyz reports.
	Health *Health
	// Kube is the Kubernetes clientset, e.g. for leader election.
	Kube        kubernetes.Interface
	informers   cluster.Informers
	crds        []cache.SharedIndexInformer
	broadcaster record.EventBroadcaster
	optional    *optionalKinds
}

// eventCorrelation lets 100 events of one type through for one object before client-go's spam filter keeps
// one per 5 minutes (its default is 25). The status reporter already records one event per distinct problem, so
// only an admin changing an object many times sees more than a few; with 25 per type, the Image "cluster" broken
// and fixed 26 times within minutes (test/hostile has 30 such cases) would lose its later Warnings, and the admin
// the reason of the last failure.
var eventCorrelation = record.CorrelatorOptions{BurstSize: 100}

// NewRuntime builds the clients for cfg, shared informer factories with the given resync period, an
// event recorder writing to the API server, and the controller with its metrics registered in reg.
func NewRuntime(ctx context.Context, cfg *rest.Config, resync time.Duration, reg prometheus.Registerer, conf Config) (*Runtime, error) {
	// Health probes go straight to the API server: discovery, and a list of at most one MachineConfig.
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	probeClient, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("machineconfiguration client: %w", err)
	}
	health := newHealth(newProbes(disc.RESTClient(), probeClient.MachineconfigurationV1().MachineConfigs()), servedKinds(), nil, nil)
	// The controller's own requests (writes, events, the leader lease) ask Health for a probe when they are slow
	// (kickWhenSlow); the informers' lists and watches wait for the API server while it cannot be reached
	// (waitForAPIServer).
	ownCfg := rest.CopyConfig(cfg)
	ownCfg.WrapTransport = transport.Wrappers(ownCfg.WrapTransport, kickWhenSlow(health))
	kube, err := kubernetes.NewForConfig(ownCfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	mcClient, err := mcfgclient.NewForConfig(ownCfg)
	if err != nil {
		return nil, fmt.Errorf("machineconfiguration client: %w", err)
	}
	// The status writes go straight to the API server, like the MachineConfig writes.
	statusClient, err := dynamic.NewForConfig(ownCfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	configClient, err := configclient.NewForConfig(ownCfg)
	if err != nil {
		return nil, fmt.Errorf("config client: %w", err)
	}
	informerCfg := rest.CopyConfig(cfg)
	informerCfg.WrapTransport = transport.Wrappers(informerCfg.WrapTransport, waitForAPIServer(health))
	var informerOpts []cluster.InformerOption
	if conf.KeepUnreadFields {
		informerOpts = append(informerOpts, cluster.KeepUnreadFields())
	}
	informers, err := cluster.NewInformers(informerCfg, resync, informerOpts...)
	if err != nil {
		return nil, err
	}
	crdClient, err := metadata.NewForConfig(informerCfg)
	if err != nil {
		return nil, fmt.Errorf("metadata client: %w", err)
	}
	crds, err := newCRDInformers(crdClient, health.CRDChanged, health.CRDListed, health.WatchErrorHandler)
	if err != nil {
		return nil, err
	}
	r := &Runtime{
		Kube:        kube,
		Health:      health,
		informers:   informers,
		crds:        crds,
		broadcaster: record.NewBroadcaster(record.WithContext(ctx), record.WithCorrelatorOptions(eventCorrelation)),
	}
	recorder := r.broadcaster.NewRecorder(Scheme(), corev1.EventSource{Component: FieldManager})
	writers := clients{MachineConfigs: newMetadataWriter(mcClient.MachineconfigurationV1()), Status: statusClient, ClusterOperators: configClient.ConfigV1()}
	r.Controller, err = newController(writers, r.informers, recorder, newMetrics(reg), conf)
	if err != nil {
		return nil, err
	}
	health.synced = r.Controller.HasSynced
	health.onRecovered = r.Controller.retryNow
	r.Controller.operator.notReady = health.NotReadyReason
	if err := watchHealth(health, r.Controller); err != nil {
		return nil, err
	}
	r.optional = newOptionalKinds(r.Controller.reader, health, r.Controller.enqueue)
	health.onServedChange = r.optional.kick
	if err := r.optional.watchGates(); err != nil {
		return nil, err
	}
	return r, nil
}

// Start starts recording events, probing the API server (Health), watching the CRDs of the kinds read and written
// (newCRDInformers), and, once the API server serves every required
// kind the controller reads and writes, filling the informer caches, and deciding which optional kinds are read
// (optionalKinds); Controller.Run then syncs.
func (r *Runtime) Start(ctx context.Context) {
	r.broadcaster.StartStructuredLogging(2)
	r.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.Kube.CoreV1().Events("")})
	for _, crd := range r.crds {
		go crd.RunWithContext(ctx)
	}
	go func() {
		// The first probe asks discovery after the CRD watches' first lists (a few milliseconds), so that those
		// lists ask for no second one (Health.CRDListed); not longer than crdListWait when they cannot list.
		listed, cancel := context.WithTimeout(ctx, crdListWait)
		defer cancel()
		synced := make([]cache.InformerSynced, 0, len(r.crds))
		for _, crd := range r.crds {
			synced = append(synced, crd.HasSynced)
		}
		cache.WaitForCacheSync(listed.Done(), synced...)
		r.Health.Run(ctx)
	}()
	go func() {
		select {
		case <-r.Health.Served():
		case <-ctx.Done():
			return
		}
		r.Controller.reader.Start(ctx.Done())
		r.optional.run(ctx)
	}()
}

// Shutdown waits for the informers to stop (cancel the context given to Start first) and flushes events.
func (r *Runtime) Shutdown() {
	r.informers.Shutdown()
	r.broadcaster.Shutdown()
}
