package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/endpoints"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// The controller at the scale of a disconnected cluster: the mirror objects oc-mirror writes for ten catalog versions
// (fixtures.OCMirror: 5,000 objects, 20,000 entries, 2,000 sources, MachineConfigs of 70% of the size budget).
const (
	// scaleSettleDelay is the controller's settle delay here: the default, as deployed.
	scaleSettleDelay = time.Second
	// scaleIdle is how long the idle controller is watched.
	scaleIdle = 5 * time.Minute
	// scaleChanges is how many one-object changes are timed.
	scaleChanges = 10
	// scaleQuiet is how long no MachineConfig write must come for a burst to count as settled: longer than the
	// settle delay and the time a render of 20,000 entries takes.
	scaleQuiet = 5 * time.Second
	// userHZ is the unit of the CPU times in /proc/PID/stat on Linux.
	userHZ = 100
)

// BenchmarkScaleBurst applies the mirror objects of a disconnected cluster with one `kubectl apply -f dir/` while the
// controller binary runs (default settle delay, leader election on, its requests counted by a proxy), then, with
// 5,000 objects, leaves it idle for 5 minutes and changes one object 10 times, and finally deletes every object with
// one `kubectl delete -f dir/`. It reports:
//
//   - settle-s: seconds from kubectl's end to the last MachineConfig write, whose content is checked to be final
//     (every source with every mirror, or none after the delete);
//   - writes/pool: MachineConfig writes per pool during the burst (a watch on the MachineConfigs);
//   - cpu-s: the controller's CPU seconds (/proc/PID/stat) from the start of the burst to its end;
//   - requests: the requests the controller sent (the proxy's count), watches excluded;
//   - peak-rss-MiB (VmHWM), heap-inuse-MiB (its /metrics) and live-heap-MiB (the live heap after its last GC,
//     from GODEBUG=gctrace=1);
//   - idle-requests, idle-other-requests (beyond watches, health probes and the leader lease), idle-cpu-s;
//   - change-minus-settle-ms: median time from the API server accepting one changed object to the worker
//     MachineConfig carrying it, minus the settle delay.
//
// With REGISTRIES_BENCH_PROFILE_DIR set, it also saves the controller's heap profile right after each burst has
// settled, its peak (saveHeapProfile).
//
// The last case runs the 5,000 objects' burst alone with --max-settle-delay=10s, the default until 2026-12: shorter
// than kubectl takes to apply them, so it writes every 10 s while kubectl goes on (the default, 2m, is longer).
func BenchmarkScaleBurst(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
		// full adds the idle minutes and the one-object changes.
		full bool
		args []string
	}{
		{"objects=1000", 1000, false, nil},
		{"objects=5000", 5000, true, nil},
		{"objects=5000/max-settle-delay=10s", 5000, false, []string{"--max-settle-delay", "10s"}},
	} {
		n, full := tc.n, tc.full
		b.Run(tc.name, func(b *testing.B) {
			cp.Reset(b)
			kubectlApply(b, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
			set := fixtures.OCMirror(n)
			dir := writeManifests(b, set.Objects())
			proxy, err := cp.StartProxy(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = proxy.Close() })
			p := startScaleProcess(b, "scale", proxy.KubeconfigPath, tc.args...)
			waitWorkerContains(b, "", time.Minute)
			writes := watchRegistriesWrites(b)
			time.Sleep(scaleQuiet) // settling before the burst is measured: a benchmark's setup, not a negative wait

			burst := measureBurst(b, p, proxy, writes, func() { cp.RunKubectl(b, "apply", "-f", dir) }, expectFinal(set))
			p.saveHeapProfile(b, b.Name()+"-burst")
			b.ReportMetric(burst.kubectl.Seconds(), "kubectl-s")
			b.ReportMetric(burst.settle.Seconds(), "settle-s")
			b.ReportMetric(burst.writesPerPool, "writes/pool")
			b.ReportMetric(burst.cpu, "cpu-s")
			b.ReportMetric(float64(burst.requests.total), "requests")
			b.ReportMetric(p.peakRSS(b), "peak-rss-MiB")
			b.ReportMetric(p.status(b, "RssFile")/1024, "rss-file-MiB")
			b.ReportMetric(p.metric(b, "go_memstats_heap_inuse_bytes")/(1<<20), "heap-inuse-MiB")
			b.ReportMetric(p.liveHeap(b), "live-heap-MiB")
			b.ReportMetric(p.metric(b, `registries_controller_machineconfig_bytes{output="registries",pool="worker"}`)/1024, "machineconfig-KiB")
			b.Logf("%d objects (%d entries, %d sources) applied: kubectl %s, settled %s after it (last write), %.1f writes per pool, %.2f CPU s, "+
				"%d requests (%s), peak RSS %.0f MiB, heap in use %.0f MiB, live heap %.0f MiB, MachineConfig %.0f KiB",
				n, set.Entries, set.Sources(), burst.kubectl.Round(time.Millisecond), burst.settle.Round(time.Millisecond), burst.writesPerPool, burst.cpu,
				burst.requests.total, burst.requests, p.peakRSS(b), p.metric(b, "go_memstats_heap_inuse_bytes")/(1<<20), p.liveHeap(b),
				p.metric(b, `registries_controller_machineconfig_bytes{output="registries",pool="worker"}`)/1024)

			if full {
				idleCPU, idleRequests := p.cpuSeconds(b), len(proxy.Requests())
				time.Sleep(scaleIdle) // the idle figures' measurement window, not a claim that nothing happens
				idle := countRequests(proxy.Requests()[idleRequests:])
				cpu := p.cpuSeconds(b) - idleCPU
				b.ReportMetric(float64(idle.total), "idle-requests")
				b.ReportMetric(float64(idle.other), "idle-other-requests")
				b.ReportMetric(cpu, "idle-cpu-s")
				b.Logf("idle %s at %d objects: %d requests (%s), %.2f CPU s", scaleIdle, n, idle.total, idle, cpu)

				reportChangeLatency(b, n, changeOneObject(b, set), "")
				p.saveHeapProfile(b, b.Name()+"-changes")
				b.ReportMetric(p.peakRSS(b), "changes-peak-rss-MiB")
				b.Logf("after the one-object changes: peak RSS %.0f MiB, heap in use %.0f MiB, live heap %.0f MiB",
					p.peakRSS(b), p.metric(b, "go_memstats_heap_inuse_bytes")/(1<<20), p.liveHeap(b))
			}

			gone := measureBurst(b, p, proxy, writes, func() { cp.RunKubectl(b, "delete", "-f", dir, "--wait=false") }, expectNoSources)
			b.ReportMetric(gone.kubectl.Seconds(), "delete-kubectl-s")
			b.ReportMetric(gone.settle.Seconds(), "delete-settle-s")
			b.ReportMetric(gone.writesPerPool, "delete-writes/pool")
			b.ReportMetric(gone.cpu, "delete-cpu-s")
			b.ReportMetric(float64(gone.requests.total), "delete-requests")
			p.saveHeapProfile(b, b.Name()+"-deleted")
			b.Logf("%d objects deleted: kubectl %s, settled %s after it, %.1f writes per pool, %.2f CPU s, %d requests (%s); peak RSS over the run %.0f MiB",
				n, gone.kubectl.Round(time.Millisecond), gone.settle.Round(time.Millisecond), gone.writesPerPool, gone.cpu, gone.requests.total, gone.requests, p.peakRSS(b))
		})
	}
}

