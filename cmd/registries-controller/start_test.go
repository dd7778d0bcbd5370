package main

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestGCPercentInEffectIsTheEnvironmentsWhenItSetsOne(t *testing.T) {
	for _, tc := range []struct {
		flag int
		env  string
		want int
	}{
		{defaultGCPercent, "", defaultGCPercent},
		{80, "", 80},
		{defaultGCPercent, "200", 200},
		{defaultGCPercent, "off", -1},
		{defaultGCPercent, "lots", 100}, // the runtime's reading of a GOGC it cannot parse
	} {
		if got := gcPercentInEffect(tc.flag, tc.env); got != tc.want {
			t.Errorf("--gc-percent %d with GOGC=%q: %d, want %d", tc.flag, tc.env, got, tc.want)
		}
	}
}

// The test binary runs no main, so TestMain gives the collector back its setting: with it off, every render the
// tests run in this process would stay in memory.
func TestTheTestsRunWithTheCollectorOn(t *testing.T) {
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	if before < 0 && os.Getenv("GOGC") != "off" {
		t.Errorf("the collector is off in the tests (GOGC %d): TestMain did not call initgc.Restore", before)
	}
}
