package integration

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// The size budget against the real API server (etcd with its default 1.5 MiB request limit), with pools that select
// no other MachineConfig, so that this project's own MachineConfig is what reaches the limit: 3,168 distinct sources
// with two mirrors each fit in it (as pkg/render's BenchmarkLargestInputThatFits found before it measured a real
// pool's rendered MachineConfig, docs/benchmarks.md); 2,800 are about 88% of the budget, 3,400 about 106%.
const (
	budgetLimit      = 1572864 // bytes, etcd's default request limit
	budgetNear       = 2800    // sources in 14 objects of 200
	budgetPerObject  = 200
	budgetOverSource = 600 // sources of the one object that takes the input over the budget
)

// budgetObject returns an ImageDigestMirrorSet of the sources from first on, two mirrors each.
func budgetObject(name string, first, n int) *configv1.ImageDigestMirrorSet {
	entries := make([]fixtures.MirrorEntry, n)
	for i := range n {
		entries[i] = fixtures.ScaleEntry(first+i, 0, 2)
	}
	return fixtures.IDMS(name, entries...)
}

// bytesIn matches the figures of the size messages: "is 1,383,402 bytes" and "of up to 1,650,118 bytes".
var bytesIn = regexp.MustCompile(`(?:is|up to) ([0-9,]+) bytes`)