// BenchmarkInformerMemory measures what the informers' transform saves: the controller binary started on a cluster
// holding the 5,000 objects of BenchmarkScaleBurst, applied with kubectl (which adds the last-applied annotation and
// managed fields), with the transform and without it (the hidden `start --keep-unread-fields`). Memory is read once the
// MachineConfigs are final and the controller has been quiet for 5 s.
func BenchmarkInformerMemory(b *testing.B) {
	const n = 5000
	set := fixtures.OCMirror(n)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"transform=on", nil},
		{"transform=off", []string{"--keep-unread-fields"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cp.Reset(b)
			kubectlApply(b, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
			cp.RunKubectl(b, "apply", "-f", writeManifests(b, set.Objects()))
			p := startScaleProcess(b, "memory", cp.KubeconfigPath, tc.args...)
			start := time.Now()
			final := expectFinal(set)
			framework.Eventually(b, 3*time.Minute, "the final MachineConfig", func() (bool, string) {
				mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
				if err != nil {
					return false, err.Error()
				}
				ok, seen := final(registriesConfOf(b, mc))
				return ok, seen
			})
			converged := time.Since(start)
			time.Sleep(scaleQuiet) // settling before the memory figures are read, not a negative wait
			rss, heap, live := p.peakRSS(b), p.metric(b, "go_memstats_heap_inuse_bytes")/(1<<20), p.liveHeap(b)
			b.ReportMetric(rss, "peak-rss-MiB")
			anon, file := p.status(b, "RssAnon")/1024, p.status(b, "RssFile")/1024
			b.ReportMetric(p.status(b, "VmRSS")/1024, "rss-MiB")
			b.ReportMetric(anon, "rss-anon-MiB")
			b.ReportMetric(heap, "heap-inuse-MiB")
			b.ReportMetric(live, "live-heap-MiB")
			b.Logf("%s, %d objects applied with kubectl: peak RSS %.0f MiB, RSS %.0f MiB (%.0f MiB anonymous, %.0f MiB of files: the binary), heap in use %.0f MiB, "+
				"live heap after the last GC %.0f MiB; final MachineConfig %s after the start",
				tc.name, n, rss, p.status(b, "VmRSS")/1024, anon, file, heap, live, converged.Round(time.Millisecond))
		})
	}
}

