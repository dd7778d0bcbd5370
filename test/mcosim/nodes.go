package mcosim

import (
	"fmt"
	"strings"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// node is one simulated machine of a pool, as the machine-config daemon reports it in the node's
// currentConfig and desiredConfig annotations.
type node struct {
	name string
	// current is the rendered config the node runs; "" for a machine that has not booted yet.
	current string
	// desired is the rendered config the node is updating to; equal to current when the node is done.
	desired string
	// degraded holds what the daemon reports when it failed; nil when the node is healthy.
	degraded *degradation
}

// degradation is what Degrade reports for one node.
type degradation struct {
	reason, message string
}

func (n *node) updating() bool  { return n.desired != n.current }
func (n *node) available() bool { return !n.updating() && n.degraded == nil }

// poolState is the simulated state of one pool's machines, and the test's controls of it.
type poolState struct {
	// uid is the pool the nodes belong to: a pool deleted and created again gets new machines.
	uid   types.UID
	nodes []node
	// lastStep is when the rollout last moved.
	lastStep time.Time
	// size is the number of machines the pool should have.
	size int
	// paused holds the rollout, as spec.paused does.
	paused bool
	// degrade, when set, marks one node degraded.
	degrade *degradation
}

// resize gives the pool p.size machines: new ones, named <pool>-<index>, join running config; removed ones
// are the last.
func (p *poolState) resize(pool, config string) {
	for i := len(p.nodes); i < p.size; i++ {
		p.nodes = append(p.nodes, node{name: fmt.Sprintf("%s-%d", pool, i), current: config, desired: config})
	}
	p.nodes = p.nodes[:p.size]
}

// boot starts the machines that never ran a config on target, as machines installed from it.
func (p *poolState) boot(target string) {
	for i := range p.nodes {
		if n := &p.nodes[i]; n.current == "" {
			n.current, n.desired = target, target
		}
	}
}

// step moves the rollout towards target by one step, as the node controller and the daemons do: nodes that
// were updating finish, then up to maxUnavailable nodes not running target start updating (none when held).
// Nothing moves while a node is degraded.
func (p *poolState) step(target string, maxUnavailable int, hold bool) {
	if p.degradedCount() > 0 {
		return
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; n.updating() {
			n.current = n.desired
		}
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; !hold && maxUnavailable > 0 && n.current != target {
			n.desired = target
			maxUnavailable--
		}
	}
}

// pending reports whether a step would move anything.
func (p *poolState) pending(target string, hold bool) bool {
	if target == "" || p.degradedCount() > 0 {
		return false
	}
	for _, n := range p.nodes {
		if n.updating() || (!hold && n.current != target) {
			return true
		}
	}
	return false
}

// applyDegrade marks the node p.degrade is for degraded: the first updating one, else the first one not
// running target, else the first.
func (p *poolState) applyDegrade(target string) {
	if p.degrade == nil || len(p.nodes) == 0 || p.degradedCount() > 0 {
		return
	}
	pick := p.first(func(n *node) bool { return n.updating() })
	if pick < 0 {
		pick = max(p.first(func(n *node) bool { return n.current != target }), 0)
	}
	p.nodes[pick].degraded = p.degrade
}

// first returns the index of the first node matching match, or -1.
func (p *poolState) first(match func(*node) bool) int {
	for i := range p.nodes {
		if match(&p.nodes[i]) {
			return i
		}
	}
	return -1
}

func (p *poolState) degradedCount() int {
	count := 0
	for _, n := range p.nodes {
		if n.degraded != nil {
			count++
		}
	}
	return count
}

// maxUnavailable returns how many of n machines may update at once: spec.maxUnavailable (a number or a
// percentage, rounded down), at least 1, as MCO counts it.
func maxUnavailable(pool *mcfgv1.MachineConfigPool, n int) int {
	value := intstr.FromInt32(1)
	if pool.Spec.MaxUnavailable != nil {
		value = *pool.Spec.MaxUnavailable
	}
	scaled, err := intstr.GetScaledValueFromIntOrPercent(&value, n, false)
	if err != nil || scaled < 1 {
		return 1
	}
	return scaled
}

// counts are the machine counts of a pool's status.
type counts struct {
	machines, updated, ready, unavailable, degraded int32
}

// count counts p's machines as MCO does: updated when running target and done, ready when updated and
// available, unavailable when updating or degraded.
func (p *poolState) count(target string) counts {
	c := counts{machines: int32(len(p.nodes))}
	for _, n := range p.nodes {
		updated := n.current == target && !n.updating()
		if updated {
			c.updated++
		}
		if updated && n.available() {
			c.ready++
		}
		if !n.available() {
			c.unavailable++
		}
		if n.degraded != nil {
			c.degraded++
		}
	}
	return c
}

// nodeDegradedMessage is the NodeDegraded message MCO writes: one `Node <name> is reporting: "<message>"`
// per degraded node.
func (p *poolState) nodeDegradedMessage() (reason, message string) {
	var msgs []string
	for _, n := range p.nodes {
		if n.degraded != nil {
			reason = n.degraded.reason
			msgs = append(msgs, fmt.Sprintf("Node %s is reporting: %q", n.name, n.degraded.message))
		}
	}
	if reason == "" {
		reason = fmt.Sprintf("%d nodes are reporting degraded status on sync", len(msgs))
	}
	return reason, strings.Join(msgs, ", ")
}
