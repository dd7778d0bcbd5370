package controller

import (
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeAPI answers Health's probes: readErr fails the storage read; served lists the resources of each group
// version (a group version it lacks is not served); discoveries counts the discovery requests.
type fakeAPI struct {
	mu          sync.Mutex
	readErr     error
	served      map[schema.GroupVersion][]string
	discoveries int
}

func (f *fakeAPI) probes() healthProbes {
	return healthProbes{
		Resources: func(_ context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.discoveries++
			names, ok := f.served[gv]
			if !ok {
				return nil, apierrors.NewNotFound(schema.GroupResource{}, "")
			}
			list := &metav1.APIResourceList{GroupVersion: gv.String()}
			for _, n := range names {
				list.APIResources = append(list.APIResources, metav1.APIResource{Name: n})
			}
			return list, nil
		},
		Read: func(context.Context) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.readErr
		},
	}
}

// discovered returns how many discovery requests were answered.
func (f *fakeAPI) discovered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.discoveries
}

// serveAll serves every kind Health checks.
func (f *fakeAPI) serveAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.served = map[schema.GroupVersion][]string{}
	for _, k := range servedKinds() {
		gv := k.Resource.GroupVersion()
		f.served[gv] = append(f.served[gv], k.Resource.Resource)
	}
}

func TestReadinessSaysWhyTheControllerCannotWork(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	api := &fakeAPI{}
	api.serveAll()
	clock := clocktesting.NewFakeClock(time.Unix(1000, 0))
	synced := false
	recovered := 0
	h := newHealth(api.probes(), servedKinds(), func() bool { return synced }, clock)
	h.onRecovered = func() { recovered++ }

	check := func(wantReady bool, wantWhy string) {
		t.Helper()
		ready, why := h.Ready()
		if ready != wantReady || !strings.Contains(why, wantWhy) {
			t.Errorf("Ready() = %v, %q; want %v, %q", ready, why, wantReady, wantWhy)
		}
	}
	check(false, "not probed")
	select {
	case <-h.Served():
		t.Fatal("served before any probe")
	default:
	}

	h.probe(ctx)
	check(false, "informer caches not synced")
	<-h.Served()
	synced = true
	check(true, "ok")

	api.readErr = syscall.ECONNREFUSED
	h.probe(ctx)
	clock.Step(3 * time.Second)
	check(false, "cannot use the API server (for 3s): connection refused")
	api.readErr = nil
	h.probe(ctx)
	check(true, "ok")
	if recovered != 1 {
		t.Errorf("recovery callbacks: %d, want 1", recovered)
	}

	// A missing CRD names the kind and its resource.
	api.mu.Lock()
	delete(api.served, schema.GroupVersion{Group: "machineconfiguration.openshift.io", Version: "v1"})
	api.served[schema.GroupVersion{Group: "config.openshift.io", Version: "v1"}] = []string{"imagedigestmirrorsets", "images",
		"clusterversions", "clusterimagepolicies", "imagepolicies", "featuregates", "infrastructures"}
	api.mu.Unlock()
	clock.Step(time.Hour)
	h.probe(ctx)
	check(true, "ok") // no periodic discovery: discovery runs after a CRD event or a failed watch
	h.CRDChanged()
	h.probe(ctx)
	check(false, "the API server does not serve ContainerRuntimeConfig (containerruntimeconfigs.machineconfiguration.openshift.io/v1), "+
		"ImageTagMirrorSet (imagetagmirrorsets.config.openshift.io/v1), MachineConfig "+
		"(machineconfigs.machineconfiguration.openshift.io/v1), MachineConfigPool (machineconfigpools.machineconfiguration.openshift.io/v1)")
	api.serveAll()
	h.probe(ctx)
	check(true, "ok")
	if recovered != 2 {
		t.Errorf("recovery callbacks: %d, want 2", recovered)
	}

	// An optional kind missing: ready while it does not count, named once its feature gate is on.
	served := 0
	h.onServedChange = func() { served++ }
	api.mu.Lock()
	config := schema.GroupVersion{Group: "config.openshift.io", Version: "v1"}
	api.served[config] = slicesDelete(api.served[config], "criocredentialproviderconfigs")
	api.mu.Unlock()
	h.CRDChanged()
	h.probe(ctx)
	check(true, "ok")
	if served != 1 || h.Serves("CRIOCredentialProviderConfig") || !h.Serves("ImageDigestMirrorSet") {
		t.Errorf("served-change callbacks %d, serves the missing kind %v", served, h.Serves("CRIOCredentialProviderConfig"))
	}
	h.SetNeeded(map[string]string{"CRIOCredentialProviderConfig": "its feature gate CRIOCredentialProviderConfig is on"})
	check(false, "the API server does not serve CRIOCredentialProviderConfig (criocredentialproviderconfigs.config.openshift.io/v1), "+
		"which counts because its feature gate CRIOCredentialProviderConfig is on: install the missing CRDs; the MachineConfigs "+
		"that depend on them are left as they are, the others are written")
	select {
	case <-h.Served():
	default:
		t.Error("a missing optional kind keeps the informers from starting")
	}
}

