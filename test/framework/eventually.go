package framework

import (
	"testing"
	"time"
)

// eventuallyInterval is how often Eventually checks its condition.
const eventuallyInterval = 50 * time.Millisecond

// Eventually checks cond every 50ms until it holds, and fails the test (t.Fatalf) once timeout has passed without
// it holding, naming what it waited for and what cond last saw. cond returns whether it holds and a description of
// what it saw. cond is always checked once more after the timeout has passed, so a zero timeout checks it once.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, seen)
		}
		time.Sleep(eventuallyInterval)
	}
}
