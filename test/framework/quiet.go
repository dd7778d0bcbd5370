package framework

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// quietPatience bounds how long Quiet waits, as a multiple of its window, for its witness to grow: under load
// the system under test may need longer than the window to do the work that proves the window.
const quietPatience = 10

// Witness is what a negative wait watches to know that the system under test was working while it waited: a
// count that grows with the work that could have made the unwanted thing happen, e.g. the syncs a controller
// finished or the requests a server answered. A sleep alone proves nothing on a loaded machine, where the
// controller may not have run at all while the test slept.
//
//	framework.Witness{What: "syncs", Need: 3, Count: func() float64 {
//		return ctrl.counter(t, "registries_controller_syncs_total", nil)
//	}}
type Witness struct {
	// What names what is counted, for messages: "syncs of the controller".
	What string
	// Count returns the count so far; it must never decrease.
	Count func() float64
	// Need is how much Count must grow during the wait for the wait to prove anything; at least 1.
	Need float64
	// Start, when set, is called once Quiet has read the count it starts from: it makes the system under test do
	// the work Count counts, e.g. an unrelated change that makes a controller sync once more, which it does only
	// after every earlier event.
	Start func()
}

// Quiet asserts that something does not happen during a window in which the system under test was seen working:
// what names the thing that must not happen, happened reports whether it did and what it saw. Quiet checks
// happened every 50ms and fails the test (t.Fatalf) as soon as it reports true. It returns once at least window
// has passed and w's count has grown by w.Need since Quiet began, after a last check of happened: work that
// finished before the count grew has had its effect by then. When the count grows more slowly than the window
// (a loaded machine), Quiet keeps watching, up to ten times the window, and then fails: a wait in which the system
// did not work proves nothing. It returns how much the count grew.
//
//	writes := countWrites(t)
//	framework.Quiet(t, 2*time.Second, "a late write", syncs, func() (bool, string) {
//		return writes.get(name) > 2, fmt.Sprint(writes.get(name), " writes")
//	})
func Quiet(t testing.TB, window time.Duration, what string, w Witness, happened func() (bool, string)) float64 {
	t.Helper()
	if w.Need < 1 || w.Count == nil || w.What == "" {
		t.Fatalf("framework.Quiet(%q): the witness needs What, Count and a Need of at least 1, got %q, Need %v", what, w.What, w.Need)
	}
	start := time.Now()
	from := w.Count()
	if w.Start != nil {
		w.Start()
	}
	limit := quietPatience * window
	for {
		elapsed := time.Since(start)
		grown := w.Count() - from
		if ok, seen := happened(); ok {
			t.Fatalf("%s happened after %s of a quiet window of %s (%v %s meanwhile): %s",
				what, elapsed.Round(time.Millisecond), window, grown, w.What, seen)
		}
		if elapsed >= window && grown >= w.Need {
			return grown
		}
		if elapsed >= limit {
			t.Fatalf("waiting for %s not to happen proved nothing: %v %s in %s, need %v (the window is %s)",
				what, grown, w.What, elapsed.Round(time.Millisecond), w.Need, window)
		}
		time.Sleep(eventuallyInterval)
	}
}

// Counted returns a witness of how many times tick has been called: give tick to the system under test where it
// does the work the witness stands for (a hook, a fake's handler), for code without a counter of its own. tick may
// be called from any goroutine.
func Counted(what string, need float64) (w Witness, tick func()) {
	var n atomic.Int64
	return Witness{What: what, Need: need, Count: func() float64 { return float64(n.Load()) }}, func() { n.Add(1) }
}

// pokes numbers the labels PokePool sets, so that each is a change.
var pokes atomic.Int64

// PokePool gives the worker pool a new label, which changes nothing the controller renders but makes it sync once
// more; the controller has one queue key, so that sync runs after every earlier event: once it ran, whatever those
// events would write is written. It is the Start of a witness of that sync (PokedSync).
func (cp *ControlPlane) PokePool(t testing.TB) {
	t.Helper()
	cp.RunKubectl(t, "label", "--overwrite", "machineconfigpool", "worker", fmt.Sprintf("registries-controller-test/quiet=%d", pokes.Add(1)))
}

// PokedSync is a witness for Quiet of one sync of the controller who (a process, or one in the test's process)
// that follows a change Quiet makes when it starts (cp.PokePool). syncs reads how many syncs it ran, -1 when it
// cannot be read: it is read again until it can, for up to 30 s, since a read that failed under load must not count
// as syncs.
func (cp *ControlPlane) PokedSync(t testing.TB, who string, syncs func() float64) Witness {
	return Witness{What: "syncs of " + who + " after a new label on the worker pool", Need: 1,
		Count: func() float64 {
			n := -1.0
			Eventually(t, 30*time.Second, who+"'s count of syncs", func() (bool, string) {
				n = syncs()
				return n >= 0, fmt.Sprint(n)
			})
			return n
		},
		Start: func() { cp.PokePool(t) }}
}

// PokedSync is cp.PokedSync of c, read from its /metrics.
func (c *Controller) PokedSync(t testing.TB, cp *ControlPlane) Witness {
	return cp.PokedSync(t, c.Name, func() float64 { return c.Metric("registries_controller_syncs_total", nil) })
}
