package controller

import (
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"time"
)

// reconnectWait bounds how long a read that cannot connect waits for the API server to come back before it fails.
const reconnectWait = 2 * time.Minute

// reconnectRetryPeriod is the least time between two attempts of one read.
const reconnectRetryPeriod = 200 * time.Millisecond

// waitForAPIServer wraps the transport of the informers: a GET (a list or a watch) that cannot connect to the API
// server waits until Health sees the API server usable again, at least reconnectRetryPeriod and up to
// reconnectWait by Health's clock, and is then sent again.
//
// Without it, each failed attempt of a reflector doubles its retry delay (up to 30 s, with jitter, not settable
// through the informer factories), so the caches, and changes made meanwhile, caught up long after the API server
// was back (docs/reliability.md has the figures of test/faults). With it they catch up as soon as Health's probe,
// which runs every second during an outage, sees the API server again. Only connection failures
// are retried, so a refusing port costs no API server any work; a GET has no body to send again; everything else
// (errors the API server answered, writes) passes through unchanged.
func waitForAPIServer(h *Health) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(req)
			if err == nil || req.Method != http.MethodGet || req.Body != nil && req.Body != http.NoBody || !cannotConnect(err) {
				return resp, err
			}
			deadline := h.clock.NewTimer(reconnectWait)
			defer deadline.Stop()
			for cannotConnect(err) {
				h.Kick() // let Health see the outage now, not at its next period
				retry := h.clock.NewTimer(reconnectRetryPeriod)
				select {
				case <-req.Context().Done():
					retry.Stop()
					return nil, err
				case <-deadline.C():
					retry.Stop()
					return nil, err
				case <-retry.C():
				}
				if !h.waitUsable(req.Context(), deadline.C()) {
					return nil, err
				}
				resp, err = next.RoundTrip(req)
			}
			return resp, err
		})
	}
}

// cannotConnect tells a failure to reach the API server at all from every other error.
func cannotConnect(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// waitUsable waits until the API server is usable (true), ctx is done or deadline fires (false), counted in
// h.waiting meanwhile.
func (h *Health) waitUsable(ctx context.Context, deadline <-chan time.Time) bool {
	h.waiting.Add(1)
	defer h.waiting.Add(-1)
	select {
	case <-ctx.Done():
		return false
	case <-deadline:
		return false
	case <-h.Usable():
		return true
	}
}
