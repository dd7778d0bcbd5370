package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Probe periods of Health. While all is well it sends one storage read every healthyPeriod and nothing else:
// watches tell it the rest. A CustomResourceDefinition of a kind the controller reads or writes that is created,
// changed or deleted arrives through a watch narrowed to that CRD's name (crdwatch.go), and discovery runs then;
// an informer's failed list or watch probes at once (WatchErrorHandler); a request of the controller's own (the
// leader lease's renewal every retry period, a write) that has not been answered within probeTimeout probes at
// once (kickWhenSlow): with etcd down, kube-apiserver keeps serving watches from its cache, so only a read or a
// write sees the outage. While something is wrong, and for crdSettle after a CRD event (discovery follows a CRD
// by a moment), it probes every unhealthyPeriod, with discovery, so that recovery is seen within a second. Each
// probe is bounded by probeTimeout: a list of one MachineConfig takes milliseconds, while with etcd down it waits
// for the whole timeout. docs/reliability.md has the detection times these give.
const (
	healthyPeriod   = time.Minute
	unhealthyPeriod = time.Second
	probeTimeout    = 2 * time.Second
	crdSettle       = 10 * time.Second
	// crdListWait is how long the first probe waits for the CRD watches' first lists (Runtime.Start).
	crdListWait = time.Second
)

// servedKind is a kind the controller reads or writes: every input kind and the MachineConfigs it writes.
type servedKind struct {
	Name     string
	Resource schema.GroupVersionResource
	// Optional is true for a kind the controller works without (inputs.Kind.Optional): while it is not served,
	// the controller is ready unless the kind counts (SetNeeded).
	Optional bool
}

func (k servedKind) String() string {
	return fmt.Sprintf("%s (%s.%s/%s)", k.Name, k.Resource.Resource, k.Resource.Group, k.Resource.Version)
}

// servedKinds are the kinds Health checks: the input kinds, then MachineConfig.
func servedKinds() []servedKind {
	var out []servedKind
	for _, k := range inputs.Kinds {
		out = append(out, servedKind{Name: k.Name, Resource: k.GroupVersionResource(), Optional: k.Optional})
	}
	return append(out, servedKind{Name: "MachineConfig", Resource: mcfgv1.GroupVersion.WithResource("machineconfigs")})
}

// healthProbes are the requests Health sends. Each must be cheap.
type healthProbes struct {
	// Resources lists the resources the API server serves in one group version (GET /apis/GROUP/VERSION); an
	// error that apierrors.IsNotFound means the group version is not served at all.
	Resources func(ctx context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error)
	// Read is a read that needs the API server's storage, e.g. a list of one MachineConfig: it fails while
	// kube-apiserver or etcd is down.
	Read func(ctx context.Context) error
}

// newProbes returns the probes of a real API server: discovery through disc, and a list of at most one
// MachineConfig through mc.
func newProbes(disc rest.Interface, mc interface {
	List(ctx context.Context, opts metav1.ListOptions) (*mcfgv1.MachineConfigList, error)
}) healthProbes {
	return healthProbes{
		Resources: func(ctx context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error) {
			data, err := disc.Get().AbsPath("/apis", gv.Group, gv.Version).DoRaw(ctx)
			if err != nil {
				return nil, err
			}
			list := &metav1.APIResourceList{}
			if err := json.Unmarshal(data, list); err != nil {
				return nil, fmt.Errorf("decoding the resources of %s: %w", gv, err)
			}
			return list, nil
		},
		Read: func(ctx context.Context) error {
			_, err := mc.List(ctx, metav1.ListOptions{Limit: 1})
			return err
		},
	}
}

