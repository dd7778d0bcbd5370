package controller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned/typed/config/v1"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/operatorstatus"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// Timing of the ClusterOperator writer.
const (
	// DefaultStatusGracePeriod is how long invalid input, failing syncs or a readiness problem may last before the
	// ClusterOperator reports them (Degraded, Upgradeable=False, Available=False).
	DefaultStatusGracePeriod = 5 * time.Minute
	// operatorPoll is how often the writer looks at the controller's readiness; it only reads memory.
	operatorPoll = 5 * time.Second
	// operatorSpacing is the least time between two looks, so that a burst of changes is one write.
	operatorSpacing = time.Second
	// operatorMaxBackoff bounds the wait after a failed write, which doubles from operatorSpacing.
	operatorMaxBackoff = 5 * time.Minute
)

// ClusterOperatorConfig says what the ClusterOperator reports besides the controller's state.
type ClusterOperatorConfig struct {
	// ReleaseVersion is the version reported as "operator" (the Deployment's RELEASE_VERSION); empty reports none.
	ReleaseVersion string
	// Namespace is the controller's namespace, a related object. Default "openshift-registries-controller".
	Namespace string
	// GracePeriod: see DefaultStatusGracePeriod, the default.
	GracePeriod time.Duration
}

func (c ClusterOperatorConfig) options() operatorstatus.Options {
	if c.Namespace == "" {
		c.Namespace = "openshift-registries-controller"
	}
	if c.GracePeriod <= 0 {
		c.GracePeriod = DefaultStatusGracePeriod
	}
	return operatorstatus.Options{Version: c.ReleaseVersion, Namespace: c.Namespace, GracePeriod: c.GracePeriod}
}

// operatorStatus keeps the status of the ClusterOperator "registries-controller" current. The controller tells it
// what happens (syncDone, rolloutState, poolGone); Run, in the leader only, turns that into conditions
// (operatorstatus.Desired) and writes them when what a person reads changes: the object is created when missing,
// its status updated with conflict retries, and never written twice within operatorSpacing. A nil *operatorStatus
// does nothing; without a client it only keeps the rollout_degraded metric.
type operatorStatus struct {
	client  configclient.ClusterOperatorsGetter
	opts    operatorstatus.Options
	clock   clock.Clock
	metrics *operatorMetrics
	// notReady says why the controller cannot work, "" when it can (Health.NotReadyReason); nil: always ready.
	notReady func() string
	kick     chan struct{}

	mu       sync.Mutex
	snap     operatorstatus.Snapshot
	rollouts map[machineconfigs.Key]operatorstatus.Rollout
	// seen is the status as last read from, written to or watched on the API server; nil before, and after the
	// object was deleted.
	seen *configv1.ClusterOperatorStatus
	// watch is the watch on the object (newOperatorInformer), which keeps seen current: another writer's change or
	// a deletion is seen at once, without reading the object again. nil without a client.
	watch cache.SharedIndexInformer
}

func newOperatorStatus(client configclient.ClusterOperatorsGetter, metrics *controllerMetrics, cfg Config) *operatorStatus {
	o := &operatorStatus{client: client, opts: cfg.ClusterOperator.options(), clock: cfg.Clock, metrics: metrics.operator,
		kick: make(chan struct{}, 1), rollouts: map[machineconfigs.Key]operatorstatus.Rollout{}}
	if client != nil {
		o.watch = newOperatorInformer(client, o.observed)
	}
	return o
}

// newOperatorInformer returns an informer of the one ClusterOperator the controller writes, narrowed to its name (a
// field selector on metadata.name, which RBAC grants by resourceName): each event of it goes to observed, nil for a
// deletion.
func newOperatorInformer(client configclient.ClusterOperatorsGetter, observed func(*configv1.ClusterOperator)) cache.SharedIndexInformer {
	selector := fields.OneTermEqualSelector("metadata.name", operatorstatus.Name).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = selector
			return client.ClusterOperators().List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = selector
			return client.ClusterOperators().Watch(ctx, opts)
		},
	}
	informer := cache.NewSharedIndexInformer(lw, &configv1.ClusterOperator{}, 0, cache.Indexers{})
	_ = informer.SetTransform(dropMetadataUnread) // fails only once the informer has started
	seen := func(obj any) {
		if co, ok := obj.(*configv1.ClusterOperator); ok && co.Name == operatorstatus.Name {
			observed(co)
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
		DeleteFunc: func(any) { observed(nil) },
	})
	return informer
}

// observed takes in the ClusterOperator as the watch delivers it (nil: deleted), and asks Run to look.
func (o *operatorStatus) observed(co *configv1.ClusterOperator) {
	o.mu.Lock()
	if co == nil {
		o.seen = nil
	} else {
		o.seen = co.Status.DeepCopy()
	}
	o.mu.Unlock()
	o.poke()
}

