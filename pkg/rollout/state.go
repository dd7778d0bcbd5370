// Package rollout judges whether a render is live on a MachineConfigPool: whether every node of the pool runs a
// rendered config that carries the render's files. The controller (which follows each pool after it writes) and
// `registries-controller wait` judge with the same function, Judge, so both say "live" at the same moment.
//
// A render is live on a pool when all of these hold (anything else is pending, whichever rendered config the
// status names, since MCO keeps the old name in status.configuration until every node is updated):
//   - status.configuration.name names a rendered MachineConfig whose files at the output's paths are exactly
//     those Expect says;
//   - status.updatedMachineCount == status.readyMachineCount == status.machineCount;
//   - status.observedGeneration equals the pool's generation;
//   - the condition Updated is True.
//
// A pool that is not live and reports NodeDegraded or RenderDegraded True is degraded.
//
//	want, err := rollout.Expect(pool, configs, decoder, machineconfigs.Registries, out.MachineConfigs)
//	st := rollout.Judge(pool, configLister.Get, decoder, want)
//	fmt.Printf("%s: %s\n", st.Pool, st.Message) // worker: 2/5 nodes updated to rendered-worker-8f3b...
package rollout

import (
	"fmt"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// Phase is where a render stands on a pool.
type Phase string

const (
	// Live: every node of the pool runs a rendered config carrying the render.
	Live Phase = "Live"
	// Pending: not yet live, and the pool is not degraded.
	Pending Phase = "Pending"
	// Degraded: not live, and the pool reports NodeDegraded or RenderDegraded.
	Degraded Phase = "Degraded"
)

// Lookup returns the MachineConfig with the given name, or an error for which apierrors.IsNotFound is true when
// there is none (a MachineConfig lister's Get).
type Lookup func(name string) (*mcfgv1.MachineConfig, error)

// State is where a render stands on one pool.
type State struct {
	// Pool is the pool's name.
	Pool string
	// Phase is Live, Pending or Degraded.
	Phase Phase
	// Machines, Updated and Ready are the pool's status.machineCount, updatedMachineCount (nodes on the pool's
	// newest rendered config, spec.configuration) and readyMachineCount.
	Machines, Updated, Ready int32
	// Rendered is the rendered config the pool's status names (status.configuration.name). When Live, every
	// node runs it and it carries the render.
	Rendered string
	// Target is the pool's newest rendered config, the one its nodes update to (spec.configuration.name).
	Target string
	// TargetCarries reports whether Target carries the render.
	TargetCarries bool
	// Message says in one line where the render stands, without the pool's name:
	//   Live:     "5/5 nodes on rendered-worker-8f3b..."
	//   Pending:  "2/5 nodes updated to rendered-worker-8f3b..." (or what is awaited, e.g. MCO's render)
	//   Degraded: the pool's condition, `NodeDegraded: Node worker-1 is reporting: "..."`
	Message string
}

// Judge returns where the render that want describes (see Expect) stands on pool, looking the rendered configs
// up with lookup and decoding them with dec (nil: every time).
func Judge(pool *mcfgv1.MachineConfigPool, lookup Lookup, dec *machineconfigs.Decoder, want Want) State {
	st := pool.Status
	s := State{
		Pool: pool.Name, Phase: Pending,
		Machines: st.MachineCount, Updated: st.UpdatedMachineCount, Ready: st.ReadyMachineCount,
		Rendered: st.Configuration.Name, Target: pool.Spec.Configuration.Name,
	}
	current, _ := carries(lookup, dec, s.Rendered, want)
	if current && st.UpdatedMachineCount == st.MachineCount && st.ReadyMachineCount == st.MachineCount &&
		st.ObservedGeneration == pool.Generation && conditionTrue(pool, mcfgv1.MachineConfigPoolUpdated) {
		s.Phase, s.TargetCarries = Live, s.Target == s.Rendered
		s.Message = fmt.Sprintf("%d/%d nodes on %s", st.MachineCount, st.MachineCount, s.Rendered)
		return s
	}
	if msg := degradedMessage(pool); msg != "" {
		s.Phase, s.Message = Degraded, msg
		return s
	}
	var why string
	s.TargetCarries, why = carries(lookup, dec, s.Target, want)
	switch {
	case len(want.Overrides) > 0:
		o := want.Overrides[0]
		s.Message = fmt.Sprintf("cannot go live: MachineConfig %s replaces %s (it sorts after %s)", o.By, o.Path, o.Over)
	case s.Target == "":
		s.Message = "waiting for the pool's first rendered config"
	case !s.TargetCarries:
		s.Message = fmt.Sprintf("waiting for a rendered config with the change (the newest, %s, %s)", s.Target, why)
	case st.ObservedGeneration != pool.Generation:
		// The counts are of the rendered config before: MCO has not looked at the pool since.
		s.Message = fmt.Sprintf("%s carries the change; waiting for the pool's status to count its nodes", s.Target)
	default:
		s.Message = fmt.Sprintf("%d/%d nodes updated to %s", st.UpdatedMachineCount, st.MachineCount, s.Target)
	}
	if pool.Spec.Paused {
		s.Message += " (the pool is paused)"
	}
	return s
}

// carries reports whether the rendered config name holds exactly want's files at the output's paths and the
// paths want writes; when not, it says why.
func carries(lookup Lookup, dec *machineconfigs.Decoder, name string, want Want) (bool, string) {
	if name == "" {
		return false, "no rendered config"
	}
	mc, err := lookup(name)
	if apierrors.IsNotFound(err) {
		return false, "is not found yet"
	}
	if err != nil {
		return false, "cannot be read: " + err.Error()
	}
	wanted := map[string]bool{}
	for _, f := range want.Files {
		wanted[f.Path] = true
	}
	have, err := ManagedFiles(dec, mc, func(p string) bool { return want.Output.Owns(p) || wanted[p] })
	if err != nil {
		return false, "cannot be read: " + err.Error()
	}
	if d := Difference(have, want.Files); d != "" {
		return false, "does not carry it: " + d
	}
	return true, ""
}

// degradedMessage returns the pool's NodeDegraded and RenderDegraded conditions that are True, as
// "<type>: <message>" joined by "; "; "" when neither is.
func degradedMessage(pool *mcfgv1.MachineConfigPool) string {
	var parts []string
	for _, t := range []mcfgv1.MachineConfigPoolConditionType{mcfgv1.MachineConfigPoolNodeDegraded, mcfgv1.MachineConfigPoolRenderDegraded} {
		if c := condition(pool, t); c != nil && c.Status == corev1.ConditionTrue {
			msg := c.Message
			if msg == "" {
				msg = c.Reason
			}
			parts = append(parts, fmt.Sprintf("%s: %s", t, msg))
		}
	}
	return strings.Join(parts, "; ")
}

func conditionTrue(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) bool {
	c := condition(pool, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

func condition(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) *mcfgv1.MachineConfigPoolCondition {
	for i := range pool.Status.Conditions {
		if pool.Status.Conditions[i].Type == t {
			return &pool.Status.Conditions[i]
		}
	}
	return nil
}

// Furthest returns the state furthest from live among states (several outputs of one pool): the first Degraded,
// else the first Pending, else the first. states must not be empty.
func Furthest(states []State) State {
	for _, phase := range []Phase{Degraded, Pending} {
		for _, s := range states {
			if s.Phase == phase {
				return s
			}
		}
	}
	return states[0]
}
