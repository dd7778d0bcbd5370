package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/linediff"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
)

// Step is a state of the inputs during the migration, compared with the inputs as they are.
type Step string

const (
	// Added: the IDMSs applied, the ICSPs not yet deleted.
	Added Step = "with the ImageDigestMirrorSets added"
	// Swapped: the IDMSs applied and the ICSPs deleted.
	Swapped Step = "with the ImageDigestMirrorSets in place of the ImageContentSourcePolicies"
)

// Steps are the steps Prove compares, in the order an admin takes them.
var Steps = []Step{Added, Swapped}

// maxFileLines bounds the changed lines a proof lists per file.
const maxFileLines = 20

// Proof is the comparison of the MachineConfigs rendered at each step with those rendered today.
type Proof struct {
	// Pools are the pools whose MachineConfigs were compared, e.g. master, worker.
	Pools []string
	// Today are the MachineConfigs rendered from the inputs as they are, one per pool and output.
	Today []*machineconfigs.Desired
	// Changes lists, per step and generated MachineConfig, what machineconfigs.Differences finds; empty when
	// neutral.
	Changes []MachineConfigChange
	// Files lists, per step, the lines of the node files that differ: "registries.conf: - <line>" and "+ <line>".
	Files map[Step][]string
	// Invalid holds the problems of a step whose inputs do not render.
	Invalid map[Step]*inputs.InvalidError
}

// MachineConfigChange is what differs between today's generated MachineConfig of a pool and output and the one at
// a step.
type MachineConfigChange struct {
	Step  Step
	Key   machineconfigs.Key
	Lines []string
}

// Neutral reports whether every step renders MachineConfigs identical in meaning to today's: no node rolls.
func (p *Proof) Neutral() bool { return len(p.Changes) == 0 && len(p.Invalid) == 0 }

// Prove renders in as it is and at each step of plan, and compares each generated MachineConfig with
// machineconfigs.Differences: the decoded contents, modes and attributes of every file, and the labels, annotations
// and owner references the controller sets. Inputs that do not render today give the *inputs.InvalidError.
func Prove(in *inputs.Inputs, plan *Plan, opts render.Options) (*Proof, error) {
	today, err := render.Render(in, opts)
	if err != nil {
		return nil, err
	}
	proof := &Proof{Pools: today.Pools, Today: today.MachineConfigs, Files: map[Step][]string{}, Invalid: map[Step]*inputs.InvalidError{}}
	for _, step := range Steps {
		out, err := render.Render(plan.Applied(in, step == Swapped), opts)
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			proof.Invalid[step] = invalid
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("rendering the inputs %s: %w", step, err)
		}
		for _, want := range out.MachineConfigs {
			var lines []string
			if have := today.Desired(want.Key); have == nil {
				lines = []string{"a MachineConfig that is not rendered today"}
			} else {
				lines = machineconfigs.Strings(machineconfigs.Differences(have.Object, have.Config(), want))
			}
			if len(lines) > 0 {
				proof.Changes = append(proof.Changes, MachineConfigChange{Step: step, Key: want.Key, Lines: lines})
			}
		}
		if lines := fileChanges(today.AllFiles(), out.AllFiles()); len(lines) > 0 {
			proof.Files[step] = lines
		}
	}
	return proof, nil
}

// fileChanges lists the lines of each node file that changed (linediff), in file order: "<file>: - line" and
// "<file>: + line", at most maxFileLines per file.
func fileChanges(old, new nodefiles.Files) []string {
	var out []string
	paths := old.Paths()
	for _, p := range new.Paths() {
		if _, ok := old.Get(p); !ok {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		a, _ := old.Get(p)
		b, _ := new.Get(p)
		if bytes.Equal(a, b) {
			continue
		}
		var lines []string
		for _, l := range linediff.Text(a, b) {
			if strings.TrimSpace(l[2:]) != "" {
				lines = append(lines, fmt.Sprintf("%s: %s %s", p, l[:1], strings.TrimSpace(l[2:])))
			}
		}
		if len(lines) > maxFileLines {
			lines = append(lines[:maxFileLines], fmt.Sprintf("%s: ... and %d more changed lines", p, len(lines)-maxFileLines))
		}
		out = append(out, lines...)
	}
	return out
}
