package controller

import (
	"context"
	"fmt"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// optionalKinds decides, again and again, which optional kinds the controller reads (cluster.Reader.
// RefreshOptional): the FeatureGate whenever it is served, a gated kind while its gate is on and it is served.
// It decides when the kinds served change (Health) and when the FeatureGate or the ClusterVersion changes, tells
// Health which missing kinds count (so /readyz names them), and asks for a sync when a kind starts or stops being
// read; the sync waits until a newly read kind's cache is filled.
type optionalKinds struct {
	reader  *cluster.Reader
	health  *Health
	enqueue func()
	wake    chan struct{}
}

func newOptionalKinds(reader *cluster.Reader, health *Health, enqueue func()) *optionalKinds {
	return &optionalKinds{reader: reader, health: health, enqueue: enqueue, wake: make(chan struct{}, 1)}
}

// watchGates makes every change of the FeatureGate and the ClusterVersion (whose version picks the FeatureGate's
// entry) decide again.
func (o *optionalKinds) watchGates() error {
	gates := func(k *inputs.Kind) bool {
		return k.Name == inputs.KindFeatureGate || k.Name == inputs.KindClusterVersion
	}
	return o.reader.AddEventHandler(gates, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { o.kick() },
		UpdateFunc: func(any, any) { o.kick() },
		DeleteFunc: func(any) { o.kick() },
	})
}

// kick asks for a decision.
func (o *optionalKinds) kick() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// run decides at once and at every kick until ctx is done.
func (o *optionalKinds) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	o.kick()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		if err := o.refresh(ctx, logger); err != nil {
			logger.Error(err, "Deciding which optional kinds to read failed")
		}
	}
}

func (o *optionalKinds) refresh(ctx context.Context, logger klog.Logger) error {
	opt, err := o.reader.RefreshOptional(func(k *inputs.Kind) bool { return o.health.Serves(k.Name) })
	if err != nil {
		return err
	}
	if opt.Pending {
		go o.kickOnceSynced(ctx, inputs.KindNamed(inputs.KindFeatureGate))
		return nil
	}
	needed := map[string]string{}
	for _, k := range opt.Missing {
		if k.Gate != "" {
			needed[k.Name] = fmt.Sprintf("its feature gate %s is on", k.Gate)
		}
	}
	o.health.SetNeeded(needed)
	if opt.Changed {
		logger.Info("The optional kinds read changed", "unwatched", o.reader.Inputs().Unwatched)
		o.enqueue()
	}
	return nil
}

// kickOnceSynced decides again once the cache of k is filled.
func (o *optionalKinds) kickOnceSynced(ctx context.Context, k *inputs.Kind) {
	if informer := o.reader.Informer(k); informer != nil && cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		o.kick()
	}
}
