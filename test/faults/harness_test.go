package faults

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfginformers "github.com/openshift/client-go/machineconfiguration/informers/externalversions"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	masterMC = "99-master-generated-registries"
	workerMC = "99-worker-generated-registries"
)

var generated = []string{masterMC, workerMC}

var (
	metavGet    = metav1.GetOptions{}
	metavUpdate = metav1.UpdateOptions{}
)

// files maps each generated MachineConfig's name to the files it writes (path to contents).
type files map[string]map[string]string

// idms returns the ImageDigestMirrorSet NAME mirroring quay.io/NAME to MIRROR/NAME.
func idms(name, mirror string) *configv1.ImageDigestMirrorSet {
	o := fixtures.IDMS(name, fixtures.Mirror("quay.io/"+name, mirror+"/"+name))
	o.UID = ""
	return o
}

// create creates objects with the typed client, retrying for a while when the API server does not answer.
func create(t *testing.T, objs ...*configv1.ImageDigestMirrorSet) {
	t.Helper()
	for _, o := range objs {
		framework.Eventually(t, 30*time.Second, "creating "+o.Name, func() (bool, string) {
			_, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Create(context.Background(), o, metav1.CreateOptions{})
			return err == nil, fmt.Sprint(err)
		})
	}
}

// expected renders objs as an uninterrupted run would: the render path the controller and `render` share, with
// the built-in pools and the ClusterVersion of the control plane.
func expected(t *testing.T, objs ...*configv1.ImageDigestMirrorSet) files {
	t.Helper()
	in := &inputs.Inputs{
		ImageDigestMirrorSets: objs,
		ClusterVersion:        fixtures.ClusterVersion(fixtures.ReleaseImage),
		Pools:                 []*mcfgv1.MachineConfigPool{fixtures.Pool(framework.PoolMaster, true), fixtures.Pool(framework.PoolWorker, true)},
	}
	out, err := render.Render(in, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	want := files{}
	for _, mc := range out.MachineConfigs {
		if want[mc.Key.Name()], err = framework.NodeFiles(mc.Object); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// handWrittenMirror checks, against text written by hand rather than rendered, that the worker's registries.conf
// in got holds the entry idms(name, mirror) gives: the source quay.io/NAME with the one mirror MIRROR/NAME, pulled
// from by digest only (an ImageDigestMirrorSet), the source not blocked.
func handWrittenMirror(t *testing.T, got files, name, mirror string) {
	t.Helper()
	want := "[[registry]]\n" +
		"  prefix = \"\"\n" +
		"  location = \"quay.io/" + name + "\"\n" +
		"\n" +
		"  [[registry.mirror]]\n" +
		"    location = \"" + mirror + "/" + name + "\"\n" +
		"    pull-from-mirror = \"digest-only\"\n"
	conf := got[workerMC]["/etc/containers/registries.conf"]
	if !strings.Contains(conf, want) {
		t.Errorf("%s: registries.conf lacks the hand-written entry\n%s\nit holds:\n%s", workerMC, want, conf)
	}
}

// current reads the generated MachineConfigs' files from the cluster; a missing MachineConfig is absent.
func current(t *testing.T) (files, map[string]int64) {
	t.Helper()
	got, generations := files{}, map[string]int64{}
	list, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(context.Background(), metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return got, generations // the CRD is not installed
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		mc := &list.Items[i]
		if got[mc.Name], err = framework.NodeFiles(mc); err != nil {
			t.Fatal(err)
		}
		generations[mc.Name] = mc.Generation
	}
	return got, generations
}

func equalFiles(a, b files) bool {
	return maps.EqualFunc(a, b, func(x, y map[string]string) bool { return maps.Equal(x, y) })
}

// waitForFiles waits until the cluster's generated MachineConfigs write the files of want, and returns how long that
// took.
func waitForFiles(t *testing.T, timeout time.Duration, what string, want files) time.Duration {
	t.Helper()
	start := time.Now()
	framework.Eventually(t, timeout, what, func() (bool, string) {
		got, _ := current(t)
		return equalFiles(got, want), fmt.Sprintf("%d MachineConfigs, differing", len(got))
	})
	return time.Since(start)
}

// waitReady waits until the controller's /readyz answers 200, and returns how long that took.
func waitReady(t *testing.T, c *framework.Controller, timeout time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	framework.Eventually(t, timeout, c.Name+" ready", func() (bool, string) {
		code, body := c.Get("/readyz")
		return code == http.StatusOK, fmt.Sprint(code, " ", body)
	})
	return time.Since(start)
}

// version is one state of a generated MachineConfig that the API server reported.
type version struct {
	generation int64
	files      map[string]string
}

// history records every version of the generated MachineConfigs that an informer of the test sees, across
// restarts of the API server (the informer lists and watches again).
type history struct {
	mu       sync.Mutex
	versions map[string][]version
	errs     []error
}

func recordHistory(t *testing.T) *history {
	t.Helper()
	h := &history{versions: map[string][]version{}}
	factory := mcfginformers.NewSharedInformerFactory(cp.MachineConfig, 0)
	informer := factory.Machineconfiguration().V1().MachineConfigs().Informer()
	record := func(obj any) {
		mc, ok := obj.(*mcfgv1.MachineConfig)
		if !ok {
			return
		}
		f, err := framework.NodeFiles(mc)
		h.mu.Lock()
		defer h.mu.Unlock()
		if err != nil {
			h.errs = append(h.errs, err)
			return
		}
		vs := h.versions[mc.Name]
		if len(vs) > 0 && vs[len(vs)-1].generation == mc.Generation {
			return // metadata only
		}
		h.versions[mc.Name] = append(vs, version{generation: mc.Generation, files: f})
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: record, UpdateFunc: func(_, obj any) { record(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the test's informer did not sync")
	}
	return h
}

func (h *history) of(name string) []version {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.errs) > 0 {
		panic(fmt.Sprint(h.errs))
	}
	return append([]version(nil), h.versions[name]...)
}

// assertNoRewrites fails when two versions of a MachineConfig in a row hold the same files: a write that
// changed nothing on the nodes, which still rolls them.
func (h *history) assertNoRewrites(t *testing.T) {
	t.Helper()
	for _, name := range generated {
		vs := h.of(name)
		for i := 1; i < len(vs); i++ {
			if maps.Equal(vs[i-1].files, vs[i].files) {
				t.Errorf("%s: generation %d wrote the same files as generation %d", name, vs[i].generation, vs[i-1].generation)
			}
		}
	}
}

// outage is what a controller showed while a part of the control plane was down.
type outage struct {
	notReadyAfter time.Duration // from the stop to the first /readyz that failed; -1 if none did
	notReadyWhy   string        // the body of that /readyz
	readyAfter    time.Duration // from the restart (the part ready again) to /readyz ok
	healthzFailed int           // /healthz answers other than 200 during the outage
}

// breakFor stops a part of the control plane, keeps it down for down while polling the controller's /readyz and
// /healthz every 100ms, starts it again, and waits until the controller is ready again.
func breakFor(t *testing.T, c *framework.Controller, down time.Duration, stop, start func() error) outage {
	t.Helper()
	o := outage{notReadyAfter: -1}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = start() }) // for the tests after this one
	stopped := time.Now()
	for time.Since(stopped) < down {
		if code, _ := c.Get("/healthz"); code != http.StatusOK {
			o.healthzFailed++
		}
		if code, body := c.Get("/readyz"); code != http.StatusOK && o.notReadyAfter < 0 {
			o.notReadyAfter, o.notReadyWhy = time.Since(stopped), body
		}
		select {
		case <-c.Exited():
			t.Fatalf("the controller exited during the outage: %v", c.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	o.readyAfter = waitReady(t, c, time.Minute)
	return o
}
