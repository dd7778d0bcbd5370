package controller

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/test/framework"
)

// roundTrip runs a GET through rt in the background and returns where its answer arrives.
func roundTrip(rt http.RoundTripper) <-chan error {
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "https://api.example:6443/apis/config.openshift.io/v1/images?watch=true", nil)
		resp, err := rt.RoundTrip(req)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = errors.New(resp.Status)
		}
		done <- err
	}()
	return done
}

// waitForTimer waits until the transport waits on the fake clock.
func waitForTimer(t *testing.T, clk *clocktesting.FakeClock) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !clk.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatal("the transport never waited on the clock")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestAListThatCannotConnectWaitsForTheAPIServerInsteadOfFailing(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	h := newHealth(healthProbes{}, nil, nil, clk)
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

	done := roundTrip(rt)
	waitForTimer(t, clk)
	clk.Step(reconnectRetryPeriod) // the least wait between attempts is over; the API server is still unusable
	// The read must now be parked waiting for Health, with the one attempt it made: a read that tried again
	// without waiting for Health would never be counted as waiting, or would have made a second attempt.
	framework.Eventually(t, 10*time.Second, "the read to wait for Health after the least wait between attempts", func() (bool, string) {
		select {
		case err := <-done:
			t.Fatalf("the watch gave up during the outage: %v", err)
		default:
		}
		return h.waiting.Load() == 1, fmt.Sprintf("%d reads waiting, %d attempts", h.waiting.Load(), attempts.Load())
	})
	if n := attempts.Load(); n != 1 {
		t.Fatalf("%d attempts while Health says the API server cannot be used: it must wait for Health, not spin", n)
	}
	select {
	case err := <-done:
		t.Fatalf("the watch gave up during the outage: %v", err)
	default:
	}
	up.Store(true)
	h.record(logger, nil, nil) // Health sees it back
	if err := <-done; err != nil {
		t.Fatalf("a watch through an outage: %v; want it to wait and succeed", err)
	}
	if n := h.waiting.Load(); n != 0 {
		t.Errorf("%d reads still counted as waiting after the API server came back", n)
	}
	if n := attempts.Load(); n != 2 {
		t.Errorf("%d attempts, want the first and one once usable", n)
	}

	// A write is never retried by the transport: the controller's own retries handle writes.
	up.Store(false)
	post, _ := http.NewRequest(http.MethodPost, "https://api.example:6443/api/v1/namespaces/x/events", http.NoBody)
	if _, err := rt.RoundTrip(post); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a write is retried by the transport: %v", err)
	}
}

func TestAListGivesUpAfterTheLongestWait(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	clk := clocktesting.NewFakeClock(time.Unix(1000, 0))
	h := newHealth(healthProbes{}, nil, nil, clk)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	rt := waitForAPIServer(h)(roundTripperFunc(func(*http.Request) (*http.Response, error) { return nil, refused }))
	h.record(logger, nil, refused)

	done := roundTrip(rt)
	waitForTimer(t, clk)
	clk.Step(reconnectWait)
	select {
	case err := <-done:
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("after the longest wait: %v, want the connection error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting after reconnectWait by the clock")
	}
}
