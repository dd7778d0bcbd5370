package nodeaction

import (
	"testing"
)

func TestActionNamesDescriptionsAndLevels(t *testing.T) {
	crio := func(k StepKind) Step { return Step{Kind: k, Service: crioService} }
	cases := []struct {
		action   Action
		name     string
		describe string
		level    Level
	}{
		{none, "none", "write the files, nothing else", LevelNone},
		{reloadCRIO, "reload-crio", "reload CRI-O, no drain", LevelServices},
		{drainAndReloadCRIO, "drain-and-reload-crio", "drain the node and reload CRI-O", LevelDrain},
		{reboot, "reboot", "drain and reboot the node", LevelReboot},
		{reboot.withoutDrain(), "reboot-without-drain", "reboot the node without draining it", LevelReboot},
		{Action{Steps: []Step{crio(StepRestart)}}, "restart-crio", "restart CRI-O, no drain", LevelServices},
		{Action{Drain: true}, "drain", "drain the node", LevelDrain},
		{Action{Steps: []Step{{Kind: StepDaemonReload}, {Kind: StepReload, Service: "foo.socket"}}}, "daemon-reload-and-reload-foo.socket",
			"reload systemd's configuration (daemon-reload), then reload foo.socket, no drain", LevelServices},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.action.String(); got != tc.name {
				t.Errorf("String %q, want %q", got, tc.name)
			}
			if got := tc.action.Describe(); got != tc.describe {
				t.Errorf("Describe %q, want %q", got, tc.describe)
			}
			if got := tc.action.Level(); got != tc.level {
				t.Errorf("Level %s, want %s", got, tc.level)
			}
		})
	}
	if !(LevelNone < LevelServices && LevelServices < LevelDrain && LevelDrain < LevelReboot) || Level(9).String() != "Level(9)" {
		t.Error("levels are not ordered by cost, or misnamed")
	}
}

func TestMergeCombinesAsTheDaemonDoes(t *testing.T) {
	restart := Action{Steps: []Step{{Kind: StepRestart, Service: crioService}}}
	cases := []struct {
		name string
		a, b Action
		want string
	}{
		{name: "a reboot replaces every step", a: reloadCRIO, b: reboot, want: "reboot"},
		{name: "a drain joins the steps", a: Action{Drain: true}, b: restart, want: "drain-and-restart-crio"},
		{name: "a step asked twice runs once", a: reloadCRIO, b: drainAndReloadCRIO, want: "drain-and-reload-crio"},
		{name: "steps keep the order they are asked in", a: restart, b: reloadCRIO, want: "restart-crio-and-reload-crio"},
		{name: "none changes nothing", a: none, b: reloadCRIO, want: "reload-crio"},
	}
	for _, tc := range cases {
		if got := merge(tc.a, tc.b).String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if len(reloadCRIO.Steps) != 1 || len(drainAndReloadCRIO.Steps) != 1 {
		t.Error("merge modified a shared action")
	}
}