// burstResult is what measureBurst measured.
type burstResult struct {
	kubectl       time.Duration
	settle        time.Duration
	writesPerPool float64
	cpu           float64
	requests      requestCounts
}

// measureBurst runs kubectl (one command), waits until both pools' MachineConfigs satisfy final and no write has
// come for scaleQuiet, and measures the burst from kubectl's start to the last write.
func measureBurst(b *testing.B, p *scaleProcess, proxy *framework.Proxy, writes *writeLog, run func(), final func(string) (bool, string)) burstResult {
	b.Helper()
	cpu0, requests0, writes0 := p.cpuSeconds(b), len(proxy.Requests()), writes.len()
	start := time.Now()
	run()
	applied := time.Now()
	var last time.Time
	framework.Eventually(b, 5*time.Minute, "the final MachineConfigs, then quiet", func() (bool, string) {
		all := writes.since(writes0)
		if len(all) == 0 {
			return false, "no write yet"
		}
		for _, name := range []string{masterMC, workerMC} {
			w, ok := lastOf(all, name)
			if !ok {
				return false, name + " not written"
			}
			if done, seen := final(w.conf); !done {
				return false, name + ": " + seen
			}
		}
		last = all[len(all)-1].at
		return time.Since(last) >= scaleQuiet, "quiet for " + time.Since(last).String()
	})
	all := writes.since(writes0)
	perPool := map[string]int{}
	for _, w := range all {
		perPool[w.name]++
	}
	return burstResult{
		kubectl:       applied.Sub(start),
		settle:        last.Sub(applied),
		writesPerPool: float64(perPool[masterMC]+perPool[workerMC]) / 2,
		cpu:           p.cpuSeconds(b) - cpu0,
		requests:      countRequests(proxy.Requests()[requests0:]),
	}
}

// expectFinal returns a check that a registries.conf holds every source of set with every mirror: one [[registry]]
// table per source, one [[registry.mirror]] table per mirror of each source and pull mode (digest or tag). The counts
// come from the objects, not from the code under test.
func expectFinal(set fixtures.Disconnected) func(string) (bool, string) {
	digest, tag := map[string]map[string]bool{}, map[string]map[string]bool{}
	add := func(to map[string]map[string]bool, source string, mirrors []string) {
		if to[source] == nil {
			to[source] = map[string]bool{}
		}
		for _, m := range mirrors {
			to[source][m] = true
		}
	}
	for _, o := range set.IDMS {
		for _, e := range o.Spec.ImageDigestMirrors {
			add(digest, e.Source, imageMirrors(e.Mirrors))
		}
	}
	for _, o := range set.ICSP {
		for _, e := range o.Spec.RepositoryDigestMirrors {
			add(digest, e.Source, e.Mirrors)
		}
	}
	for _, o := range set.ITMS {
		for _, e := range o.Spec.ImageTagMirrors {
			add(tag, e.Source, imageMirrors(e.Mirrors))
		}
	}
	sources, mirrors := set.Sources(), 0
	for _, ms := range digest {
		mirrors += len(ms)
	}
	for _, ms := range tag {
		mirrors += len(ms)
	}
	return func(conf string) (bool, string) {
		r, m := strings.Count(conf, "[[registry]]"), strings.Count(conf, "[[registry.mirror]]")
		return r == sources && m == mirrors, fmt.Sprintf("%d of %d sources, %d of %d mirrors", r, sources, m, mirrors)
	}
}

