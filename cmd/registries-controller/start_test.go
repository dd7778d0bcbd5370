package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// The test binary runs no main, so TestMain gives the collector back its setting: with it off, every render the
// tests run in this process would stay in memory.
func TestTheTestsRunWithTheCollectorOn(t *testing.T) {
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	if before < 0 && os.Getenv("GOGC") != "off" {
		t.Errorf("the collector is off in the tests (GOGC %d): TestMain did not call initgc.Restore", before)
	}
}