// syncDone takes in the result of a sync.
func (o *operatorStatus) syncDone(res *syncResult, err error) {
	if o == nil || res == nil {
		return
	}
	now := o.clock.Now()
	o.mu.Lock()
	defer o.mu.Unlock()
	defer o.poke()
	s := &o.snap
	s.Synced = true
	if res.output != nil {
		s.Invalid = nil
		names := make([]string, 0, len(res.output.MachineConfigs))
		for _, mc := range res.output.MachineConfigs {
			names = append(names, mc.Key.Name())
		}
		sort.Strings(names)
		s.MachineConfigs = names
	}
	var tooLarge *tooLargeError
	switch {
	case res.outcome == OutcomeInvalid:
		var objects, details []string
		for _, ref := range res.invalid.Objects() {
			objects = append(objects, ref.String())
		}
		for _, p := range res.invalid.Problems {
			details = append(details, p.String())
		}
		s.Invalid = ongoing(s.Invalid, now, objects, details)
		s.Failing, s.TooLarge = nil, nil
	case errors.As(err, &tooLarge):
		s.TooLarge = ongoing(s.TooLarge, now, []string{fmt.Sprintf("MachineConfig %q", tooLarge.Name)}, []string{tooLarge.Error()})
		s.Failing = nil
	case err != nil:
		s.Failing = ongoing(s.Failing, now, nil, []string{err.Error()})
		s.TooLarge = nil
	default:
		s.Failing, s.TooLarge = nil, nil
	}
}

// ongoing returns the problem with these objects and details, seen since p's start when p is set.
func ongoing(p *operatorstatus.Problem, now time.Time, objects, details []string) *operatorstatus.Problem {
	since := now
	if p != nil {
		since = p.Since
	}
	return &operatorstatus.Problem{Since: since, Objects: objects, Details: details}
}

// rolloutState takes in where the last render of key's output stands on key's pool; following says a write of
// this process is not live there yet (the rollout tracker follows it).
func (o *operatorStatus) rolloutState(key machineconfigs.Key, st rollout.State, following bool) {
	if o == nil {
		return
	}
	degraded := following && st.Phase == rollout.Degraded
	o.metrics.degraded(key, degraded)
	o.mu.Lock()
	defer o.mu.Unlock()
	old, had := o.rollouts[key]
	switch {
	case following && st.Phase != rollout.Live:
		now := operatorstatus.Rollout{Pool: key.Pool}
		if degraded {
			now.Degraded = st.Message
		}
		o.rollouts[key] = now
		if !had || old != now {
			o.poke()
		}
	case had:
		delete(o.rollouts, key)
		o.poke()
	}
}

// keyGone forgets a pool's MachineConfig that is no longer followed (its pool is gone, or its output no longer
// managed).
func (o *operatorStatus) keyGone(key machineconfigs.Key) {
	if o == nil {
		return
	}
	o.metrics.forget(key)
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, had := o.rollouts[key]; had {
		delete(o.rollouts, key)
		o.poke()
	}
}

// poke asks Run to look now.
func (o *operatorStatus) poke() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// Run keeps the ClusterOperator's status current until ctx is done. Run it in the leader only: a follower knows no
// rollout, and two writers with different views would take turns rewriting the object.
func (o *operatorStatus) Run(ctx context.Context) {
	if o == nil || o.client == nil {
		return
	}
	logger := klog.FromContext(ctx).WithValues("clusterOperator", operatorstatus.Name)
	if o.watch != nil {
		go o.watch.RunWithContext(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), o.watch.HasSynced) {
			return
		}
	}
	backoff, lastErr := time.Duration(0), ""
	next := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.kick:
		case <-o.clock.After(next):
		}
		var err error
		next, err = o.update(ctx, logger)
		switch {
		case err != nil:
			backoff = min(max(2*backoff, operatorSpacing), operatorMaxBackoff)
			next = backoff
			if err.Error() != lastErr {
				logger.Error(err, "Cannot write the ClusterOperator status, will retry", "retryAfter", backoff)
				lastErr = err.Error()
			}
		case lastErr != "":
			logger.Info("The ClusterOperator status is written again")
			backoff, lastErr = 0, ""
		}
		select {
		case <-ctx.Done():
			return
		case <-o.clock.After(operatorSpacing):
		}
	}
}

// update writes the status the controller's state calls for, when it differs from the object's. It returns when to
// look again.
func (o *operatorStatus) update(ctx context.Context, logger klog.Logger) (time.Duration, error) {
	now := o.clock.Now()
	o.mu.Lock()
	o.observeReadiness(now)
	snap := o.snapshot()
	seen := o.seen
	o.mu.Unlock()

	next := operatorPoll
	report, ok := operatorstatus.Desired(snap, o.opts, now)
	if !report.Recheck.IsZero() {
		next = min(next, max(report.Recheck.Sub(now), 0))
	}
	if !ok {
		return next, nil
	}
	if seen != nil {
		if _, changed := operatorstatus.Apply(*seen, report, now); !changed {
			return next, nil
		}
	}
	return next, o.write(ctx, logger, report, now)
}