// expectNoSources checks that a registries.conf has no [[registry]] table left.
func expectNoSources(conf string) (bool, string) {
	n := strings.Count(conf, "[[registry]]")
	return n == 0, fmt.Sprintf("%d sources left", n)
}

func imageMirrors[M ~string](ms []M) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

// changeOneObject changes one mirror of one ImageDigestMirrorSet scaleChanges times, each from a quiet controller,
// and returns the times from the API server accepting the change to a watch delivering the worker MachineConfig
// that carries it, sorted.
func changeOneObject(b *testing.B, set fixtures.Disconnected) []time.Duration {
	b.Helper()
	ctx := context.Background()
	obj := set.IDMS[len(set.IDMS)/2]
	source := obj.Spec.ImageDigestMirrors[0].Source
	var latencies []time.Duration
	for i := 1; i <= scaleChanges; i++ {
		mirror := fmt.Sprintf("changed-%d.corp.example.com/%s", i, strings.SplitN(source, "/", 2)[1])
		w := watchWorkerArrivals(b)
		patch := fmt.Sprintf(`[{"op":"replace","path":"/spec/imageDigestMirrors/0/mirrors/0","value":%q}]`, mirror)
		if _, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Patch(ctx, obj.Name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			b.Fatal(err)
		}
		accepted := time.Now()
		latencies = append(latencies, waitForArrival(b, w, mirror).Sub(accepted))
		time.Sleep(scaleSettleDelay + 2*time.Second) // the next change starts from a quiet controller
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	return latencies
}

// arrivalWatch is a watch on the worker MachineConfig that knows when the bytes of its events arrived:
// lastRead is the time (UnixNano) of the last read of the answer's body that returned bytes.
type arrivalWatch struct {
	watch.Interface
	lastRead *atomic.Int64
}

// watchWorkerArrivals starts an arrivalWatch. client-go reads an event's frame to its end, decodes it (for a 1.4
// MB MachineConfig, tens of milliseconds of the benchmark's own CPU), and only then delivers it; it reads the next
// frame only after that: when an event is delivered, the last read is that of its last bytes.
func watchWorkerArrivals(b *testing.B) arrivalWatch {
	b.Helper()
	last := &atomic.Int64{}
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return promhttp.RoundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil {
				resp.Body = stampedBody{ReadCloser: resp.Body, last: last}
			}
			return resp, err
		})
	}
	client, err := mcfgclient.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	w, err := client.MachineconfigurationV1().MachineConfigs().Watch(context.Background(), metav1.ListOptions{FieldSelector: "metadata.name=" + workerMC})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return arrivalWatch{Interface: w, lastRead: last}
}

// stampedBody records in last when a read returned bytes.
type stampedBody struct {
	io.ReadCloser
	last *atomic.Int64
}

