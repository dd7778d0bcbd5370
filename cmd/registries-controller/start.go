package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openshift/registries-controller/pkg/controller"
	"github.com/openshift/registries-controller/pkg/endpoints"
	"github.com/openshift/registries-controller/pkg/version"
)

// startOptions are the flags of `start`. The leader election defaults are OpenShift's, which tolerate a
// single-node cluster's API server restarting without losing the lease.
type startOptions struct {
	kubeconfig     string
	listenAddress  string
	metrics        metricsOptions
	gracePeriod    time.Duration
	settleDelay    time.Duration
	maxSettleDelay time.Duration
	resync         time.Duration
	leaderElect    bool
	leaseNamespace string
	leaseName      string
	leaseDuration  time.Duration
	renewDeadline  time.Duration
	retryPeriod    time.Duration
	// gcPercent is the collector's GOGC unless the environment sets one.
	gcPercent int
	// keepUnreadFields is a benchmark switch (hidden): the caches keep managed fields and the last-applied annotation.
	keepUnreadFields bool
}

func newStartCommand() *cobra.Command {
	o := &startOptions{}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Run the controller: watch the mirror objects and keep every pool's MachineConfig in line",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file; in-cluster configuration when empty")
	f.StringVar(&o.listenAddress, "listen-address", ":8080", "address serving /healthz and /readyz in plain HTTP (the kubelet's probes)")
	o.metrics.addFlags(f)
	f.DurationVar(&o.gracePeriod, "status-grace-period", controller.DefaultStatusGracePeriod,
		"how long invalid input, failing syncs or a readiness problem may last before the ClusterOperator reports them")
	f.DurationVar(&o.settleDelay, "settle-delay", time.Second, "quiet time after the last change before a sync, so bursts become one write")
	f.DurationVar(&o.maxSettleDelay, "max-settle-delay", 2*time.Minute, "longest a continuous stream of changes delays a sync (longer than kubectl apply -f dir/ takes for thousands of objects, so that is one write per pool)")
	f.DurationVar(&o.resync, "resync-period", 10*time.Minute, "informer resync period (a resync that changes nothing writes nothing)")
	f.BoolVar(&o.leaderElect, "leader-elect", true, "run only while holding the leader Lease")
	f.StringVar(&o.leaseNamespace, "leader-elect-namespace", defaultNamespace(), "namespace of the leader Lease")
	f.StringVar(&o.leaseName, "leader-elect-name", "registries-controller", "name of the leader Lease")
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 137*time.Second, "how long followers wait before taking over an unrenewed lease")
	f.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 107*time.Second, "how long the leader keeps trying to renew before stepping down")
	f.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 26*time.Second, "how often candidates try to acquire or renew the lease")
	f.IntVar(&o.gcPercent, "gc-percent", defaultGCPercent,
		"the garbage collector's GOGC: 50 lets the heap grow to 1.5 times what is live between collections, not twice, which keeps a burst's and a change's peak RSS down for some CPU (docs/benchmarks.md); GOGC in the environment wins")
	// A benchmark switch, not for production: test/integration's BenchmarkInformerMemory runs the same binary with
	// and without the informers' transform to measure the memory it saves.
	f.BoolVar(&o.keepUnreadFields, "keep-unread-fields", false,
		"benchmarks only: keep managed fields and kubectl's last-applied annotation in the informer caches")
	_ = f.MarkHidden("keep-unread-fields")
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	f.AddGoFlagSet(klogFlags)
	return cmd
}

// defaultGCPercent is --gc-percent's default. The controller's live heap is mostly its informer caches, which
// stay, while a sync's garbage (the merge's model, the encoded MachineConfigs, their load-back) comes and goes: with
// Go's default of 100 a change at 5,000 objects took the heap to twice the live heap of the sync in flight, 152 MiB
// RSS; 50 makes the collector run twice as often for a heap half as far above the live one (docs/benchmarks.md,
// "Memory at 5,000 objects"). Unlike a memory limit it scales with the live heap, so a larger input costs
// proportionally more memory and no collection storm.
const defaultGCPercent = 50

// defaultNamespace is the pod's namespace when running in a cluster.
func defaultNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		return string(data)
	}
	return "openshift-registries-controller"
}

func (o *startOptions) run(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	ctx = klog.NewContext(ctx, logger)
	if os.Getenv("GOGC") == "" {
		// Else the runtime read GOGC at start, and pkg/initgc gave it back in main.
		debug.SetGCPercent(o.gcPercent)
	}
	// The certificate watcher of /metrics logs through controller-runtime's logger, which complains when unset.
	ctrllog.SetLogger(logger)
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading client configuration: %w", err)
	}
	cfg = rest.AddUserAgent(cfg, "registries-controller/"+version.Version)
	registry := prometheus.NewRegistry()
	registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	rt, err := controller.NewRuntime(ctx, cfg, o.resync, registry, controller.Config{
		SettleDelay: o.settleDelay, MaxSettleDelay: o.maxSettleDelay, KeepUnreadFields: o.keepUnreadFields,
		ClusterOperator: controller.ClusterOperatorConfig{
			ReleaseVersion: os.Getenv(envReleaseVersion), Namespace: defaultNamespace(), GracePeriod: o.gracePeriod,
		},
	})
	if err != nil {
		return err
	}
	ctrl := rt.Controller

	servers, err := endpoints.Start(ctx, o.metrics.options(o.listenAddress), rt.Health.Ready, registry, cfg)
	if err != nil {
		return err
	}
	defer servers.Shutdown(context.Background())

	// Caches fill before the election, so a follower that takes over starts from warm caches. On the
	// way out the informers are stopped first (cancel), then waited for (Shutdown), whatever the reason.
	ctx, cancel := context.WithCancel(ctx)
	rt.Start(ctx)
	defer rt.Shutdown()
	defer cancel()

	if !o.leaderElect {
		return ctrl.Run(ctx)
	}
	return o.runElected(ctx, rt.Kube, ctrl)
}

// runElected runs the controller only while this process holds the lease. On SIGTERM the lease is
// released once the controller has stopped, so a successor takes over at once; a lease lost any
// other way ends the process, to restart clean.
func (o *startOptions) runElected(ctx context.Context, kube kubernetes.Interface, ctrl *controller.Controller) error {
	logger := klog.FromContext(ctx)
	host, _ := os.Hostname()
	id := host + "_" + string(uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.leaseNamespace, Name: o.leaseName},
		Client:     kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	lost := make(chan struct{}, 1)
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   o.leaseDuration,
		RenewDeadline:   o.renewDeadline,
		RetryPeriod:     o.retryPeriod,
		ReleaseOnCancel: true,
		Name:            o.leaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				logger.Info("Became leader", "identity", id)
				if err := ctrl.Run(ctx); err != nil {
					logger.Error(err, "Controller stopped")
				}
			},
			OnStoppedLeading: func() {
				if ctx.Err() == nil {
					logger.Info("Lost leadership", "identity", id)
					select {
					case lost <- struct{}{}:
					default:
					}
				}
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("Following leader", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("setting up leader election: %w", err)
	}
	electorDone := make(chan struct{})
	go func() {
		defer close(electorDone)
		elector.Run(ctx)
	}()
	select {
	case <-lost:
		return errors.New("lost the leader lease")
	case <-ctx.Done():
		// The elector releases the lease once it stops renewing; wait for that, so a successor can
		// take over at once instead of waiting for the lease to expire.
		select {
		case <-electorDone:
		case <-time.After(o.renewDeadline):
		}
		logger.Info("Stopped", "identity", id)
		return nil
	}
}
