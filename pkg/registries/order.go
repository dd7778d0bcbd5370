package registries

import "sort"

// orderMirrors merges the mirror lists given for one source into one list, keeping every list's order
// where the lists agree, exactly as MCO does so that rendered files stay byte-identical:
//
//   - each list is a chain of constraints m[0] before m[1] ..., and, when the source is not in the list,
//     its last mirror before the source;
//   - nodes come out breadth-first: the queue starts with every node without predecessor, in byte order;
//     after emitting the head, the successors that just lost their last predecessor join the tail, in byte
//     order (a FIFO, not a priority queue: [a,b,c] + [a,z] gives a,b,z,c);
//   - the source, when it comes out last, is dropped (containers/image always tries it last anyway).
//
// Two defects of MCO are fixed (docs/semantics.md §7.1): a list that repeats a mirror is read with the
// repeat removed, and when conflicting lists form a cycle, the cycle is broken with the byte-smallest
// remaining mirror, never with the source while a mirror remains; and the source is then moved behind
// every mirror that no list orders after it (sourceBehindUnordered), so the source never ends up ahead
// of mirrors nobody ordered after it.
func orderMirrors(source string, lists [][]string) []string {
	if len(lists) == 1 {
		// One list is a chain of constraints: the order is the list itself (the usual case, and the cheap one).
		out := withoutRepeats(lists[0])
		if len(out) > 0 && out[len(out)-1] == source {
			out = out[:len(out)-1]
		}
		return out
	}
	g := newOrderGraph()
	src := g.node(source)
	for _, list := range lists {
		list = withoutRepeats(list)
		for i := 0; i+1 < len(list); i++ {
			g.edge(g.node(list[i]), g.node(list[i+1]))
		}
		if len(list) > 0 && !contains(list, source) {
			g.edge(g.node(list[len(list)-1]), src)
		}
	}
	out := g.sourceBehindUnordered(g.sorted(src), src)
	if len(out) > 0 && out[len(out)-1] == source {
		out = out[:len(out)-1]
	}
	return out
}

type orderNode struct {
	name  string
	preds int // predecessors not yet emitted
	succs []int
	used  bool
}

type orderGraph struct {
	nodes []orderNode
	index map[string]int
	edges map[[2]int]struct{}
}

func newOrderGraph() *orderGraph {
	return &orderGraph{index: map[string]int{}, edges: map[[2]int]struct{}{}}
}

func (g *orderGraph) node(name string) int {
	if i, ok := g.index[name]; ok {
		return i
	}
	g.nodes = append(g.nodes, orderNode{name: name})
	g.index[name] = len(g.nodes) - 1
	return len(g.nodes) - 1
}

// edge adds from -> to once; repeated constraints are one edge, as in MCO.
func (g *orderGraph) edge(from, to int) {
	key := [2]int{from, to}
	if _, ok := g.edges[key]; ok {
		return
	}
	g.edges[key] = struct{}{}
	g.nodes[from].succs = append(g.nodes[from].succs, to)
	g.nodes[to].preds++
}

// sorted emits every node that takes part in an edge (a lone source never does).
func (g *orderGraph) sorted(source int) []string {
	byName := make([]int, 0, len(g.nodes))
	for i := range g.nodes {
		if i != source && len(g.nodes[i].succs)+g.nodes[i].preds > 0 {
			byName = append(byName, i)
		}
	}
	sort.Slice(byName, func(a, b int) bool { return g.nodes[byName[a]].name < g.nodes[byName[b]].name })
	total := len(byName)
	if n := &g.nodes[source]; n.preds+len(n.succs) > 0 {
		total++
	}

	var queue []int
	for _, i := range g.byNameWithSource(byName, source) {
		if g.nodes[i].preds == 0 {
			queue = append(queue, i)
		}
	}
	out := make([]string, 0, total)
	next := 0 // cycle breaking scans byName from here
	var batch []int
	for len(out) < total {
		var n int
		if len(queue) > 0 {
			n, queue = queue[0], queue[1:]
		} else {
			for next < len(byName) && g.nodes[byName[next]].used {
				next++
			}
			if next < len(byName) {
				n = byName[next]
			} else {
				n = source // only the source is left
			}
		}
		g.nodes[n].used = true
		out = append(out, g.nodes[n].name)
		batch = batch[:0]
		for _, s := range g.nodes[n].succs {
			g.nodes[s].preds--
			if g.nodes[s].preds == 0 && !g.nodes[s].used {
				batch = append(batch, s)
			}
		}
		sort.Slice(batch, func(a, b int) bool { return g.nodes[batch[a]].name < g.nodes[batch[b]].name })
		queue = append(queue, batch...)
	}
	return out
}

// byNameWithSource returns byName with the source inserted at its byte-order place: the initial queue
// holds every node without predecessor in byte order, the source included.
func (g *orderGraph) byNameWithSource(byName []int, source int) []int {
	src := &g.nodes[source]
	if src.preds+len(src.succs) == 0 {
		return byName
	}
	at := sort.Search(len(byName), func(i int) bool { return g.nodes[byName[i]].name >= src.name })
	out := make([]int, 0, len(byName)+1)
	out = append(out, byName[:at]...)
	out = append(out, source)
	return append(out, byName[at:]...)
}

// withoutRepeats returns a new list: list with later repeats of a mirror removed.
func withoutRepeats(list []string) []string {
	out := make([]string, 0, len(list))
	if len(list) <= 16 { // the usual few mirrors: a scan is cheaper than a map
		for i, m := range list {
			if !contains(list[:i], m) {
				out = append(out, m)
			}
		}
		return out
	}
	seen := make(map[string]struct{}, len(list))
	for _, m := range list {
		if _, ok := seen[m]; !ok {
			seen[m] = struct{}{}
			out = append(out, m)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// sourceBehindUnordered moves the source behind the last mirror that is not ordered after it (not
// reachable from it through the constraints). Breaking a cycle can release the source while such a
// mirror still waits for a predecessor, or in the same batch ahead of it by byte order: with lists
// [a,z,b] and [b,z,a], z comes out after the source although both lists put it before. Without a cycle
// every such mirror comes out before the source anyway, so this changes nothing where MCO is
// right.
func (g *orderGraph) sourceBehindUnordered(out []string, source int) []string {
	at := -1
	for i, name := range out {
		if name == g.nodes[source].name {
			at = i
			break
		}
	}
	if at < 0 {
		return out
	}
	after := make([]bool, len(g.nodes))
	stack := []int{source}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range g.nodes[n].succs {
			if !after[s] {
				after[s] = true
				stack = append(stack, s)
			}
		}
	}
	last := at
	for i := at + 1; i < len(out); i++ {
		if !after[g.index[out[i]]] {
			last = i
		}
	}
	if last == at {
		return out
	}
	moved := make([]string, 0, len(out))
	moved = append(moved, out[:at]...)
	moved = append(moved, out[at+1:last+1]...)
	moved = append(moved, out[at])
	return append(moved, out[last+1:]...)
}
