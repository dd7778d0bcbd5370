package cluster

import (
	"fmt"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// Informers are the shared informer factories of the API groups a render reads. Whoever creates them starts
// them (Start) once every informer is registered (NewReader registers them).
type Informers struct {
	Config        configinformers.SharedInformerFactory
	Operator      operatorinformers.SharedInformerFactory
	MachineConfig mcfginformers.SharedInformerFactory
}

// InformerOption changes what NewInformers builds.
type InformerOption func(*informerOptions)

type informerOptions struct {
	keepUnread bool
}

// KeepUnreadFields makes the caches hold whole objects, managed fields and kubectl's last-applied annotation
// included: a benchmark switch (`start --keep-unread-fields`), to measure the memory the transform saves. Nothing
// else uses it.
func KeepUnreadFields() InformerOption {
	return func(o *informerOptions) { o.keepUnread = true }
}

// informerMetaFactory reads apiVersion and kind for the MachineConfig informers' decoder (newMachineConfigClient);
// a variable so that a test can count its calls.
var informerMetaFactory kjson.MetaFactory = typeMeta{}

// NewInformers returns informer factories on clients for cfg, with the given resync period (0: none). The caches
// hold the objects without what nothing here reads (dropUnread), unless KeepUnreadFields is given. The
// machineconfiguration.openshift.io informers decode with typeMeta (newMachineConfigClient).
func NewInformers(cfg *rest.Config, resync time.Duration, opts ...InformerOption) (Informers, error) {
	configClient, err := configclient.NewForConfig(cfg)
	if err != nil {
		return Informers{}, fmt.Errorf("config client: %w", err)
	}
	operatorClient, err := operatorclient.NewForConfig(cfg)
	if err != nil {
		return Informers{}, fmt.Errorf("operator client: %w", err)
	}
	mcClient, err := newMachineConfigClient(cfg, informerMetaFactory)
	if err != nil {
		return Informers{}, fmt.Errorf("machineconfiguration client: %w", err)
	}
	return InformersFor(configClient, operatorClient, mcClient, resync, opts...), nil
}

// InformersFor returns informer factories on the given clients (real or fake), with the given resync period and
// the caches' transform (dropUnread, unless KeepUnreadFields is given): one factory per API group of the input
// kinds (ForResource).
func InformersFor(config configclient.Interface, operator operatorclient.Interface, mc mcfgclient.Interface, resync time.Duration, opts ...InformerOption) Informers {
	var o informerOptions
	for _, opt := range opts {
		opt(&o)
	}
	inputsTransform, machineConfigsTransform := cache.TransformFunc(dropUnread), cache.TransformFunc(dropLastAppliedMachineConfigs)
	if o.keepUnread {
		inputsTransform, machineConfigsTransform = nil, nil
	}
	return Informers{
		Config:        configinformers.NewSharedInformerFactoryWithOptions(config, resync, configinformers.WithTransform(inputsTransform)),
		Operator:      operatorinformers.NewSharedInformerFactoryWithOptions(operator, resync, operatorinformers.WithTransform(inputsTransform)),
		MachineConfig: mcfginformers.NewSharedInformerFactoryWithOptions(mc, resync, mcfginformers.WithTransform(machineConfigsTransform)),
	}
}

// ForResource returns the shared informer of a resource, from the factory of its API group: the one place that
// maps an API group to its factory (a test checks every input kind has one).
func (inf Informers) ForResource(gvr schema.GroupVersionResource) (cache.SharedIndexInformer, error) {
	var f interface {
		Informer() cache.SharedIndexInformer
	}
	var err error
	switch gvr.Group {
	case "config.openshift.io":
		f, err = inf.Config.ForResource(gvr)
	case "operator.openshift.io":
		f, err = inf.Operator.ForResource(gvr)
	case "machineconfiguration.openshift.io":
		f, err = inf.MachineConfig.ForResource(gvr)
	default:
		err = fmt.Errorf("no informer factory for the API group %q", gvr.Group)
	}
	if err != nil {
		return nil, err
	}
	return f.Informer(), nil
}

// Start starts every informer registered so far; they stop when stop is closed.
func (inf Informers) Start(stop <-chan struct{}) {
	inf.Config.Start(stop)
	inf.Operator.Start(stop)
	inf.MachineConfig.Start(stop)
}

// Shutdown waits for the informers to stop; close the channel given to Start first.
func (inf Informers) Shutdown() {
	inf.Config.Shutdown()
	inf.Operator.Shutdown()
	inf.MachineConfig.Shutdown()
}