func (s stampedBody) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if n > 0 {
		s.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// waitForArrival returns when w delivered the MachineConfig whose registries.conf contains substring: the time
// its bytes arrived, before client-go decoded them (arrivalWatch).
func waitForArrival(b *testing.B, w arrivalWatch, substring string) time.Time {
	b.Helper()
	defer w.Stop()
	timeout := time.After(time.Minute)
	for {
		select {
		case ev := <-w.ResultChan():
			arrived := time.Unix(0, w.lastRead.Load())
			if mc, ok := ev.Object.(*mcfgv1.MachineConfig); ok && strings.Contains(registriesConfOf(b, mc), substring) {
				return arrived
			}
		case <-timeout:
			b.Fatalf("no MachineConfig with %q within a minute", substring)
		}
	}
}

// writeManifests writes objs as YAML into a new directory, one file each, named so that kubectl applies them in
// order, as kubectl would get them from oc-mirror's output.
func writeManifests(b testing.TB, objs []runtime.Object) string {
	b.Helper()
	dir := b.TempDir()
	for i, obj := range objs {
		obj = obj.DeepCopyObject()
		m := obj.(metav1.Object)
		m.SetUID("") // the fixtures' UIDs are for tests without an API server
		data, err := yaml.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d-%s.yaml", i, m.GetName())), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// registriesConfOf returns the registries.conf a generated MachineConfig writes, decoded without the code under
// test (framework.NodeFiles); "" when it has none.
func registriesConfOf(t testing.TB, mc *mcfgv1.MachineConfig) string {
	t.Helper()
	return framework.MustNodeFiles(t, mc)["/etc/containers/registries.conf"]
}

// writeLog records every write of the two generated registries MachineConfigs a watch delivers, with the time it
// arrived and the registries.conf it carries.
type writeLog struct {
	mu     sync.Mutex
	writes []mcWrite
}

type mcWrite struct {
	name string
	at   time.Time
	conf string
}

func watchRegistriesWrites(b *testing.B) *writeLog {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	list, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	l := &writeLog{}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			at := time.Now()
			mc, ok := ev.Object.(*mcfgv1.MachineConfig)
			if !ok || (mc.Name != masterMC && mc.Name != workerMC) || (ev.Type != watch.Added && ev.Type != watch.Modified && ev.Type != watch.Deleted) {
				continue
			}
			conf := registriesConfOf(b, mc)
			l.mu.Lock()
			l.writes = append(l.writes, mcWrite{name: mc.Name, at: at, conf: conf})
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *writeLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

// since returns the writes from the index from on.
func (l *writeLog) since(from int) []mcWrite {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]mcWrite(nil), l.writes[from:]...)
}

func lastOf(writes []mcWrite, name string) (mcWrite, bool) {
	for i := len(writes) - 1; i >= 0; i-- {
		if writes[i].name == name {
			return writes[i], true
		}
	}
	return mcWrite{}, false
}

// requestCounts sorts the requests a controller sent, watches excluded.
type requestCounts struct {
	total int
	// byKind counts them by verb and resource, e.g. "update machineconfigs".
	byKind map[string]int
	// probes are Health's (a list of one MachineConfig, discovery), lease the leader election's, other the rest.
	probes, lease, other int
}

func countRequests(requests []framework.Request) requestCounts {
	c := requestCounts{byKind: map[string]int{}}
	for _, r := range requests {
		if r.Verb == "watch" {
			continue
		}
		c.total++
		kind := r.Verb + " " + r.Resource
		switch {
		case r.Resource == "":
			kind = "discovery"
			c.probes++
		case r.Resource == "machineconfigs" && r.Verb == "list" && strings.Contains(r.RawQuery, "limit=1"):
			kind = "probe machineconfigs"
			c.probes++
		case r.Group == "coordination.k8s.io":
			c.lease++
		default:
			c.other++
		}
		c.byKind[kind]++
	}
	return c
}

// String lists the counts by kind, largest first: "4 update machineconfigs, 2 create events".
func (c requestCounts) String() string {
	kinds := make([]string, 0, len(c.byKind))
	for k := range c.byKind {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if c.byKind[kinds[i]] != c.byKind[kinds[j]] {
			return c.byKind[kinds[i]] > c.byKind[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", c.byKind[k], k)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// scaleProcess is `registries-controller start` run as a Deployment runs it (leader election on, default settle
// delay), with GODEBUG=gctrace=1 so that its log tells the live heap after each garbage collection.
type scaleProcess struct {
	cmd     *exec.Cmd
	metrics string
	log     string
}

func startScaleProcess(b *testing.B, name, kubeconfig string, args ...string) *scaleProcess {
	b.Helper()
	port := framework.FreePort(b)
	logPath := filepath.Join(b.TempDir(), name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	all := append([]string{"start", "--kubeconfig", kubeconfig, "--listen-address", "127.0.0.1:" + strconv.Itoa(port),
		"--insecure-loopback-metrics", "--settle-delay", scaleSettleDelay.String(),
		// A lease of its own: the killed process of the previous run never released its lease.
		"--leader-elect-namespace", "default", "--leader-elect-name", fmt.Sprintf("registries-controller-bench-%d", time.Now().UnixNano())}, args...)
	cmd := exec.Command(controllerBinary(b), all...)
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if dir := os.Getenv(envProfileDir); dir != "" {
			// the gctrace lines say how the heap moved over the whole run
			if data, err := os.ReadFile(logPath); err == nil {
				_ = os.WriteFile(filepath.Join(dir, strings.NewReplacer("/", "-", "=", "-").Replace(b.Name())+".log"), data, 0o644)
			}
		}
		if b.Failed() {
			data, _ := os.ReadFile(logPath)
			b.Logf("%s log (last 20,000 bytes):\n%s", name, data[max(0, len(data)-20000):])
		}
	})
	return &scaleProcess{cmd: cmd, metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), log: logPath}
}

// cpuSeconds returns the CPU time the process has used, user and system, from /proc/PID/stat.
func (p *scaleProcess) cpuSeconds(b *testing.B) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name (in parentheses): state is field 3, utime 14 and stime 15.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", p.cmd.Process.Pid, data)
	}
	return (utime + stime) / userHZ
}

// status returns a field of /proc/PID/status in kB, e.g. VmHWM (the peak resident set size).
func (p *scaleProcess) status(b *testing.B, field string) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb
		}
	}
	b.Fatalf("no %s in /proc/%d/status", field, p.cmd.Process.Pid)
	return 0
}

