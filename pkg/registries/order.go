package registries

import "sort"

// orderMirrors merges the mirror lists given for one source into one list, keeping every list's order
// where the lists agree, exactly as the reference does so that rendered files stay byte-identical:
//
//   - each list is a chain of constraints m[0] before m[1] ..., and, when the source is not in the list,
//     its last mirror before the source;
//   - nodes come out breadth-first: the queue starts with every node without predecessor, in byte order;
//     after emitting the head, the successors that just lost their last predecessor join the tail, in byte
//     order (a FIFO, not a priority queue: [a,b,c] + [a,z] gives a,b,z,c);
//   - the source, when it comes out last, is dropped (containers/image always tries it last anyway).
//
// Two defects of the reference are fixed (semantics §7.1): a list that repeats a mirror is read with the
// repeat removed, and when conflicting lists form a cycle, the cycle is broken with the byte-smallest
// remaining mirror, never with the source while a mirror remains, so the source never ends up ahead of
// mirrors nobody ordered after it.
func orderMirrors(source string, lists [][]string) []string {
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
	out := g.sorted(src)
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

// edge adds from -> to once; repeated constraints are one edge, as in the reference.
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

// withoutRepeats returns list with later repeats of a mirror removed.
func withoutRepeats(list []string) []string {
	seen := make(map[string]struct{}, len(list))
	out := list[:0:0]
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