// After a CRD event discovery runs on every probe for crdSettle (the API server serves a new CRD a moment after
// its event, and stops serving a deleted one a moment after), then only after the next event.
func TestDiscoveryFollowsACRDEventUntilItSettles(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	api := &fakeAPI{}
	api.serveAll()
	clock := clocktesting.NewFakeClock(time.Unix(1000, 0))
	h := newHealth(api.probes(), servedKinds(), nil, clock)
	h.probe(ctx) // the first probe discovers
	first := api.discovered()
	if first == 0 {
		t.Fatal("the first probe did not ask discovery")
	}
	clock.Step(time.Hour)
	h.probe(ctx)
	if api.discovered() != first {
		t.Errorf("a healthy probe without a CRD event asked discovery %d times", api.discovered()-first)
	}

	h.CRDChanged()
	if !h.settling() {
		t.Error("not settling after a CRD event")
	}
	h.probe(ctx)
	clock.Step(crdSettle - time.Second)
	h.probe(ctx)
	if got := api.discovered() - first; got != 2*first {
		t.Errorf("discovery requests while settling: %d, want %d (two probes)", got, 2*first)
	}
	clock.Step(time.Second)
	if h.settling() {
		t.Error("still settling crdSettle after the event")
	}
	before := api.discovered()
	h.probe(ctx)
	if api.discovered() != before {
		t.Errorf("a probe after the settling asked discovery %d times", api.discovered()-before)
	}
}

func slicesDelete(list []string, v string) []string {
	var out []string
	for _, s := range list {
		if s != v {
			out = append(out, s)
		}
	}
	return out
}

func TestAFailedWatchProbesAtOnceAndAClosedOneDoesNot(t *testing.T) {
	h := newHealth((&fakeAPI{}).probes(), servedKinds(), nil, nil)
	_, ctx := ktesting.NewTestContext(t)
	handler := h.WatchErrorHandler("ImageDigestMirrorSet")
	handler(ctx, nil, apierrors.NewResourceExpired("too old"))
	select {
	case <-h.kick:
		t.Fatal("an expired resource version asked for a probe")
	default:
	}
	handler(ctx, nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused"))
	handler(ctx, nil, errors.New("again"))
	select {
	case <-h.kick:
	case <-time.After(time.Second):
		t.Fatal("a failed watch did not ask for a probe")
	}
	if !h.rediscover {
		t.Error("a failed watch did not ask for discovery: its kind may be gone")
	}
}

// A CRD in its watch's first list is no change: the start's lists ask discovery again only for a kind the last
// discovery did not find, without the second-by-second probes of a CRD event.
func TestTheCRDsFirstListAsksDiscoveryOnlyForAKindNotServed(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	api := &fakeAPI{}
	api.serveAll()
	clock := clocktesting.NewFakeClock(time.Unix(1000, 0))
	h := newHealth(api.probes(), servedKinds(), nil, clock)
	kicked := func() bool {
		select {
		case <-h.kick:
			return true
		default:
			return false
		}
	}

	// Listed before the first discovery answered: it runs (once, as it would anyway).
	h.CRDListed("imagedigestmirrorsets.config.openshift.io")
	h.probe(ctx)
	first := api.discovered()
	kicked()
	for _, name := range CRDNames() {
		h.CRDListed(name)
	}
	if kicked() || h.settling() {
		t.Errorf("the first list of CRDs whose kinds are served kicked a probe (or settles: %v)", h.settling())
	}
	h.probe(ctx)
	if api.discovered() != first {
		t.Errorf("a probe after the first list of served CRDs asked discovery %d times", api.discovered()-first)
	}

	// An optional kind (probed again only when asked) not served at the last discovery whose CRD is in a first
	// list: discovery once more, no settling.
	api.mu.Lock()
	ccp := schema.GroupVersion{Group: "config.openshift.io", Version: "v1"}
	api.served[ccp] = slicesDelete(api.served[ccp], "criocredentialproviderconfigs")
	api.mu.Unlock()
	h.CRDChanged()
	clock.Step(crdSettle)
	h.probe(ctx)
	if h.Serves("CRIOCredentialProviderConfig") {
		t.Fatal("CRIOCredentialProviderConfig served after its CRD went")
	}
	api.serveAll()
	kicked()
	h.CRDListed("criocredentialproviderconfigs.config.openshift.io")
	if !kicked() || h.settling() {
		t.Errorf("the first list of a CRD whose kind was not served: kicked no probe, or settles (%v)", h.settling())
	}
	h.probe(ctx)
	if !h.Serves("CRIOCredentialProviderConfig") {
		t.Error("CRIOCredentialProviderConfig not served after its CRD was listed")
	}

	// Listed while a discovery runs: what that discovery sees may be older than the list, so one more runs.
	h.CRDChanged()
	clock.Step(crdSettle)
	h.probe(ctx) // leaves criocredentialproviderconfigs served
	api.mu.Lock()
	api.served[ccp] = slicesDelete(api.served[ccp], "criocredentialproviderconfigs")
	api.mu.Unlock()
	h.CRDChanged()
	clock.Step(crdSettle)
	resources := h.probes.Resources
	h.probes.Resources = func(ctx context.Context, gv schema.GroupVersion) (*metav1.APIResourceList, error) {
		list, err := resources(ctx, gv)
		if gv == ccp {
			api.serveAll() // the CRD is created while discovery runs, after it answered for its group
			h.CRDListed("criocredentialproviderconfigs.config.openshift.io")
		}
		return list, err
	}
	h.probe(ctx)
	if h.Serves("CRIOCredentialProviderConfig") {
		t.Fatal("the discovery before the CRD was created found its kind served")
	}
	h.probe(ctx)
	if !h.Serves("CRIOCredentialProviderConfig") {
		t.Error("a CRD listed while discovery ran was not asked for again")
	}
}
