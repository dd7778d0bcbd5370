package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/openshift/registries-controller/pkg/cluster"
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
}

// printAll prints every pool, then which MachineConfigs the controller would write, and reports whether it
// would write any.
func (p *poolPrinter) printAll(pools []preview.Pool) (bool, error) {
	var writes []string
	for _, pool := range pools {
		if err := p.print(pool); err != nil {
			return false, fmt.Errorf("pool %s: %w", pool.Name, err)
		}
		if o := pool.Outcome(); o != preview.Unchanged {
			writes = append(writes, fmt.Sprintf("%s (%s)", pool.MachineConfig, o))
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
	preview.Deleted:   "would be deleted (the pool would no longer be a built-in pool)",
}

func (p *poolPrinter) print(pool preview.Pool) error {
	fmt.Fprintf(p.w, "\n== pool %s: %s %s\n", pool.Name, pool.MachineConfig, outcomeWords[pool.Outcome()])
	if _, err := diffOne(p.w, pool.Old, pool.New, p.policy, p.opts); err != nil {
		return err
	}
	for _, d := range pool.Differences {
		if !strings.HasPrefix(d, "file ") {
			fmt.Fprintf(p.w, "also: %s\n", d)
		}
	}
	return p.rollout(pool)
}

// rollout notes a pool whose nodes do not all run its generated MachineConfig's files yet, and what those
// still on older files would do: they go from what they run straight to the new files.
func (p *poolPrinter) rollout(pool preview.Pool) error {
	mcp := p.reader.Pool(pool.Name)
	if mcp == nil || pool.Existing == nil {
		return nil
	}
	st, err := p.reader.Rollout(mcp, pool.Old)
	if err != nil {
		return err
	}
	switch st.Phase {
	case rollout.Live:
		return nil
	case rollout.Degraded:
		fmt.Fprintf(p.w, "note: the pool is degraded, and a change rolls out only once it recovers: %s\n", st.Message)
	}
	running, files, err := p.reader.Running(mcp)
	if err != nil {
		fmt.Fprintf(p.w, "note: %s; what its nodes run cannot be compared: %v\n", st.Message, err)
		return nil
	}
	now, err := p.reader.Expect(mcp, pool.Old)
	if err != nil {
		return err
	}
	d := rollout.Difference(files, now.Files)
	if d == "" {
		return nil // another change rolls out; the nodes run these files already
	}
	next, err := p.reader.Expect(mcp, pool.New)
	if err != nil {
		return err
	}
	res, err := nodeaction.Classify(files, next.Files, p.policy, p.opts)
	if err != nil {
		return fmt.Errorf("comparing %s with the new files: %w", running, err)
	}
	fmt.Fprintf(p.w, "note: a rollout is in progress: %s; nodes not yet updated run %s, which differs from %s (%s)\n",
		st.Message, running, pool.MachineConfig, d)
	if len(res.Changed) == 0 {
		fmt.Fprintf(p.w, "  nodes still on %s already have the new files\n", running)
		return nil
	}
	fmt.Fprintf(p.w, "  nodes still on %s would go straight to the new files: %s (%s)\n", running, res.Action, res.Action.Describe())
	return nil
}
