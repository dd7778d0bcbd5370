package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/openshift/registries-controller/test/framework"
)

// These benchmarks measure the controller against the real control plane. Run them with
// `make bench` (benchtime 1x: each does its own repetitions and reports medians).

// BenchmarkChangeToMachineConfig measures the time from an applied change (the API server has accepted
// the update) to the worker MachineConfig carrying it, over repeated changes, with the default settle
// delay and with a 10ms one, so that the settle delay's share is visible.
func BenchmarkChangeToMachineConfig(b *testing.B) {
	for _, settle := range []time.Duration{time.Second, 10 * time.Millisecond} {
		b.Run("settle="+settle.String(), func(b *testing.B) {
			cp.Reset(b)
			startInProcess(b, cp.RESTConfig, settle, 0)
			ctx := context.Background()
			idmss := cp.Config.ConfigV1().ImageDigestMirrorSets()
			obj := &configv1.ImageDigestMirrorSet{ObjectMeta: metav1.ObjectMeta{Name: "latency"}, Spec: configv1.ImageDigestMirrorSetSpec{
				ImageDigestMirrors: []configv1.ImageDigestMirrors{{Source: "quay.io/latency", Mirrors: []configv1.ImageMirror{"m0.local/latency"}}}}}
			if _, err := idmss.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
			waitWorkerContains(b, "m0.local/latency", time.Minute)
			const changes = 20
			var latencies []time.Duration
			for i := 1; i <= changes; i++ {
				mirror := fmt.Sprintf("m%d.local/latency", i)
				w := watchWorker(b)
				patch := fmt.Sprintf(`[{"op":"replace","path":"/spec/imageDigestMirrors/0/mirrors/0","value":%q}]`, mirror)
				if _, err := idmss.Patch(ctx, "latency", types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
					b.Fatal(err)
				}
				applied := time.Now()
				waitForWatched(b, w, mirror)
				latencies = append(latencies, time.Since(applied))
				time.Sleep(settle + 200*time.Millisecond) // let the next change start from a quiet controller
			}
			sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
			median, p95 := latencies[len(latencies)/2], latencies[len(latencies)*95/100]
			b.ReportMetric(float64(median.Milliseconds()), "median-ms")
			b.ReportMetric(float64(p95.Milliseconds()), "p95-ms")
			b.ReportMetric(float64((median - settle).Milliseconds()), "median-minus-settle-ms")
			b.Logf("settle %s: %d changes, median %s, p95 %s", settle, changes, median.Round(time.Millisecond), p95.Round(time.Millisecond))
		})
	}
}

// BenchmarkBurstWrites counts the MachineConfig writes per pool when N ImageDigestMirrorSets are applied
// with one `kubectl apply -f dir/`, with the default settle delay.
func BenchmarkBurstWrites(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		b.Run("objects="+strconv.Itoa(n), func(b *testing.B) {
			cp.Reset(b)
			startInProcess(b, cp.RESTConfig, time.Second, 0)
			waitWorkerContains(b, "", time.Minute)
			time.Sleep(1500 * time.Millisecond) // settling before the count starts (a figure, not a claim that nothing happens)
			writes := countWrites(b)
			dir := b.TempDir()
			for i := range n {
				doc := fmt.Sprintf("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: burst-%04d}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/burst/app-%04d\n    mirrors: [mirror.local/burst/app-%04d]\n", i, i, i)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%04d.yaml", i)), []byte(doc), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			if _, stderr, err := cp.Kubectl(context.Background(), nil, "apply", "-f", dir); err != nil {
				b.Fatalf("%v: %s", err, stderr)
			}
			applied := time.Since(start)
			waitWorkerContains(b, fmt.Sprintf("mirror.local/burst/app-%04d", n-1), 2*time.Minute)
			converged := time.Since(start)
			time.Sleep(3 * time.Second) // late writes count into the figure: a measurement's window, not a negative wait
			perPool := float64(writes.get(masterMC)+writes.get(workerMC)) / 2
			b.ReportMetric(perPool, "writes/pool")
			b.ReportMetric(applied.Seconds(), "kubectl-s")
			b.ReportMetric(converged.Seconds(), "converged-s")
			b.Logf("%d objects: kubectl %s, all written after %s, %.1f writes per pool", n, applied.Round(time.Millisecond), converged.Round(time.Millisecond), perPool)
		})
	}
}

