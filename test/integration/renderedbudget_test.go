package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

// The rendered budget (docs/semantics.md §3.6) against the real API server, with pools whose other MachineConfigs
// (the simulator's 00-<pool> and 01-<pool>-padding) already make a rendered MachineConfig of renderedBase bytes: a
// burst of 1,000 sources takes the pools' rendered MachineConfigs past 80%, 600 more past the limit, while this
// project's own MachineConfig stays at about half of etcd's 1.5 MiB.
const (
	renderedBase       = 900000
	renderedNearSource = 1000
	renderedOverSource = 600
)

func TestABurstThatTakesThePoolsRenderedMachineConfigOverTheLimitWritesNothing(t *testing.T) {
	cp.Reset(t)
	mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: simStep, RenderedBytes: renderedBase})
	r := startBudgetController(t)
	rendered := func(pool string) int {
		return int(r.counter(t, "registries_controller_rendered_machineconfig_bytes", map[string]string{"pool": pool}))
	}
	own := func(pool string) int {
		return int(r.counter(t, "registries_controller_machineconfig_bytes", map[string]string{"pool": pool, "output": "registries"}))
	}

	// 1,000 sources: the rendered MachineConfigs past 80%, ours at about a third of etcd's limit. Written, with a
	// Warning on the Image naming the pool and its other MachineConfigs.
	applyBudgetSources(t, "rendered", renderedNearSource)
	framework.Eventually(t, 20*time.Second, "a MachineConfigNearSizeLimit Warning on the Image for the worker pool's rendered MachineConfig", func() (bool, string) {
		final := rendered("worker")
		seen := []string{fmt.Sprintf("the metric says %d bytes", final)}
		for _, e := range imageEvents(t, reasons.MachineConfigNearSizeLimit) {
			seen = append(seen, e.Message)
			if strings.HasPrefix(e.Message, "the rendered MachineConfig of pool worker is "+commas(final)+" bytes") &&
				strings.Contains(e.Message, "its largest other MachineConfigs: 01-worker-padding (") && e.Type == corev1.EventTypeWarning {
				return true, ""
			}
		}
		return false, strings.Join(seen, " | ")
	})
	if got := rendered("worker"); got*100/budgetLimit < 80 || got > budgetLimit || own("worker")*100/budgetLimit > 45 {
		t.Errorf("rendered MachineConfig of worker %d bytes, ours %d: want the rendered one past 80%% and ours far below the limit", got, own("worker"))
	}
	good := takeBudgetBaseline(t)

	// 600 more sources: the rendered MachineConfigs past the limit, ours still about half of it. Nothing is written,
	// and the Image says why.
	large := budgetObject("rendered-large", renderedNearSource, renderedOverSource)
	apply(t, large)
	framework.Eventually(t, 20*time.Second, "an InvalidMirrorConfiguration Warning on the Image naming the pools' rendered MachineConfigs", func() (bool, string) {
		var seen []string
		for _, e := range imageEvents(t, reasons.InvalidMirrorConfiguration) {
			seen = append(seen, e.Message)
			if strings.Contains(e.Message, "the rendered MachineConfig of pools master, worker is over the 1,572,864 bytes (1.5 MiB) the machine-config-operator accepts") &&
				strings.Contains(e.Message, "pool worker would be ") {
				return true, ""
			}
		}
		return false, strings.Join(seen, " | ")
	})
	if got := rendered("worker"); got <= budgetLimit || own("worker")*100/budgetLimit > 60 {
		t.Errorf("rendered MachineConfig of worker %d bytes, ours %d: want the rendered one over the limit and ours far below it", got, own("worker"))
	}
	// The unchanged resourceVersions say the content is kept: no text to look for ("").
	good.checkUnchanged(t, r, "a MachineConfig write over the rendered limit", large, "")
}
