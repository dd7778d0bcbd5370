package faults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/test/framework"
)

// The leader is killed (SIGKILL, lease not released) while `kubectl apply` creates 100 objects; the follower
// takes over when the 4 s lease expires and ends with exactly what one uninterrupted run renders.
func TestTheSuccessorOfALeaderKilledDuringABurstEndsWhereAnUninterruptedRunWould(t *testing.T) {
	cp.Reset(t)
	fast := []string{"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms"}
	a := framework.StartTestController(t, "a", cp.KubeconfigPath, fast...)
	waitForFiles(t, 30*time.Second, "the first sync", expected(t))
	b := framework.StartTestController(t, "b", cp.KubeconfigPath, fast...)
	waitReady(t, b, 30*time.Second)
	leader, follower := a, b
	if leaderSyncs(b) > 0 {
		leader, follower = b, a
	}

	dir := t.TempDir()
	var objs []*configv1.ImageDigestMirrorSet
	for i := range 100 {
		o := idms(fmt.Sprintf("failover-%03d", i), "m.local")
		o.APIVersion, o.Kind = "config.openshift.io/v1", "ImageDigestMirrorSet"
		data, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, o.Name+".yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	apply := exec.Command(cp.KubectlPath, "--kubeconfig", cp.KubeconfigPath, "apply", "-f", dir)
	out, err := os.Create(filepath.Join(t.TempDir(), "kubectl.log"))
	if err != nil {
		t.Fatal(err)
	}
	apply.Stdout, apply.Stderr = out, out
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	var atKill int
	framework.Eventually(t, 30*time.Second, "kubectl to be a third of the way", func() (bool, string) {
		list, err := cp.Config.ConfigV1().ImageDigestMirrorSets().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		atKill = len(list.Items)
		return atKill >= 30, fmt.Sprint(atKill)
	})
	leader.Kill()
	killed := time.Now()
	if err := apply.Wait(); err != nil {
		b, _ := os.ReadFile(out.Name())
		t.Fatalf("kubectl apply: %v: %s", err, b)
	}
	applied := time.Since(killed)
	took := waitForFiles(t, time.Minute, "the successor to write all 100 objects", expected(t, objs...))
	t.Logf("leader killed with %d of 100 objects created; kubectl finished %s later; the successor wrote the final "+
		"MachineConfigs %s after the kill (lease 4s)", atKill, applied.Round(10*time.Millisecond), time.Since(killed).Round(10*time.Millisecond))
	_ = took
	// The follower's /metrics is read until it answers: under load one read can fail (-1) while the successor is
	// busy; a follower that never synced still fails here after the window.
	framework.Eventually(t, 15*time.Second, "the follower's syncs (registries_controller_syncs_total > 0)", func() (bool, string) {
		n := leaderSyncs(follower)
		return n > 0, fmt.Sprint(n)
	})
}

// leaderSyncs returns how many syncs a process ran: only the leader syncs.
func leaderSyncs(c *framework.Controller) float64 {
	return c.Metric("registries_controller_syncs_total", nil)
}
