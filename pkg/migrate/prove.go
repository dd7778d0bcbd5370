package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

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
	// Today are the MachineConfigs rendered from the inputs as they are.
	Today []*machineconfigs.Desired
	// Changes lists, per step and generated MachineConfig, what the controller's plan would write to go from
	// today's MachineConfigs to the step's (machineconfigs.Plan); empty when neutral.
	Changes []MachineConfigChange
	// Files lists, per step, the lines of the node files that differ: "registries.conf: - <line>" and "+ <line>".
	Files map[Step][]string
	// Invalid holds the problems of a step whose inputs do not render.
	Invalid map[Step]*inputs.InvalidError
}

// MachineConfigChange is what differs between today's generated MachineConfig of a key and the one at a step.
type MachineConfigChange struct {
	Step  Step
	Key   machineconfigs.Key
	Lines []string
}

// Neutral reports whether every step renders MachineConfigs identical in meaning to today's: no node rolls.
func (p *Proof) Neutral() bool { return len(p.Changes) == 0 && len(p.Invalid) == 0 }

// Prove renders in as it is and at each step of plan, and proves each step neutral with the controller's own plan
// (machineconfigs.Plan): were today's MachineConfigs in the cluster, the step's would need no write. It compares by
// meaning: the decoded contents, modes and attributes of every file, and the labels and owner references the
// controller sets. Inputs that do not render today give the
// *inputs.InvalidError.
func Prove(in *inputs.Inputs, plan *Plan, opts render.Options) (*Proof, error) {
	today, err := render.Render(in, opts)
	if err != nil {
		return nil, err
	}
	proof := &Proof{Pools: today.Pools, Today: today.MachineConfigs, Files: map[Step][]string{}, Invalid: map[Step]*inputs.InvalidError{}}
	existing := make([]*mcfgv1.MachineConfig, len(today.MachineConfigs))
	for i, d := range today.MachineConfigs {
		existing[i] = d.Object
	}
	configs := machineconfigs.ConfigsOf(today.MachineConfigs)
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
		for _, a := range machineconfigs.Plan(existing, configs, &out.Set, machineconfigs.PlanOptions{}) {
			proof.Changes = append(proof.Changes, MachineConfigChange{Step: step, Key: a.Key, Lines: changeLines(a)})
		}
		if lines := poolFileChanges(&today.Set, &out.Set); len(lines) > 0 {
			proof.Files[step] = lines
		}
	}
	return proof, nil
}

// changeLines says what an action of the plan from today's MachineConfigs to a step's would write.
func changeLines(a machineconfigs.Action) []string {
	switch a.Op {
	case machineconfigs.Create:
		return []string{"a MachineConfig that is not rendered today"}
	case machineconfigs.Delete:
		return []string{"rendered today and no longer: " + a.Reason()}
	}
	return machineconfigs.Strings(a.Reasons)
}

// poolFileChanges lists the lines of the node files that differ between two renders, pool by pool; the changes of a
// pool the same as an earlier pool's are listed once.
func poolFileChanges(today, step *machineconfigs.Set) []string {
	var out []string
	seen := map[string]bool{}
	for _, pool := range slices.Compact(slices.Sorted(slices.Values(slices.Concat(today.AllPools(), step.AllPools())))) {
		lines := fileChanges(today.PoolFiles(pool), step.PoolFiles(pool))
		if key := strings.Join(lines, "\n"); !seen[key] {
			seen[key] = true
			out = append(out, lines...)
		}
	}
	return out
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