// peakRSS is the peak resident set size in MiB.
func (p *scaleProcess) peakRSS(b *testing.B) float64 { return p.status(b, "VmHWM") / 1024 }

// metric returns a sample of the process's /metrics, named with its labels as exposed, e.g.
// `registries_controller_machineconfig_bytes{output="registries",pool="worker"}`.
func (p *scaleProcess) metric(b *testing.B, series string) float64 {
	b.Helper()
	m := scrapeAll(b, p.metrics)
	v, ok := m[series]
	if !ok {
		b.Fatalf("no %s in %s", series, p.metrics)
	}
	return v
}

// envProfileDir names the directory BenchmarkScaleBurst writes the controller's heap profiles into (unset: none):
// HEAP_PROFILE_DIR/CASE-PHASE.heap.pb.gz, for `go tool pprof -sample_index=inuse_space`.
const envProfileDir = "REGISTRIES_BENCH_PROFILE_DIR"

// saveHeapProfile writes the process's heap profile (endpoints.PathHeapProfile, without a collection first, so
// that what a render left for the collector is in it too) into $REGISTRIES_BENCH_PROFILE_DIR/NAME.heap.pb.gz,
// when that is set.
func (p *scaleProcess) saveHeapProfile(b *testing.B, name string) {
	b.Helper()
	dir := os.Getenv(envProfileDir)
	if dir == "" {
		return
	}
	url := strings.TrimSuffix(p.metrics, endpoints.PathMetrics) + endpoints.PathHeapProfile
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "-", "=", "-").Replace(name)+".heap.pb.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("heap profile: %s", path)
}

// gcLine matches a line of GODEBUG=gctrace=1: "gc 12 @3.104s 2%: ... 45->46->22 MB, 50 MB goal, ...", where 22
// is the heap marked live.
var gcLine = regexp.MustCompile(`(?m)^gc \d+ .* \d+->\d+->(\d+) MB`)

// liveHeap returns the heap marked live by the process's last garbage collection, in MiB (gctrace's MB are MiB).
func (p *scaleProcess) liveHeap(b *testing.B) float64 {
	b.Helper()
	data, err := os.ReadFile(p.log)
	if err != nil {
		b.Fatal(err)
	}
	all := gcLine.FindAllStringSubmatch(string(data), -1)
	if len(all) == 0 {
		b.Fatal("no gctrace line in the controller's log")
	}
	v, _ := strconv.ParseFloat(all[len(all)-1][1], 64)
	return v
}

// scrapeAll reads every sample of a /metrics page, named with its labels as exposed.
func scrapeAll(b *testing.B, url string) map[string]float64 {
	b.Helper()
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				out[line[:i]] = v
			}
		}
	}
	return out
}

// reportChangeLatency reports the median and p95 of changeOneObject's sorted latencies at n objects, less the settle
// delay; how is added to the log line after the count.
func reportChangeLatency(b *testing.B, n int, latencies []time.Duration, how string) {
	b.Helper()
	median, p95 := latencies[len(latencies)/2], latencies[len(latencies)*95/100]
	b.ReportMetric(float64((median - scaleSettleDelay).Milliseconds()), "change-minus-settle-ms")
	b.ReportMetric(float64((p95 - scaleSettleDelay).Milliseconds()), "change-p95-minus-settle-ms")
	b.Logf("one object changed at %d objects, %d times%s: median %s, p95 %s (settle delay %s included)",
		n, len(latencies), how, median.Round(time.Millisecond), p95.Round(time.Millisecond), scaleSettleDelay)
}
