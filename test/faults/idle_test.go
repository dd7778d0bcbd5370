package faults

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// Timings of the idle controller (pkg/controller/health.go and the leader election's defaults of `start`).
const (
	// idleWindow is how long the idle controller is watched.
	idleWindow = 2 * time.Minute
	// healthReadPeriod is Health's period while all is well: one storage read.
	healthReadPeriod = time.Minute
	// leaseRetryPeriod is `start`'s --leader-elect-retry-period default: one lease renewal.
	leaseRetryPeriod = 26 * time.Second
	// idleSettle is how long after the controller is ready the test waits before it counts: the first sync
	// writes the ClusterOperator.
	idleSettle = 3 * time.Second
	// startDiscoveries is how many discoveries a start may ask (3 group versions each): the first probe's, and one
	// more when a CRD's first list comes while it runs (Health.CRDListed). The CRD watches' first lists used to
	// count as CRD events, and asked every second for 10 s.
	startDiscoveries = 2
)

// Idle, the controller sends the leader lease's renewals and one storage read a minute, nothing else: a CRD
// installed or removed, the ClusterOperator changed by another writer and the inputs arrive through watches, so
// there is no discovery and no periodic read of the ClusterOperator (issue 23: at most 20 requests in 5 idle
// minutes). Its requests are counted by a proxy in front of kube-apiserver; watches are not requests here.
func TestAnIdleControllerSendsOnlyLeaseRenewalsAndAReadAMinute(t *testing.T) {
	cp.Reset(t)
	proxy, err := cp.StartProxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	base := idms("idle", "m.local")
	create(t, base)
	c := framework.StartTestController(t, "controller", proxy.KubeconfigPath)
	waitForFiles(t, 30*time.Second, "the first sync", expected(t, base))
	waitReady(t, c, 10*time.Second)
	time.Sleep(idleSettle)

	startCount := len(proxy.Requests())
	start := time.Now()
	// A round of discovery asks each group version once: a start's rounds are the most any one was asked.
	perGroupVersion := map[string]int{}
	rounds := 0
	for _, r := range proxy.Requests()[:startCount] {
		if r.Verb == "get" && r.Resource == "" && strings.HasPrefix(r.Path, "/apis/") {
			perGroupVersion[r.Path]++
			rounds = max(rounds, perGroupVersion[r.Path])
		}
	}
	t.Logf("the start asked discovery %d times: %v", rounds, perGroupVersion)
	if rounds > startDiscoveries {
		t.Errorf("the start asked discovery %d times: %v; want at most %d", rounds, perGroupVersion, startDiscoveries)
	}
	var mu sync.Mutex
	var counted idleRequests
	count := func() idleRequests {
		mu.Lock()
		defer mu.Unlock()
		counted = countIdle(proxy.Requests()[startCount:])
		return counted
	}
	renewals := framework.Witness{What: "lease renewals answered", Need: math.Floor(idleWindow.Seconds() / leaseRetryPeriod.Seconds()),
		Count: func() float64 { return float64(count().renewals) }}
	framework.Quiet(t, idleWindow, "a request beyond the lease's renewals and one storage read a minute", renewals, func() (bool, string) {
		got := count()
		elapsed := time.Since(start)
		maxReads := int(elapsed/healthReadPeriod) + 1
		maxLease := 2 * (int(elapsed/leaseRetryPeriod) + 1) // a renewal is an update, or a get and an update
		switch {
		case len(got.others) > 0:
			return true, "other requests: " + strings.Join(got.others, ", ")
		case got.reads > maxReads:
			return true, fmt.Sprintf("%d storage reads in %s, want at most %d", got.reads, elapsed.Round(time.Second), maxReads)
		case got.lease > maxLease:
			return true, fmt.Sprintf("%d lease requests in %s, want at most %d", got.lease, elapsed.Round(time.Second), maxLease)
		}
		return false, fmt.Sprintf("%+v", got)
	})
	elapsed := time.Since(start)
	got := count()
	total := got.reads + got.lease
	perFive := float64(total) * (5 * time.Minute).Seconds() / elapsed.Seconds()
	t.Logf("idle for %s: %d requests (%d storage reads, %d lease requests, of which %d renewals answered), %.1f per 5 minutes",
		elapsed.Round(time.Second), total, got.reads, got.lease, got.renewals, perFive)
	if perFive > 20 {
		t.Errorf("%.1f requests per 5 idle minutes, want at most 20", perFive)
	}
}

// idleRequests sorts the requests of an idle controller: its storage reads (a list of at most one MachineConfig),
// its lease requests, and the others, which an idle controller must not send. Watches are left out.
type idleRequests struct {
	reads, lease, renewals int
	others                 []string
}

func countIdle(requests []framework.Request) idleRequests {
	var out idleRequests
	for _, r := range requests {
		switch {
		case r.Verb == "watch":
		case r.Verb == "list" && r.Resource == "machineconfigs" && strings.Contains(r.RawQuery, "limit=1"):
			out.reads++
		case r.Resource == "leases":
			out.lease++
			if r.Verb == "update" && r.Code == 200 {
				out.renewals++
			}
		default:
			out.others = append(out.others, r.Verb+" "+r.Resource+" "+r.Path+"?"+r.RawQuery)
		}
	}
	sort.Strings(out.others)
	return out
}