// BenchmarkControllerMemory runs the controller binary, as deployed, on a cluster holding 10,000 mirror
// entries and reads its memory from its own /metrics:
//
//   - mirrors=10000: 1,000 sources with 10 mirrors each (10,000 [[registry.mirror]] tables), a registries.conf
//     of about 0.9 MB: near the most one MachineConfig can carry (etcd takes 1.5 MiB per request);
//   - sources=10000: 10,000 sources with 2 mirrors each. Their registries.conf (about 1.9 MB, 2.6 MB as a
//     data URL) does not fit in one request to the API server, for MCO's controller neither: the
//     render finds it over the size budget (render.MaxMachineConfigBytes), writes nothing and reports
//     InvalidMirrorConfiguration on the Image; memory is read a few seconds later.
func BenchmarkControllerMemory(b *testing.B) {
	for _, tc := range []struct {
		name             string
		sources, mirrors int
		fits             bool
	}{
		{"mirrors=10000", 1000, 10, true},
		{"sources=10000", 10000, 2, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cp.Reset(b)
			kubectlApply(b, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
			ctx := context.Background()
			const perObject = 100
			last := ""
			for i := 0; i < tc.sources/perObject; i++ {
				obj := &configv1.ImageDigestMirrorSet{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("mem-%03d", i)}}
				for j := range perObject {
					last = fmt.Sprintf("registry-%03d.example.com/team-%03d", i, j)
					e := configv1.ImageDigestMirrors{Source: last}
					for k := range tc.mirrors {
						e.Mirrors = append(e.Mirrors, configv1.ImageMirror(fmt.Sprintf("m%d.local/r%d/t%d", k, i, j)))
					}
					obj.Spec.ImageDigestMirrors = append(obj.Spec.ImageDigestMirrors, e)
				}
				if _, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			p := startProcess(b, "memory")
			start := time.Now()
			if tc.fits {
				waitWorkerContains(b, last, 3*time.Minute)
			} else {
				framework.Eventually(b, 3*time.Minute, "the size problem reported on the Image", func() (bool, string) {
					var onImage []string
					for _, e := range events(b, "cluster", "InvalidMirrorConfiguration") {
						if e.InvolvedObject.Kind == "Image" && strings.Contains(e.Message, "etcd accepts in one request") {
							onImage = append(onImage, e.Message)
						}
					}
					return len(onImage) == 1, fmt.Sprint(onImage)
				})
				time.Sleep(5 * time.Second) // the work after the report counts into the figures: a measurement's window
			}
			converged := time.Since(start)
			time.Sleep(3 * time.Second) // settling before the figures are read, not a negative wait
			m := scrape(b, p.metrics)
			renderMs := m["registries_controller_render_duration_seconds_sum"] / m["registries_controller_render_duration_seconds_count"] * 1000
			b.ReportMetric(m["process_resident_memory_bytes"]/(1<<20), "rss-MiB")
			b.ReportMetric(m["go_memstats_heap_inuse_bytes"]/(1<<20), "heap-inuse-MiB")
			b.ReportMetric(renderMs, "render-ms")
			b.ReportMetric(converged.Seconds(), "outcome-s")
			b.Logf("%s: RSS %.0f MiB, heap in use %.0f MiB, mean render %.0f ms, written or reported after %s",
				tc.name, m["process_resident_memory_bytes"]/(1<<20), m["go_memstats_heap_inuse_bytes"]/(1<<20), renderMs, converged.Round(time.Millisecond))
		})
	}
}

func watchWorker(b *testing.B) watch.Interface {
	b.Helper()
	w, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Watch(context.Background(), metav1.ListOptions{FieldSelector: "metadata.name=" + workerMC})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return w
}

// waitForWatched waits, for a minute at most, until the watch w delivers a MachineConfig whose registries.conf
// contains substring, and stops w. Unlike a poll, it sees the write as soon as the API server sends it, for the
// latencies the benchmark measures.
func waitForWatched(b *testing.B, w watch.Interface, substring string) {
	b.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case ev := <-w.ResultChan():
			if mc, ok := ev.Object.(*mcfgv1.MachineConfig); ok && strings.Contains(registriesConfOf(b, mc), substring) {
				w.Stop()
				return
			}
		case <-timeout:
			b.Fatalf("no MachineConfig with %q within a minute", substring)
		}
	}
}

// scrape reads the samples without labels of a /metrics page (scrapeAll, the labelled ones left out).
func scrape(b *testing.B, url string) map[string]float64 {
	b.Helper()
	out := scrapeAll(b, url)
	for name := range out {
		if strings.Contains(name, "{") {
			delete(out, name)
		}
	}
	return out
}
