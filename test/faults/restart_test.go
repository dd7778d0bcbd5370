package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// down is how long each outage of kube-apiserver lasts.
const down = 10 * time.Second

// etcdDown is how long etcd's outage lasts: longer than the leader lease's retry period (leaseRetryPeriod), whose
// renewal is the first request of an idle controller to see it (kube-apiserver keeps serving watches from its
// cache); a renewal unanswered after 2 s makes Health probe, and its read times out 2 s later.
const etcdDown = 40 * time.Second

// etcdSeenWithin bounds when /readyz fails after etcd stops: a renewal at most leaseRetryPeriod later, 2 s until
// it counts as slow, 2 s of Health's read, and 2 s of slack for a loaded machine.
const etcdSeenWithin = leaseRetryPeriod + 6*time.Second

func TestTheControllerRidesOutAnAPIServerRestartWithoutRestartingItself(t *testing.T) {
	t.Run("while idle", func(t *testing.T) {
		cp.Reset(t)
		base := idms("restart-base", "m.local")
		create(t, base)
		c := framework.StartTestController(t, "controller", cp.KubeconfigPath)
		waitForFiles(t, 30*time.Second, "the first sync", expected(t, base))
		waitReady(t, c, 10*time.Second)
		_, before := current(t)

		o := breakFor(t, c, down, cp.StopAPIServer, cp.StartAPIServer)
		t.Logf("kube-apiserver down %s: /readyz failed %s after the stop (%q); ready again %s after kube-apiserver was; /healthz failed %d times",
			down, o.notReadyAfter.Round(10*time.Millisecond), o.notReadyWhy, o.readyAfter.Round(10*time.Millisecond), o.healthzFailed)
		assertOutage(t, o, "cannot use the API server")

		after := idms("restart-after", "m.local")
		create(t, after)
		took := waitForFiles(t, time.Minute, "a change made after the restart", expected(t, base, after))
		t.Logf("a change made after the restart was written %s later", took.Round(10*time.Millisecond))
		got, _ := current(t)
		handWrittenMirror(t, got, "restart-base", "m.local")
		handWrittenMirror(t, got, "restart-after", "m.local")
		assertWritesPerPool(t, before, 1)
		assertLoggedOnce(t, c.Log(), "Cannot use the API server", "The API server answers again")
	})

	t.Run("in the middle of a burst", func(t *testing.T) {
		cp.Reset(t)
		c := framework.StartTestController(t, "controller", cp.KubeconfigPath)
		waitForFiles(t, 30*time.Second, "the first sync", expected(t))
		waitReady(t, c, 10*time.Second)
		h := recordHistory(t)
		var objs []*configv1.ImageDigestMirrorSet
		for i := range 100 {
			objs = append(objs, idms(fmt.Sprintf("burst-%03d", i), "m.local"))
		}
		create(t, objs[:50]...)
		o := breakFor(t, c, down, cp.StopAPIServer, cp.StartAPIServer)
		restarted := time.Now().Add(-o.readyAfter)
		create(t, objs[50:]...)
		waitForFiles(t, time.Minute, "all 100 objects", expected(t, objs...))
		t.Logf("kube-apiserver down %s after 50 of 100 creates: /readyz failed %s after the stop; ready %s after the restart; "+
			"the 100 objects were written %s after the restart (the last 50 created after it)",
			down, o.notReadyAfter.Round(10*time.Millisecond), o.readyAfter.Round(10*time.Millisecond), time.Since(restarted).Round(10*time.Millisecond))
		assertOutage(t, o, "cannot use the API server")
		h.assertNoRewrites(t)
		for _, name := range generated {
			t.Logf("%s: %d writes during the burst", name, len(h.of(name))-1)
		}
	})
}

func TestTheControllerRidesOutAnEtcdRestartUnderTheAPIServer(t *testing.T) {
	cp.Reset(t)
	base := idms("etcd-base", "m.local")
	create(t, base)
	c := framework.StartTestController(t, "controller", cp.KubeconfigPath)
	waitForFiles(t, 30*time.Second, "the first sync", expected(t, base))
	waitReady(t, c, 10*time.Second)
	_, before := current(t)

	o := breakFor(t, c, etcdDown, cp.StopEtcd, cp.StartEtcd)
	t.Logf("etcd down %s: /readyz failed %s after the stop (%q); ready again %s after kube-apiserver was; /healthz failed %d times",
		etcdDown, o.notReadyAfter.Round(10*time.Millisecond), o.notReadyWhy, o.readyAfter.Round(10*time.Millisecond), o.healthzFailed)
	if o.notReadyAfter > etcdSeenWithin {
		t.Errorf("/readyz failed %s after etcd stopped, want within %s", o.notReadyAfter.Round(10*time.Millisecond), etcdSeenWithin)
	}
	assertOutage(t, o, "cannot use the API server")

	after := idms("etcd-after", "m.local")
	create(t, after)
	took := waitForFiles(t, time.Minute, "a change made after the restart", expected(t, base, after))
	t.Logf("a change made after the restart was written %s later", took.Round(10*time.Millisecond))
	assertWritesPerPool(t, before, 1)
}

// assertOutage checks what every outage must show: /readyz failed, saying why, and /healthz never did.
func assertOutage(t *testing.T, o outage, why string) {
	t.Helper()
	if o.notReadyAfter < 0 {
		t.Errorf("/readyz never failed during the outage")
	} else if !strings.Contains(o.notReadyWhy, why) {
		t.Errorf("/readyz said %q, want it to say %q", o.notReadyWhy, why)
	}
	if o.healthzFailed > 0 {
		t.Errorf("/healthz failed %d times: the kubelet would restart a controller that only waits", o.healthzFailed)
	}
}

// assertWritesPerPool checks that each generated MachineConfig was written exactly n times since before (its
// generations then): nothing was written twice.
func assertWritesPerPool(t *testing.T, before map[string]int64, n int64) {
	t.Helper()
	_, now := current(t)
	for _, name := range generated {
		if got := now[name] - before[name]; got != n {
			t.Errorf("%s written %d times, want %d", name, got, n)
		}
	}
}

// assertLoggedOnce checks that each line appears exactly once in the log.
func assertLoggedOnce(t *testing.T, log string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if n := strings.Count(log, l); n != 1 {
			t.Errorf("%q logged %d times, want once", l, n)
		}
	}
}
