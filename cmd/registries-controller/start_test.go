package main

import "testing"

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
