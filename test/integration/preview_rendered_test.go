package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

// renderedLine matches preview's line for one pool's rendered MachineConfig: "  pool worker: 1,304,116 bytes, 82%".
var renderedLine = regexp.MustCompile(`(?m)^  pool (\S+): ([0-9,]+) bytes, (\d+)%$`)

// previewRendered returns the rendered sizes preview printed, by pool.
func previewRendered(t *testing.T, stdout string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range renderedLine.FindAllStringSubmatch(stdout, -1) {
		n, err := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
		if err != nil {
			t.Fatal(err)
		}
		if pct, _ := strconv.Atoi(m[3]); pct != n*100/budgetLimit {
			t.Errorf("pool %s: %d bytes printed as %s%%", m[1], n, m[3])
		}
		out[m[1]] = n
	}
	return out
}

// preview prints each pool's rendered MachineConfig as the controller then measures it before its write, from the
// pools' live rendered MachineConfigs (the simulator's, carrying 00-<pool> and 01-<pool>-padding): past 80% a
// warning, past the limit the events the controller records instead of writing, and exit 1.
func TestPreviewPrintsThePoolsRenderedMachineConfigsAsTheControllerMeasuresThem(t *testing.T) {
	cp.Reset(t)
	mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: simStep, RenderedBytes: renderedBase})
	kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
	r := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}

	// Before any change: the pools' rendered MachineConfigs are the simulator's base, and preview says so.
	var near []runtime.Object
	for first := 0; first < renderedNearSource; first += budgetPerObject {
		near = append(near, budgetObject(fmt.Sprintf("rendered-%02d", first/budgetPerObject), first, budgetPerObject))
	}
	dir := writeManifests(t, near)
	stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", dir)
	if code != 3 {
		t.Fatalf("preview: exit %d, want 3:\n%s%s", code, stdout, stderr)
	}
	predicted := previewRendered(t, stdout)
	for _, pool := range []string{"master", "worker"} {
		if predicted[pool]*100/budgetLimit < 80 || predicted[pool] > budgetLimit {
			t.Errorf("pool %s: preview printed %d bytes, want past 80%% and under the limit:\n%s", pool, predicted[pool], stdout)
		}
		if !strings.Contains(stdout, "warning: the rendered MachineConfig of pool "+pool+" is "+commas(predicted[pool])+" bytes") ||
			!strings.Contains(stdout, "its largest other MachineConfigs: 01-"+pool+"-padding (") {
			t.Errorf("pool %s: no warning naming %d bytes and the padding MachineConfig:\n%s", pool, predicted[pool], stdout)
		}
	}

	// The controller, given the same objects, measures the same. (kubectl applies them one by one, so the controller
	// may write more than once, and measure again when the simulator renders each write: the last measurement is of
	// every object.)
	cp.RunKubectl(t, "apply", "-f", dir)
	waitWorkerContains(t, fixtures.ScaleEntry(renderedNearSource-1, 0, 2).Mirrors[1], 30*time.Second)
	framework.Eventually(t, 30*time.Second, "the controller's measurement of the pools' rendered MachineConfigs equal to preview's", func() (bool, string) {
		var seen []string
		for _, pool := range []string{"master", "worker"} {
			got := int(r.counter(t, "registries_controller_rendered_machineconfig_bytes", map[string]string{"pool": pool}))
			if got != predicted[pool] {
				seen = append(seen, fmt.Sprintf("pool %s: preview predicted %d bytes, the controller measured %d", pool, predicted[pool], got))
			}
		}
		return len(seen) == 0, strings.Join(seen, "; ")
	})
	// The oracle both are held to: what the render controller then stored. The simulator renders each pool from the
	// MachineConfigs written; its newest rendered MachineConfig (spec.configuration.name), read back and encoded
	// without what the API server adds, is as long as preview predicted.
	framework.Eventually(t, 60*time.Second, "each pool's newest rendered MachineConfig as long as preview predicted", func() (bool, string) {
		var seen []string
		for _, pool := range []string{"master", "worker"} {
			if got := storedRenderedBytes(t, pool); got != predicted[pool] {
				seen = append(seen, fmt.Sprintf("pool %s: preview predicted %d bytes, the stored rendered MachineConfig is %d", pool, predicted[pool], got))
			}
		}
		return len(seen) == 0, strings.Join(seen, "; ")
	})

	// 600 more sources: past the limit. The controller would write nothing; preview says so, with its events.
	over := writeManifests(t, []runtime.Object{budgetObject("rendered-large", renderedNearSource, renderedOverSource)})
	stdout, stderr, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", over)
	if code != 1 {
		t.Fatalf("preview over the limit: exit %d, want 1:\n%s%s", code, stdout, stderr)
	}
	sizes := previewRendered(t, stdout)
	for _, want := range []string{"invalid: the controller would apply nothing, and every MachineConfig would keep its last good content",
		`Image "cluster": Warning InvalidMirrorConfiguration: `,
		"with this configuration the rendered MachineConfig of pools master, worker is over the 1,572,864 bytes",
		"pool worker would be " + commas(sizes["worker"]) + " bytes"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("preview over the limit lacks %q:\n%s", want, stdout)
		}
	}
	if sizes["worker"] <= budgetLimit || strings.Contains(stdout, "the controller would write") {
		t.Errorf("preview over the limit: worker %d bytes, or a write announced:\n%s", sizes["worker"], stdout)
	}
}

// storedRenderedBytes returns the length of the JSON of pool's newest rendered MachineConfig as the API server
// holds it, without the fields the API server adds (uid, resourceVersion, generation, creationTimestamp, managed
// fields): the figure the render controller measures against its limit; 0 while the pool has none.
func storedRenderedBytes(t *testing.T, pool string) int {
	t.Helper()
	ctx := context.Background()
	p, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.Configuration.Name == "" {
		return 0
	}
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(ctx, p.Spec.Configuration.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc.APIVersion, mc.Kind = "machineconfiguration.openshift.io/v1", "MachineConfig"
	mc.UID, mc.ResourceVersion, mc.Generation, mc.CreationTimestamp, mc.ManagedFields = "", "", 0, metav1.Time{}, nil
	data, err := json.Marshal(mc)
	if err != nil {
		t.Fatal(err)
	}
	return len(data)
}
