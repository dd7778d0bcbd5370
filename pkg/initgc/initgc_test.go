package initgc

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

func TestTheCollectorIsOffUntilRestoreGivesBackGOGC(t *testing.T) {
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("before Restore the collector's setting is %d, want -1 (off)", got)
	}
	want := 100
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil {
		want = v
	} else if os.Getenv("GOGC") == "off" {
		want = -1
	}
	Restore()
	Restore()
	if got := debug.SetGCPercent(want); got != want {
		t.Errorf("after Restore the collector's setting is %d, want GOGC's %d", got, want)
	}
}