func figure(t *testing.T, message string) int {
	t.Helper()
	m := bytesIn.FindStringSubmatch(message)
	if m == nil {
		t.Fatalf("no figure in %q", message)
	}
	n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// imageEvents returns the events of reason recorded on the Image "cluster".
func imageEvents(t *testing.T, reason string) []corev1.Event {
	t.Helper()
	var out []corev1.Event
	for _, e := range events(t, "cluster", reason) {
		if e.InvolvedObject.Kind == "Image" {
			out = append(out, e)
		}
	}
	return out
}

// startBudgetController applies the Image "cluster", on which the budget's warnings and refusals are recorded,
// starts the controller in process and waits for its first worker MachineConfig.
func startBudgetController(t *testing.T) *running {
	t.Helper()
	kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
	r := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitWorkerContains(t, "", 30*time.Second)
	return r
}

// applyBudgetSources applies the sources from 0 to n (a multiple of budgetPerObject) in ImageDigestMirrorSets of
// budgetPerObject sources named prefix-00, prefix-01, …, in one kubectl apply, and waits until the worker
// MachineConfig holds the last source's mirror, which it returns.
func applyBudgetSources(t *testing.T, prefix string, n int) string {
	t.Helper()
	var objs []runtime.Object
	for first := 0; first < n; first += budgetPerObject {
		objs = append(objs, budgetObject(fmt.Sprintf("%s-%02d", prefix, first/budgetPerObject), first, budgetPerObject))
	}
	cp.RunKubectl(t, "apply", "-f", writeManifests(t, objs))
	last := fixtures.ScaleEntry(n-1, 0, 2).Mirrors[1]
	waitWorkerContains(t, last, 30*time.Second)
	return last
}

// budgetBaseline is what the master and worker MachineConfigs were before an input over a budget: their
// resourceVersions, and the writes since.
type budgetBaseline struct {
	versions map[string]string
	writes   *writeCounter
}

func takeBudgetBaseline(t *testing.T) *budgetBaseline {
	t.Helper()
	b := &budgetBaseline{versions: map[string]string{}}
	for _, name := range []string{masterMC, workerMC} {
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b.versions[name] = mc.ResourceVersion
	}
	b.writes = countWrites(t)
	return b
}

// checkUnchanged checks that nothing is written for a second after a sync of r (framework.Quiet, what naming the
// write), and that the MachineConfigs keep their resourceVersions and content: without refused's first source, and
// with kept when it is not empty.
func (b *budgetBaseline) checkUnchanged(t *testing.T, r *running, what string, refused *configv1.ImageDigestMirrorSet, kept string) {
	t.Helper()
	framework.Quiet(t, time.Second, what, r.pokedSync(t), func() (bool, string) {
		n := b.writes.get(masterMC) + b.writes.get(workerMC)
		return n != 0, fmt.Sprintf("%d writes", n)
	})
	for name, version := range b.versions {
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conf := registriesConfOf(t, mc)
		holdsRefused, keeps := strings.Contains(conf, refused.Spec.ImageDigestMirrors[0].Source), strings.Contains(conf, kept)
		if mc.ResourceVersion != version || holdsRefused || !keeps {
			t.Errorf("%s: resourceVersion %s (was %s); holds the refused object: %v; the last good content kept: %v", name, mc.ResourceVersion, version, holdsRefused, keeps)
		}
	}
}

func TestTheSizeBudgetWarnsAt80PercentAndWritesNothingOverTheLimit(t *testing.T) {
	cp.Reset(t)
	r := startBudgetController(t)
	size := func(pool string) int {
		return int(r.counter(t, "registries_controller_machineconfig_bytes", map[string]string{"pool": pool, "output": "registries"}))
	}

	// 2,800 sources: about 88% of the budget. Written, with a Warning on the Image and the figure in the metric.
	lastNear := applyBudgetSources(t, "budget", budgetNear)
	// kubectl applies the objects one by one, so a render of some of them may already have crossed 80% and warned:
	// the warning looked for is the one of the final MachineConfig, whose size the metric holds.
	var warning corev1.Event
	framework.Eventually(t, 10*time.Second, "a MachineConfigNearSizeLimit Warning on the Image for the worker pool's final size", func() (bool, string) {
		final := size("worker")
		seen := []string{fmt.Sprintf("the metric says %d bytes", final)}
		for _, e := range imageEvents(t, reasons.MachineConfigNearSizeLimit) {
			seen = append(seen, e.Message)
			if strings.HasPrefix(e.Message, "99-worker-generated-registries is ") && figure(t, e.Message) == final {
				warning = e
				return true, ""
			}
		}
		return false, strings.Join(seen, " | ")
	})
	nearBytes := figure(t, warning.Message)
	pct := nearBytes * 100 / budgetLimit
	if warning.Type != corev1.EventTypeWarning || pct < 80 || pct >= 100 ||
		warning.Message != fmt.Sprintf("99-worker-generated-registries is %s bytes, %d%% of the 1,572,864 bytes (1.5 MiB) etcd accepts in one request: "+
			"a few more mirror entries and it can no longer be written", commas(nearBytes), pct) {
		t.Errorf("the warning: %s %q", warning.Type, warning.Message)
	}
	if got := size("worker"); got != nearBytes || size("master") != nearBytes {
		t.Errorf("registries_controller_machineconfig_bytes: worker %d, master %d; the warning says %d", got, size("master"), nearBytes)
	}
	// The figure is the MachineConfig the API server holds, give or take the metadata the server adds.
	written, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if raw := len(written.Spec.Config.Raw); raw > nearBytes || nearBytes-raw > 2048 {
		t.Errorf("the warning says %d bytes; the written MachineConfig's config alone is %d", nearBytes, raw)
	}
	good := takeBudgetBaseline(t)

	// 600 more sources in one object: about 106%. Nothing is written; the Image and the ten largest contributors say
	// why, with the figure and the limit.
	large := budgetObject("budget-large", budgetNear, budgetOverSource)
	apply(t, large)
	var invalid corev1.Event
	framework.Eventually(t, 20*time.Second, "an InvalidMirrorConfiguration Warning on the Image", func() (bool, string) {
		evs := imageEvents(t, reasons.InvalidMirrorConfiguration)
		if len(evs) != 1 {
			return false, fmt.Sprint(len(evs), " events")
		}
		invalid = evs[0]
		return true, ""
	})
	overBytes := figure(t, invalid.Message)
	if overBytes <= budgetLimit || overBytes*100/budgetLimit > 110 ||
		!strings.Contains(invalid.Message, `"99-master-generated-registries, 99-worker-generated-registries": the mirror configuration renders MachineConfigs of up to `+
			commas(overBytes)+` bytes, more than the 1,572,864 bytes (1.5 MiB) etcd accepts in one request: they cannot be written, and every MachineConfig keeps its last good content`) {
		t.Errorf("the Image's event: %q", invalid.Message)
	}
	if got := size("worker"); got != overBytes {
		t.Errorf("registries_controller_machineconfig_bytes{pool=worker} %d, the event says %d", got, overBytes)
	}
	var contributors []string
	framework.Eventually(t, 10*time.Second, "InvalidMirrorConfiguration on the ten largest contributors", func() (bool, string) {
		contributors = nil
		list, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{FieldSelector: "reason=" + reasons.InvalidMirrorConfiguration})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list.Items {
			if e.InvolvedObject.Kind != "ImageDigestMirrorSet" {
				continue
			}
			contributors = append(contributors, e.InvolvedObject.Name)
			if !strings.Contains(e.Message, " bytes to MachineConfigs of up to "+commas(overBytes)+" bytes, more than the 1,572,864 bytes (1.5 MiB) etcd accepts in one request") ||
				!strings.Contains(e.Message, "contributes about ") {
				t.Errorf("%s: %q", e.InvolvedObject.Name, e.Message)
			}
			// The largest object brings three times what the others do: about a fifth of the whole.
			if e.InvolvedObject.Name == "budget-large" {
				if b := figure(t, strings.Replace(e.Message, "contributes about", "is", 1)); b < overBytes/8 || b > overBytes/3 {
					t.Errorf("budget-large contributes %d bytes of %d", b, overBytes)
				}
			}
		}
		return len(contributors) == 10, strings.Join(contributors, ", ")
	})
	if !strings.Contains(strings.Join(contributors, ","), "budget-large") {
		t.Errorf("the largest contributor is not named: %v", contributors)
	}
	good.checkUnchanged(t, r, "a MachineConfig write over the limit", large, lastNear)
}

// waitWorkerContains waits until the worker MachineConfig's registries.conf contains substring.
func waitWorkerContains(t testing.TB, substring string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, fmt.Sprintf("the worker MachineConfig with %q", substring), func() (bool, string) {
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(registriesConfOf(t, mc), substring), "not yet"
	})
}

// commas writes n with thousands separators, as the size messages do: 1572864 as "1,572,864".
func commas(n int) string {
	s := strconv.Itoa(n)
	var out []string
	for len(s) > 3 {
		out = append([]string{s[len(s)-3:]}, out...)
		s = s[:len(s)-3]
	}
	return strings.Join(append([]string{s}, out...), ",")
}
