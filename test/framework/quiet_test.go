package framework_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// fatalRecorder is a testing.TB whose Fatalf records the message and ends the goroutine, as t.Fatalf does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runQuiet runs framework.Quiet on a fatalRecorder in a goroutine of its own and returns what it returned, the
// message it failed with ("" when it passed) and how long it took.
func runQuiet(t *testing.T, window time.Duration, w framework.Witness, happened func() (bool, string)) (float64, string, time.Duration) {
	t.Helper()
	r := &fatalRecorder{TB: t}
	var grown float64
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		grown = framework.Quiet(r, window, "a write", w, happened)
	}()
	<-done
	return grown, r.msg, time.Since(start)
}

// growing returns a witness that grows by one every period from the moment it is made, starting after delay.
func growing(t *testing.T, delay, period time.Duration, need float64) framework.Witness {
	w, tick := framework.Counted("syncs", need)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		select {
		case <-time.After(delay):
		case <-stop:
			return
		}
		for tk := time.NewTicker(period); ; {
			select {
			case <-tk.C:
				tick()
			case <-stop:
				tk.Stop()
				return
			}
		}
	}()
	return w
}

func noWrite() (bool, string) { return false, "no write" }

func TestQuietReturnsAfterTheWindowWhenTheWitnessGrewDuringIt(t *testing.T) {
	grown, msg, took := runQuiet(t, 200*time.Millisecond, growing(t, 0, 20*time.Millisecond, 3), noWrite)
	if msg != "" {
		t.Fatalf("failed: %s", msg)
	}
	if took < 200*time.Millisecond {
		t.Errorf("returned after %s, before its window of 200ms", took)
	}
	if grown < 3 {
		t.Errorf("returned with the witness grown by %v, want at least 3", grown)
	}
}

func TestQuietWaitsPastTheWindowUntilTheWitnessHasGrown(t *testing.T) {
	// The system under test starts working only after three windows, as on a loaded machine.
	grown, msg, took := runQuiet(t, 100*time.Millisecond, growing(t, 300*time.Millisecond, 10*time.Millisecond, 2), noWrite)
	if msg != "" {
		t.Fatalf("failed: %s", msg)
	}
	if took < 300*time.Millisecond || grown < 2 {
		t.Errorf("returned after %s with the witness grown by %v; want it to wait for 2 syncs, which start after 300ms", took, grown)
	}
}

func TestQuietFailsWhenTheWitnessNeverGrows(t *testing.T) {
	_, msg, took := runQuiet(t, 20*time.Millisecond, growing(t, time.Hour, time.Hour, 1), noWrite)
	want := "waiting for a write not to happen proved nothing: 0 syncs in "
	if !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, ", need 1 (the window is 20ms)") {
		t.Errorf("message %q, want %q…", msg, want)
	}
	if took < 200*time.Millisecond {
		t.Errorf("gave up after %s, want ten windows (200ms)", took)
	}
}

func TestQuietFailsAsSoonAsTheUnwantedThingHappens(t *testing.T) {
	var checks atomic.Int32
	happened := func() (bool, string) {
		if checks.Add(1) < 3 {
			return false, "no write"
		}
		return true, "1 write of 99-worker-generated-registries"
	}
	_, msg, took := runQuiet(t, time.Minute, growing(t, 0, 10*time.Millisecond, 1), happened)
	if !strings.HasPrefix(msg, "a write happened after ") || !strings.Contains(msg, " of a quiet window of 1m0s (") ||
		!strings.HasSuffix(msg, " syncs meanwhile): 1 write of 99-worker-generated-registries") {
		t.Errorf("message %q", msg)
	}
	if took > 10*time.Second {
		t.Errorf("failed after %s, want at once", took)
	}
}

func TestQuietRefusesAWitnessThatCannotProveAnything(t *testing.T) {
	_, msg, _ := runQuiet(t, time.Millisecond, framework.Witness{What: "syncs", Count: func() float64 { return 0 }}, noWrite)
	if !strings.Contains(msg, "the witness needs What, Count and a Need of at least 1") {
		t.Errorf("message %q", msg)
	}
}
