package controller

import (
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
)

func TestAListThatCannotConnectWaitsForTheAPIServerInsteadOfFailing(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	h := newHealth(healthProbes{}, nil, nil, nil)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	var up atomic.Bool
	var attempts atomic.Int32
	next := roundTripperFunc(func(*http.Request) (*http.Response, error) {
		attempts.Add(1)
		if !up.Load() {
			return nil, refused
		}
		return &http.Response{StatusCode: http.StatusOK}, nil
	})
	rt := waitForAPIServer(h)(next)

	h.record(logger, nil, refused) // Health has seen the outage
	var recovered time.Time
	go func() {
		time.Sleep(500 * time.Millisecond)
		up.Store(true)
		recovered = time.Now()
		h.record(logger, nil, nil)
	}()
	req, _ := http.NewRequest(http.MethodGet, "https://api.example:6443/apis/config.openshift.io/v1/images?watch=true", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a watch through an outage: %v, %v; want it to wait and succeed", resp, err)
	}
	if time.Since(recovered) > 300*time.Millisecond {
		t.Errorf("answered %s after the API server was usable again", time.Since(recovered))
	}
	if n := attempts.Load(); n > 3 {
		t.Errorf("%d attempts during half a second of outage: it must wait for Health, not spin", n)
	}

	up.Store(false)
	post, _ := http.NewRequest(http.MethodPost, "https://api.example:6443/api/v1/namespaces/x/events", http.NoBody)
	if _, err := rt.RoundTrip(post); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a write is retried by the transport: %v; the controller's own retries handle writes", err)
	}
}
