package controller

import (
	"context"
	"fmt"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/openshift/registries-controller/pkg/cluster"
)

// Runtime is the controller with what it runs on against one API server: the clients, the informer
// factories and the event broadcaster. `start` and the tests wire the controller through it, so the
// tests run exactly the wiring that ships.
type Runtime struct {
	Controller *Controller
	// Kube is the Kubernetes clientset, e.g. for leader election.
	Kube        kubernetes.Interface
	informers   Informers
	broadcaster record.EventBroadcaster
}

// NewRuntime builds the clients for cfg, shared informer factories with the given resync period, an
// event recorder writing to the API server, and the controller with its metrics registered in reg.
func NewRuntime(ctx context.Context, cfg *rest.Config, resync time.Duration, reg prometheus.Registerer, conf Config) (*Runtime, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	mcClient, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("machineconfiguration client: %w", err)
	}
	configClient, err := configclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("config client: %w", err)
	}
	informers, err := cluster.NewInformers(cfg, resync)
	if err != nil {
		return nil, err
	}
	r := &Runtime{
		Kube:        kube,
		informers:   informers,
		broadcaster: record.NewBroadcaster(record.WithContext(ctx)),
	}
	recorder := r.broadcaster.NewRecorder(Scheme(), corev1.EventSource{Component: FieldManager})
	clients := Clients{MachineConfigs: mcClient.MachineconfigurationV1(), Policies: configClient.ConfigV1()}
	r.Controller, err = newController(clients, r.informers, recorder, NewMetrics(reg), conf)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Start starts recording events and filling the informer caches; Controller.Run then syncs.
func (r *Runtime) Start(ctx context.Context) {
	r.broadcaster.StartStructuredLogging(2)
	r.broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: r.Kube.CoreV1().Events("")})
	r.informers.Start(ctx.Done())
}

// Shutdown waits for the informers to stop (cancel the context given to Start first) and flushes events.
func (r *Runtime) Shutdown() {
	r.informers.Shutdown()
	r.broadcaster.Shutdown()
}