// observeReadiness records the readiness problem, if any, keeping when it started. o.mu must be held.
func (o *operatorStatus) observeReadiness(now time.Time) {
	why := ""
	if o.notReady != nil {
		why = o.notReady()
	}
	if why == "" {
		o.snap.NotReady = nil
		return
	}
	o.snap.NotReady = ongoing(o.snap.NotReady, now, nil, []string{why})
}

// snapshot returns a copy of what is known, one rollout per pool (a degraded one first: the pool rolls out all its
// generated MachineConfigs together), sorted by pool. o.mu must be held.
func (o *operatorStatus) snapshot() operatorstatus.Snapshot {
	s := o.snap
	s.Rollouts = nil
	byPool := map[string]operatorstatus.Rollout{}
	for _, r := range o.rollouts {
		if have, ok := byPool[r.Pool]; !ok || have.Degraded == "" && r.Degraded != "" {
			byPool[r.Pool] = r
		}
	}
	for _, r := range byPool {
		s.Rollouts = append(s.Rollouts, r)
	}
	sort.Slice(s.Rollouts, func(i, j int) bool { return s.Rollouts[i].Pool < s.Rollouts[j].Pool })
	return s
}

// write reads the ClusterOperator (creating it when missing) and updates its status when report changes it.
func (o *operatorStatus) write(ctx context.Context, logger klog.Logger, report operatorstatus.Report, now time.Time) error {
	client := o.client.ClusterOperators()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		co, err := client.Get(ctx, operatorstatus.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			co, err = client.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: operatorstatus.Name}},
				metav1.CreateOptions{FieldManager: FieldManager})
			if apierrors.IsAlreadyExists(err) { // created meanwhile: read it again
				return apierrors.NewConflict(schema.GroupResource{Group: configv1.GroupName, Resource: "clusteroperators"}, operatorstatus.Name, err)
			}
			if err == nil {
				logger.Info("Created the ClusterOperator")
			}
		}
		if err != nil {
			return fmt.Errorf("reading ClusterOperator %s: %w", operatorstatus.Name, err)
		}
		next, changed := operatorstatus.Apply(co.Status, report, now)
		if !changed {
			o.saw(co.Status)
			return nil
		}
		co = co.DeepCopy()
		co.Status = next
		updated, err := client.UpdateStatus(ctx, co, metav1.UpdateOptions{FieldManager: FieldManager})
		if err != nil {
			if apierrors.IsConflict(err) {
				return err
			}
			return fmt.Errorf("updating the status of ClusterOperator %s: %w", operatorstatus.Name, err)
		}
		o.saw(updated.Status)
		logger.Info("Updated the ClusterOperator status", "conditions", summary(updated.Status.Conditions))
		return nil
	})
}

// saw records the status the API server holds.
func (o *operatorStatus) saw(status configv1.ClusterOperatorStatus) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = status.DeepCopy()
}

// summary writes conditions for a log line: "Available=True Progressing=False Degraded=True(SyncFailing) ...".
func summary(conds []configv1.ClusterOperatorStatusCondition) string {
	parts := make([]string, 0, len(conds))
	for _, c := range conds {
		part := fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != reasons.AsExpected && c.Reason != "" {
			part += "(" + c.Reason + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " ")
}

// operatorMetrics is registries_controller_rollout_degraded{pool, output}: 1 while a pool is degraded before a write of
// this controller is live on it, 0 otherwise (the RegistriesControllerRolloutDegraded alert).
type operatorMetrics struct {
	rolloutDegraded *prometheus.GaugeVec
}

func newOperatorMetrics(reg prometheus.Registerer) *operatorMetrics {
	m := &operatorMetrics{rolloutDegraded: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: metricsNamespace, Name: "rollout_degraded",
		Help: "1 while a built-in pool is degraded before the controller's last write of the output's MachineConfig is live on it, 0 otherwise.",
	}, []string{"pool", "output"})}
	reg.MustRegister(m.rolloutDegraded)
	return m
}

func (m *operatorMetrics) degraded(key machineconfigs.Key, degraded bool) {
	v := 0.0
	if degraded {
		v = 1
	}
	m.rolloutDegraded.WithLabelValues(key.Pool, key.Output.ID).Set(v)
}

func (m *operatorMetrics) forget(key machineconfigs.Key) {
	m.rolloutDegraded.DeleteLabelValues(key.Pool, key.Output.ID)
}
