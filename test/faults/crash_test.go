package faults

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// The controller writes one MachineConfig per pool, each in one request. Killed between two of them, it leaves
// one pool on the new content and the other on the old: each MachineConfig whole, never a mix of two renders,
// and the next process completes the change. The window is made exact by the proxy, which holds the second write
// back until the process is dead, as a stuck API server would; no hook in the binary is needed.
func TestAControllerKilledBetweenItsTwoPoolWritesLeavesEachMachineConfigWholeAndTheNextOneCompletes(t *testing.T) {
	cp.Reset(t)
	proxy, err := cp.StartProxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	v1 := idms("crash", "old.local")
	create(t, v1)
	old := expected(t, v1)
	c := framework.StartTestController(t, "first", proxy.KubeconfigPath, "--leader-elect=false")
	waitForFiles(t, 30*time.Second, "the first sync", old)
	h := recordHistory(t)

	writes := 0
	started := time.Now()
	held := proxy.Hold(func(r framework.Request) bool {
		if r.Resource != "machineconfigs" || (r.Verb != "update" && r.Verb != "create") {
			return false
		}
		writes++
		return writes == 2
	})
	v2 := idms("crash", "new.local")
	updated, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Get(t.Context(), "crash", metavGet)
	if err != nil {
		t.Fatal(err)
	}
	updated.Spec = v2.Spec
	if _, err := cp.Config.ConfigV1().ImageDigestMirrorSets().Update(t.Context(), updated, metavUpdate); err != nil {
		t.Fatal(err)
	}
	want := expected(t, v2)
	select {
	case <-held.Arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the second write never came")
	}
	heldName := held.Request.Name
	// The controller writes pools concurrently, so the first write may still be on its way when the second
	// arrives: the kill falls between the two writes only once kube-apiserver has answered the first.
	answered := func() bool {
		for _, r := range proxy.Requests() {
			if r.Resource == "machineconfigs" && (r.Verb == "update" || r.Verb == "create") && !r.Held && r.Name != heldName && r.Time.After(started) {
				return r.Code != 0
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second)
	for !answered() {
		if time.Now().After(deadline) {
			t.Fatal("the first write was never answered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Kill()
	<-held.Done()
	t.Logf("killed with the write of %s held back", heldName)

	// One pool has the new content, the one whose write was held the old.
	got, before := current(t)
	for _, name := range generated {
		wantNow := want[name]
		if name == heldName {
			wantNow = old[name]
		}
		if !maps.Equal(got[name], wantNow) {
			t.Fatalf("after the kill, %s holds neither the expected old nor new files:\n%v", name, got[name])
		}
	}

	second := framework.StartTestController(t, "second", cp.KubeconfigPath, "--leader-elect=false")
	took := waitForFiles(t, 30*time.Second, "the next process to complete the change", want)
	t.Logf("the next process completed the change %s after it started", took.Round(10*time.Millisecond))
	_, after := current(t)
	for _, name := range generated {
		wantWrites := int64(0)
		if name == heldName {
			wantWrites = 1
		}
		if n := after[name] - before[name]; n != wantWrites {
			t.Errorf("the next process wrote %s %d times, want %d", name, n, wantWrites)
		}
	}

	// Every version any watcher saw was one whole render: the old or the new, never a mix.
	for _, name := range generated {
		for _, v := range h.of(name) {
			if !maps.Equal(v.files, old[name]) && !maps.Equal(v.files, want[name]) {
				t.Errorf("%s generation %d is neither the old nor the new render:\n%v", name, v.generation, v.files)
			}
		}
	}
	if strings.Contains(second.Log(), "panic") {
		t.Errorf("the next process panicked")
	}
}
