package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodeaction"
	"github.com/openshift/registries-controller/pkg/preview"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// poolPrinter prints what a preview does to each pool.
type poolPrinter struct {
	w      io.Writer
	reader *cluster.Reader
	policy nodeaction.Policy
	opts   nodeaction.Options
	// desired are the MachineConfigs the render with the edits wants.
	desired []*machineconfigs.Desired
}

// printAll prints every pool, then which MachineConfigs the controller would write, and reports whether it
// would write any.
func (p *poolPrinter) printAll(pools []preview.Pool) (bool, error) {
	var writes []string
	for _, pool := range pools {
		if err := p.print(pool); err != nil {
			return false, fmt.Errorf("pool %s: %w", pool.Name, err)
		}
		for _, m := range pool.MachineConfigs {
			if o := m.Change(); o != preview.Unchanged {
				writes = append(writes, fmt.Sprintf("%s (%s)", m.Key.Name(), o))
			}
		}
	}
	fmt.Fprintln(p.w)
	if len(writes) == 0 {
		fmt.Fprintln(p.w, "nothing would change: the controller would write no MachineConfig")
		return false, nil
	}
	fmt.Fprintf(p.w, "the controller would write %s\n", strings.Join(writes, ", "))
	return true, nil
}

var outcomeWords = map[preview.Change]string{
	preview.Unchanged: "would stay as it is",
	preview.Created:   "would be created",
	preview.Updated:   "would be updated",
	preview.Deleted:   "would be deleted",
}

// print prints what happens to the pool's generated MachineConfigs, and what its nodes do: the daemon applies
// every changed MachineConfig of a pool in one update, so the change and the action are of all of them together.
func (p *poolPrinter) print(pool preview.Pool) error {
	var what []string
	for _, m := range pool.MachineConfigs {
		what = append(what, m.Key.Name()+" "+outcomeWords[m.Change()])
	}
	if len(what) == 0 {
		what = []string{"no generated MachineConfig, before or after"}
	}
	fmt.Fprintf(p.w, "\n== pool %s: %s\n", pool.Name, strings.Join(what, "; "))
	if _, err := diffOne(p.w, pool.Old(), pool.New(), p.policy, p.opts); err != nil {
		return err
	}
	for _, m := range pool.MachineConfigs {
		for _, d := range m.Reasons {
			if d.File == "" {
				fmt.Fprintf(p.w, "also: %s: %s\n", m.Key.Name(), d.Text)
			}
		}
	}
	return p.rollout(pool)
}

// rollout notes a pool whose nodes do not all run its generated MachineConfigs' files yet (cluster.PoolState), and
// what those still on older files would do: they go from what they run straight to the new files.
func (p *poolPrinter) rollout(pool preview.Pool) error {
	mcp := p.reader.Pool(pool.Name)
	if mcp == nil || len(pool.MachineConfigs) == 0 {
		return nil
	}
	var outputs []*machineconfigs.Output
	for _, m := range pool.MachineConfigs {
		if !slices.Contains(outputs, m.Key.Output) {
			outputs = append(outputs, m.Key.Output)
		}
	}
	state, err := p.reader.PoolState(mcp, outputs...)
	if err != nil {
		return err
	}
	st := state.State
	if st.Phase == rollout.Live {
		return nil
	}
	if st.Phase == rollout.Degraded {
		fmt.Fprintf(p.w, "note: the pool is degraded, and a change rolls out only once it recovers: %s\n", st.Message)
	}
	if state.RunningErr != nil {
		fmt.Fprintf(p.w, "note: %s; what its nodes run cannot be compared: %v\n", st.Message, state.RunningErr)
		return nil
	}
	if !state.RollingOut() {
		return nil // another change rolls out; the nodes run these files already
	}
	next, err := p.reader.ExpectAll(mcp, outputs, p.desired)
	if err != nil {
		return err
	}
	res, err := nodeaction.Classify(state.Running, next, p.policy, p.opts)
	if err != nil {
		return fmt.Errorf("comparing %s with the new files: %w", state.Rendered, err)
	}
	fmt.Fprintf(p.w, "note: a rollout is in progress: %s; nodes not yet updated run %s, which differs from %s (%s)\n",
		st.Message, state.Rendered, strings.Join(state.Generated, " and "), state.Difference)
	if len(res.Changed) == 0 {
		fmt.Fprintf(p.w, "  nodes still on %s already have the new files\n", state.Rendered)
		return nil
	}
	fmt.Fprintf(p.w, "  nodes still on %s would go straight to the new files: %s (%s)\n", state.Rendered, res.Action, res.Action.Describe())
	return nil
}
