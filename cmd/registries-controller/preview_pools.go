package main

import (
	"fmt"
	"io"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/nodeaction"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/preview"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// poolPrinter prints what a preview does to each pool.
type poolPrinter struct {
	w      io.Writer
	reader *cluster.Reader
	policy nodeaction.Policy
	opts   nodeaction.Options
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
			if o := m.Outcome(); o != preview.Unchanged {
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

var outcomeWords = map[preview.Outcome]string{
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
		what = append(what, m.Key.Name()+" "+outcomeWords[m.Outcome()])
	}
	if len(what) == 0 {
		what = []string{"no generated MachineConfig, before or after"}
	}
	fmt.Fprintf(p.w, "\n== pool %s: %s\n", pool.Name, strings.Join(what, "; "))
	if _, err := diffOne(p.w, pool.Old(), pool.New(), p.policy, p.opts); err != nil {
		return err
	}
	for _, m := range pool.MachineConfigs {
		for _, d := range m.Differences {
			if d.File == "" {
				fmt.Fprintf(p.w, "also: %s: %s\n", m.Key.Name(), d.Text)
			}
		}
	}
	return p.rollout(pool)
}

// rollout notes a pool whose nodes do not all run its generated MachineConfigs' files yet, and what those still on
// older files would do: they go from what they run straight to the new files.
func (p *poolPrinter) rollout(pool preview.Pool) error {
	mcp := p.reader.Pool(pool.Name)
	if mcp == nil {
		return nil
	}
	var notLive []rollout.State
	var now, next nodefiles.Files
	for _, m := range pool.MachineConfigs {
		if m.Existing == nil {
			continue
		}
		st, err := p.reader.Rollout(mcp, m.Key.Output, m.Old)
		if err != nil {
			return err
		}
		if st.Phase != rollout.Live {
			notLive = append(notLive, st)
		}
		wantNow, err := p.reader.Expect(mcp, m.Key.Output, m.Old)
		if err != nil {
			return err
		}
		wantNext, err := p.reader.Expect(mcp, m.Key.Output, m.New)
		if err != nil {
			return err
		}
		now, next = append(now, wantNow.Files...), append(next, wantNext.Files...)
	}
	if len(notLive) == 0 {
		return nil
	}
	st := notLive[0]
	if st.Phase == rollout.Degraded {
		fmt.Fprintf(p.w, "note: the pool is degraded, and a change rolls out only once it recovers: %s\n", st.Message)
	}
	return p.stillOnOlder(mcp, pool, st, now, next)
}

// stillOnOlder prints what the nodes still on the rendered config the pool's status names would do: go from its
// files straight to next, when they do not already run now (the files of the generated MachineConfigs as they are).
func (p *poolPrinter) stillOnOlder(mcp *mcfgv1.MachineConfigPool, pool preview.Pool, st rollout.State, now, next nodefiles.Files) error {
	running, files, err := p.reader.Running(mcp)
	if err != nil {
		fmt.Fprintf(p.w, "note: %s; what its nodes run cannot be compared: %v\n", st.Message, err)
		return nil
	}
	d := rollout.Difference(files, now)
	if d == "" {
		return nil // another change rolls out; the nodes run these files already
	}
	res, err := nodeaction.Classify(files, next, p.policy, p.opts)
	if err != nil {
		return fmt.Errorf("comparing %s with the new files: %w", running, err)
	}
	var names []string
	for _, m := range pool.MachineConfigs {
		names = append(names, m.Key.Name())
	}
	fmt.Fprintf(p.w, "note: a rollout is in progress: %s; nodes not yet updated run %s, which differs from %s (%s)\n",
		st.Message, running, strings.Join(names, " and "), d)
	if len(res.Changed) == 0 {
		fmt.Fprintf(p.w, "  nodes still on %s already have the new files\n", running)
		return nil
	}
	fmt.Fprintf(p.w, "  nodes still on %s would go straight to the new files: %s (%s)\n", running, res.Action, res.Action.Describe())
	return nil
}