// Health is what /readyz reports: whether the controller can do its work now. It is not ready while the API
// server cannot be reached or cannot read its storage, while a kind the controller reads or writes is not
// served (its CRD is missing), or while the informer caches are not filled. /healthz does not depend on it: a
// controller waiting for the API server is alive, and restarting it would not help.
//
// Health reads from the API server's storage once a minute, every second while something is wrong, and at once
// when a watch fails (WatchErrorHandler), a request is slow (kickWhenSlow) or a CRD changes (CRDChanged); it asks
// discovery only then (see healthyPeriod). It logs one line when its verdict changes, never one per failed
// request: the reflectors' own error logging is replaced by WatchErrorHandler.
type Health struct {
	probes healthProbes
	kinds  []servedKind
	clock  clock.Clock
	// onRecovered is called when the API server can be used again after it could not, e.g. to retry a sync
	// now instead of waiting out its backoff.
	onRecovered func()
	// onServedChange is called when the kinds served change (and after the first discovery), e.g. to decide again
	// which optional kinds are read.
	onServedChange func()
	kick           chan struct{}
	served         chan struct{} // closed once every kind was served at least once
	// usable is closed while the API server can be used, and replaced by an open channel while it cannot.
	usable chan struct{}
	// waiting counts the reads that could not connect and wait for usable (reconnect.go).
	waiting atomic.Int32

	mu        sync.Mutex
	synced    func() bool
	err       error             // why the API server cannot be used; nil when it can
	missing   []servedKind      // kinds not served
	needed    map[string]string // optional kinds that count, by name, with why (e.g. "its feature gate X is on")
	since     time.Time         // when err or missing was first seen
	probed    bool              // a probe has completed
	servedSet bool              // served is closed
	// discovered is when discovery last answered; rediscover asks the next probe to run it.
	discovered time.Time
	rediscover bool
	// discovering is true while a discovery runs.
	discovering bool
	// settleUntil is when the probes after a CRD event go back to healthyPeriod.
	settleUntil time.Time
}

// newHealth returns the health of a controller that reads and writes kinds through the API server that probes
// reach. synced reports whether the informer caches are filled.
func newHealth(probes healthProbes, kinds []servedKind, synced func() bool, clk clock.Clock) *Health {
	if clk == nil {
		clk = clock.RealClock{}
	}
	usable := make(chan struct{})
	close(usable)
	return &Health{probes: probes, kinds: kinds, synced: synced, clock: clk,
		kick: make(chan struct{}, 1), served: make(chan struct{}), usable: usable}
}

// Usable returns a channel that is closed while the API server can be used (as of the last probe), and once it
// can again.
func (h *Health) Usable() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.usable
}

// Kick asks for a probe now.
func (h *Health) Kick() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// CRDChanged says that a CustomResourceDefinition of a kind the controller reads or writes was created, changed
// or deleted: discovery runs at once and every second for crdSettle, until the API server serves what the CRD
// says.
func (h *Health) CRDChanged() {
	h.mu.Lock()
	h.rediscover = true
	h.settleUntil = h.clock.Now().Add(crdSettle)
	h.mu.Unlock()
	h.Kick()
}

// CRDListed says that the CustomResourceDefinition name was in the first list of its watch: that is no change,
// unless a discovery is running or the last one did not find its kind served (the CRD was created between the
// two), and then discovery runs once more; before any discovery the next probe runs one anyway. Treating the first
// list as a change (CRDChanged) cost every start crdSettle of probes every second, with discovery: 40 requests.
func (h *Health) CRDListed(name string) {
	h.mu.Lock()
	stale := h.discovering || slices.ContainsFunc(h.missing, func(k servedKind) bool { return k.crdName() == name })
	if stale {
		h.rediscover = true
	}
	h.mu.Unlock()
	if stale {
		h.Kick()
	}
}

// settling reports whether a CRD event was seen less than crdSettle ago.
func (h *Health) settling() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clock.Now().Before(h.settleUntil)
}

// Ready reports whether the controller can do its work, and if not, why, in words for /readyz.
func (h *Health) Ready() (bool, string) {
	return h.verdict(true)
}

// NotReadyReason is what Ready says when the controller cannot do its work, without how long it has been so, and
// "" when it can: it changes only when the verdict does (the ClusterOperator's Available condition quotes it).
func (h *Health) NotReadyReason() string {
	if ok, why := h.verdict(false); !ok {
		return why
	}
	return ""
}

