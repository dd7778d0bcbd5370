package faults

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/framework"
)

const (
	stormEvery = 100 * time.Millisecond
	stormFor   = 30 * time.Second
	// stormWriter is the field manager of the other writer, which the controller's Warning must name.
	stormWriter = "storm-writer"
)

// Another writer rewrites the worker's generated MachineConfig every 100ms for 30 s. The controller must keep
// putting its content back, but not as fast as the other writer goes (each revert rolls the pool's nodes): the
// wait between reverts doubles from 1 s. Its requests are counted by a proxy in front of kube-apiserver.
func TestAnotherWriterRewritingAGeneratedMachineConfigIsRevertedWithAGrowingBackoff(t *testing.T) {
	cp.Reset(t)
	proxy, err := cp.StartProxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	base := idms("storm", "m.local")
	create(t, base)
	want := expected(t, base)
	framework.StartTestController(t, "controller", proxy.KubeconfigPath)
	waitForFiles(t, 30*time.Second, "the first sync", want)
	time.Sleep(time.Second) // settling, not a negative wait: the start's requests are not counted as the storm's

	startCount := len(proxy.Requests())
	start := time.Now()
	otherWrites := storm(t, workerMC, stormFor, stormEvery)
	stormEnd := time.Now()
	during := proxy.Requests()[startCount:]
	took := waitForFiles(t, 45*time.Second, "the controller's content back after the storm", want)
	t.Logf("the content was back %s after the storm ended", took.Round(10*time.Millisecond))

	var reverts []time.Time
	verbs := map[string]int{}
	for _, r := range during {
		if r.Time.After(stormEnd) {
			break
		}
		verbs[r.Verb+" "+r.Resource]++
		if r.Resource == "machineconfigs" && r.Verb == "update" && r.Code == http.StatusOK { // not the conflicts retried
			reverts = append(reverts, r.Time)
		}
	}
	total := 0
	for _, n := range verbs {
		total += n
	}
	seconds := stormEnd.Sub(start).Seconds()
	t.Logf("storm: %d writes by the other writer in %.1fs; the controller sent %d requests (%.2f/s): %v", otherWrites, seconds, total, float64(total)/seconds, verbs)
	var gaps []string
	for i := 1; i < len(reverts); i++ {
		gap := reverts[i].Sub(reverts[i-1])
		gaps = append(gaps, gap.Round(10*time.Millisecond).String())
		// The i-th wait is 2^(i-1) s; it is measured from the previous revert, so it is never shorter.
		if min := time.Duration(1<<(i-1))*time.Second - 50*time.Millisecond; gap < min {
			t.Errorf("revert %d came %s after the one before, want at least %s", i+1, gap, min)
		}
	}
	t.Logf("%d reverts during the storm, %s apart", len(reverts), strings.Join(gaps, ", "))
	// 30 s of fighting allow reverts at 0, 1, 3, 7, 15 and 31 s: 5, and one more for timing.
	if len(reverts) < 3 || len(reverts) > 6 {
		t.Errorf("%d reverts in %s, want 3 to 6", len(reverts), stormFor)
	}
	if rate := float64(total) / seconds; rate > 2 {
		t.Errorf("%.2f requests/s during the storm, want at most 2", rate)
	}
	events, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + workerMC + ",reason=MachineConfigOverwritten",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) == 0 || !strings.Contains(events.Items[0].Message, `field manager "`+stormWriter+`"`) {
		t.Errorf("no Warning MachineConfigOverwritten naming the other writer: %+v", events.Items)
	}
}

// storm rewrites the registries.conf of the MachineConfig name every interval for d, as field manager
// stormWriter, and returns how many writes succeeded.
func storm(t *testing.T, name string, d, interval time.Duration) int {
	t.Helper()
	mcs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()
	ok := 0
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for i := 0; ; i++ {
		<-tick.C
		if i >= int(d/interval) {
			return ok
		}
		mc, err := mcs.Get(context.Background(), name, metavGet)
		if err != nil {
			continue
		}
		content := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "# the other writer's version %d\n", i))
		raw := fmt.Sprintf(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/containers/registries.conf",`+
			`"overwrite":true,"mode":420,"contents":{"source":"data:text/plain;charset=utf-8;base64,%s"}}]}}`, content)
		mc.Spec.Config.Raw = []byte(raw)
		if _, err := mcs.Update(context.Background(), mc, metav1.UpdateOptions{FieldManager: stormWriter}); err == nil {
			ok++
		}
	}
}
