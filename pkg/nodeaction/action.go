package nodeaction

import (
	"fmt"
	"slices"
	"strings"
)

// Daemon names the machine-config daemon whose behaviour the predictions follow (docs/semantics.md §8), for
// output: "action: reboot, as the machine-config daemon of MCO 4.13 and later (7ff337a) does".
const Daemon = "the machine-config daemon of MCO 4.13 and later (7ff337a)"

// Action is what a node does to apply a change, in this order: drain the node (cordon it and evict its
// pods), write the files, then reboot, or else run the service Steps. The actions of the default node
// disruption policies are, by String:
//
//	none                   write the files; nothing else
//	reload-crio            write the files and reload crio.service; pods keep running
//	drain-and-reload-crio  drain, write the files, reload crio.service, uncordon
//	reboot                 drain, write the files, reboot
//
// A custom policy can ask for others, e.g. "restart-crio" or "drain-and-daemon-reload-and-reload-foo".
// Actions are compared by Level, a total order.
type Action struct {
	// Drain is true when the node is drained before the files are written.
	Drain bool
	// Reboot is true when the node reboots into the new files; Steps are then empty.
	Reboot bool
	// Steps are run in order once the files are written, when the node does not reboot.
	Steps []Step
}

// Step is one systemd operation a node disruption policy asks for, e.g. {StepReload, "crio.service"}.
type Step struct {
	// Kind says what is done.
	Kind StepKind
	// Service is the unit, e.g. "crio.service"; empty for StepDaemonReload.
	Service string
}

// StepKind is a systemd operation.
type StepKind string

const (
	// StepReload is `systemctl reload <service>`.
	StepReload StepKind = "reload"
	// StepRestart is `systemctl restart <service>`.
	StepRestart StepKind = "restart"
	// StepDaemonReload is `systemctl daemon-reload`.
	StepDaemonReload StepKind = "daemon-reload"
)

// The units the default policies reload or restart.
const (
	crioService    = "crio.service"
	kubeletService = "kubelet.service"
)

// The actions of the default node disruption policies. Action values are never modified in place (merge
// copies), so these can be shared.
var (
	none               = Action{}
	reloadCRIO         = Action{Steps: []Step{{Kind: StepReload, Service: crioService}}}
	drainAndReloadCRIO = Action{Drain: true, Steps: []Step{{Kind: StepReload, Service: crioService}}}
	reboot             = Action{Drain: true, Reboot: true}
)

// Level orders actions by cost, each level including the disruption of the ones before it. It is the order
// of "the minimal action is never larger than the action".
type Level int

const (
	// LevelNone: the files are written, nothing else.
	LevelNone Level = iota
	// LevelServices: services are reloaded or restarted; pods keep running.
	LevelServices
	// LevelDrain: the node is drained, its pods evicted.
	LevelDrain
	// LevelReboot: the node reboots.
	LevelReboot
)

var levelNames = [...]string{LevelNone: "none", LevelServices: "services", LevelDrain: "drain", LevelReboot: "reboot"}

// String returns the level's name, e.g. "drain".
func (l Level) String() string {
	if l < LevelNone || int(l) >= len(levelNames) {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// Level returns the action's level: a reboot, with or without a drain, is LevelReboot.
func (a Action) Level() Level {
	switch {
	case a.Reboot:
		return LevelReboot
	case a.Drain:
		return LevelDrain
	case len(a.Steps) > 0:
		return LevelServices
	}
	return LevelNone
}

// String returns the action's name: "none", "reload-crio", "drain-and-reload-crio", "reboot", and for
// other actions its parts joined by "-and-" ("drain", "reload-<unit>", "restart-<unit>", "daemon-reload",
// a unit's ".service" left out), e.g. "restart-crio". A reboot without a drain (a single-node cluster) is
// "reboot-without-drain".
func (a Action) String() string {
	if a.Reboot {
		if a.Drain {
			return "reboot"
		}
		return "reboot-without-drain"
	}
	var parts []string
	if a.Drain {
		parts = append(parts, "drain")
	}
	for _, s := range a.Steps {
		if s.Kind == StepDaemonReload {
			parts = append(parts, string(s.Kind))
			continue
		}
		parts = append(parts, string(s.Kind)+"-"+strings.TrimSuffix(s.Service, ".service"))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "-and-")
}

// Describe says in a few words what a node does, e.g. "drain the node and reload CRI-O".
func (a Action) Describe() string {
	switch {
	case a.Reboot && a.Drain:
		return "drain and reboot the node"
	case a.Reboot:
		return "reboot the node without draining it"
	case a.Level() == LevelNone:
		return "write the files, nothing else"
	}
	var steps []string
	for _, s := range a.Steps {
		steps = append(steps, s.describe())
	}
	if !a.Drain {
		return strings.Join(steps, ", then ") + ", no drain"
	}
	if len(steps) == 0 {
		return "drain the node"
	}
	return "drain the node and " + strings.Join(steps, ", then ")
}

func (s Step) describe() string {
	service := s.Service
	if service == crioService {
		service = "CRI-O"
	}
	if s.Kind == StepDaemonReload {
		return "reload systemd's configuration (daemon-reload)"
	}
	return string(s.Kind) + " " + service
}

// merge returns the action that does what a and b both ask for, as the daemon combines the actions of
// several changed files: drain if either drains; reboot if either reboots (a reboot always drains first,
// and replaces every step); otherwise a's steps then b's, a step left out when it was done already and no
// daemon-reload came since (a restart after a daemon-reload is what makes a service read a changed unit
// drop-in, so it is kept: restart kubelet, daemon-reload, restart kubelet).
func merge(a, b Action) Action {
	if a.Reboot || b.Reboot {
		return reboot
	}
	out := Action{Drain: a.Drain || b.Drain}
	for _, s := range append(append([]Step(nil), a.Steps...), b.Steps...) {
		last := slices.Index(out.Steps, s)
		for i := len(out.Steps) - 1; i > last; i-- {
			if out.Steps[i] == s {
				last = i
			}
		}
		if last < 0 || s.Kind != StepDaemonReload && slices.Contains(out.Steps[last:], Step{Kind: StepDaemonReload}) {
			out.Steps = append(out.Steps, s)
		}
	}
	return out
}

// withoutDrain returns a with no drain: what a single-node cluster does (docs/semantics.md §8.4).
func (a Action) withoutDrain() Action {
	a.Drain = false
	return a
}