// verdict is Ready's answer; withDuration says for how long the API server could not be used.
func (h *Health) verdict(withDuration bool) (bool, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.probed:
		return false, "not probed the API server yet"
	case h.err != nil && withDuration:
		return false, fmt.Sprintf("cannot use the API server (for %s): %v", h.clock.Since(h.since).Round(time.Second), h.err)
	case h.err != nil:
		return false, fmt.Sprintf("cannot use the API server: %v", h.err)
	case len(h.requiredMissing()) > 0:
		return false, fmt.Sprintf("the API server does not serve %s: install the missing CRDs; nothing is written until then",
			kindList(h.requiredMissing()))
	case len(h.neededMissing()) > 0:
		return false, fmt.Sprintf("the API server does not serve %s: install the missing CRDs; the MachineConfigs that depend on "+
			"them are left as they are, the others are written", h.neededList())
	case h.synced != nil && !h.synced():
		return false, "informer caches not synced yet"
	}
	return true, "ok"
}

// Served is closed once the API server has served every required kind at least once: starting informers before
// then only fills the log with failed lists and backs their retries off by up to a minute.
func (h *Health) Served() <-chan struct{} { return h.served }

// Serves reports whether the API server served the kind name at the last discovery.
func (h *Health) Serves(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.probed || h.discovered.IsZero() {
		return false
	}
	for _, k := range h.missing {
		if k.Name == name {
			return false
		}
	}
	return true
}

// SetNeeded says which optional kinds count now, by name, with why (e.g. "its feature gate
// CRIOCredentialProviderConfig is on"): while one of them is not served, the controller is not ready.
func (h *Health) SetNeeded(needed map[string]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.needed = needed
}

// requiredMissing returns the required kinds not served. h.mu must be held.
func (h *Health) requiredMissing() []servedKind {
	var out []servedKind
	for _, k := range h.missing {
		if !k.Optional {
			out = append(out, k)
		}
	}
	return out
}

// neededMissing returns the optional kinds that count and are not served. h.mu must be held.
func (h *Health) neededMissing() []servedKind {
	var out []servedKind
	for _, k := range h.missing {
		if _, ok := h.needed[k.Name]; k.Optional && ok {
			out = append(out, k)
		}
	}
	return out
}

// neededList names the optional kinds that count and are not served, with why they count. h.mu must be held.
func (h *Health) neededList() string {
	var parts []string
	for _, k := range h.neededMissing() {
		parts = append(parts, fmt.Sprintf("%s, which counts because %s", k, h.needed[k.Name]))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// Run probes until ctx is done.
func (h *Health) Run(ctx context.Context) {
	for {
		period := healthyPeriod
		if !h.probe(ctx) || h.settling() {
			period = unhealthyPeriod
		}
		select {
		case <-ctx.Done():
			return
		case <-h.kick:
		case <-h.clock.After(period):
		}
	}
}

// WatchErrorHandler returns the watch error handler of the informer of kind: it replaces the reflector's
// default, which logs every failed list and watch, by one probe (and one log line per change of verdict).
func (h *Health) WatchErrorHandler(kind string) cache.WatchErrorHandlerWithContext {
	return func(ctx context.Context, _ *cache.Reflector, err error) {
		switch {
		case errors.Is(err, io.EOF), apierrors.IsResourceExpired(err), apierrors.IsGone(err):
			return // a watch closed normally, or a resource version compacted away: the reflector lists again
		}
		klog.FromContext(ctx).V(4).Info("Watch failed", "kind", kind, "err", err)
		h.mu.Lock()
		h.rediscover = true // the list may have failed because the kind is no longer served
		h.mu.Unlock()
		h.Kick()
	}
}

// probe asks the API server once and records the verdict; it reports whether all is well.
func (h *Health) probe(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	err := h.probes.Read(ctx)
	if apierrors.IsNotFound(err) {
		err = nil // MachineConfigs not served: reported as a missing kind below
	}
	h.mu.Lock()
	missing := h.missing
	discover := err == nil && (h.rediscover || h.discovered.IsZero() || h.err != nil || len(h.requiredMissing()) > 0 ||
		len(h.neededMissing()) > 0 || h.clock.Now().Before(h.settleUntil))
	if discover {
		// Asked for from here on, discovery runs again: an event while it runs may come after what it sees.
		h.rediscover, h.discovering = false, true
	}
	h.mu.Unlock()
	if discover {
		missing, err = h.missingKinds(ctx)
		h.mu.Lock()
		h.discovering = false
		if err == nil {
			h.discovered = h.clock.Now()
		} else {
			h.rediscover = true
		}
		h.mu.Unlock()
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return false // stopping
	}
	h.record(klog.FromContext(ctx), missing, err)
	h.mu.Lock()
	defer h.mu.Unlock()
	return err == nil && len(h.requiredMissing()) == 0 && len(h.neededMissing()) == 0
}

// missingKinds returns the kinds the API server does not serve, asking once per group version.
func (h *Health) missingKinds(ctx context.Context) ([]servedKind, error) {
	served := map[schema.GroupVersion]map[string]bool{}
	var missing []servedKind
	for _, k := range h.kinds {
		gv := k.Resource.GroupVersion()
		resources, ok := served[gv]
		if !ok {
			list, err := h.probes.Resources(ctx, gv)
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, fmt.Errorf("discovery of %s: %w", gv, err)
			}
			resources = map[string]bool{}
			if list != nil {
				for _, r := range list.APIResources {
					resources[r.Name] = true
				}
			}
			served[gv] = resources
		}
		if !resources[k.Resource.Resource] {
			missing = append(missing, k)
		}
	}
	return missing, nil
}

// record stores the verdict of a probe and logs it when it changed.
func (h *Health) record(logger klog.Logger, missing []servedKind, err error) {
	h.mu.Lock()
	wasBad := h.err != nil || len(h.requiredMissing()) > 0
	wasErr, wasMissing, since, wasProbed := h.err, h.missing, h.since, h.probed
	h.err, h.missing, h.probed = err, missing, true
	bad := err != nil || len(h.requiredMissing()) > 0
	if bad && !wasBad {
		h.since = h.clock.Now()
	}
	switch {
	case err != nil && wasErr == nil:
		h.usable = make(chan struct{})
	case err == nil && wasErr != nil:
		close(h.usable)
	}
	served := err == nil && len(h.requiredMissing()) == 0 && !h.servedSet
	if served {
		h.servedSet = true
		close(h.served)
	}
	onRecovered, onServedChange := h.onRecovered, h.onServedChange
	h.mu.Unlock()

	switch {
	case err != nil && wasErr == nil:
		logger.Info("Cannot use the API server: /readyz fails and nothing is written until it answers; every MachineConfig keeps its content",
			"err", err.Error())
	case err == nil && wasErr != nil:
		logger.Info("The API server answers again", "after", h.clock.Since(since).Round(time.Millisecond))
	}
	if err != nil {
		return // what is served is not known
	}
	if changed := kindList(missing) != kindList(wasMissing); changed || !wasProbed {
		switch {
		case !changed:
		case len(missing) > 0:
			logger.Info("The API server does not serve kinds the controller reads or writes: a required one stops every write, "+
				"an optional one (a gated kind, the FeatureGate) only the MachineConfigs that depend on it", "missing", kindList(missing))
		default:
			logger.Info("Every kind the controller reads or writes is served")
		}
		if onServedChange != nil {
			onServedChange()
		}
	}
	if wasBad && !bad && onRecovered != nil {
		onRecovered()
	}
}

// kindList names kinds for people: "ImageTagMirrorSet (imagetagmirrorsets.config.openshift.io/v1), ...".
func kindList(kinds []servedKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// watchHealth makes h the watch error handler of every informer of c, before they start.
func watchHealth(h *Health, c *Controller) error {
	return c.reader.SetWatchErrorHandler(h.WatchErrorHandler)
}
