package inputs

import (
	"fmt"
	"strings"
)

// defaultShown is how many problems of a group Format lists before "and N more", unless told otherwise.
const defaultShown = 5

// ProblemGroup is problems that say the same thing (the same message and fix) about different values, e.g. 100
// blocked registries not applied because the release payload is unknown.
type ProblemGroup struct {
	// Message and Fix are what every problem of the group says.
	Message, Fix string
	// Problems are the group's problems, in the order given to GroupProblems.
	Problems []Problem
}

// GroupProblems groups problems by message and fix. Groups come in the order of their first problem.
func GroupProblems(ps []Problem) []ProblemGroup {
	type key struct{ message, fix string }
	index := map[key]int{}
	var groups []ProblemGroup
	for _, p := range ps {
		k := key{p.Message, p.Fix}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, ProblemGroup{Message: p.Message, Fix: p.Fix})
		}
		groups[i].Problems = append(groups[i].Problems, p)
	}
	return groups
}

// GroupFormat says how Format prints groups.
type GroupFormat struct {
	// Shown is how many problems of a group are listed before "and N more"; 0 means defaultShown, and a negative
	// value lists every problem.
	Shown int
	// OnObject leaves the object out of every line, for an event recorded on that object (see Problem.OnObject).
	OnObject bool
	// More is appended to the "and N more" line, e.g. " (--verbose lists them all)".
	More string
}

// Format returns one text per group. A group of one problem is the problem as Problem.String (or OnObject) says
// it. A larger group is its reason once, then where it applies, one indented line per problem:
//
//	not applied: the release payload is unknown (...); this resolves itself once ... (100 times):
//	  Image "cluster": spec.registrySources.blockedRegistries[0]: "r0.example.com"
//	  ...
//	  Image "cluster": spec.registrySources.blockedRegistries[4]: "r4.example.com"
//	  and 95 more
func (f GroupFormat) Format(groups []ProblemGroup) []string {
	shown := f.Shown
	if shown == 0 {
		shown = defaultShown
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if len(g.Problems) == 1 {
			out = append(out, f.line(g.Problems[0]))
			continue
		}
		var b strings.Builder
		b.WriteString(g.Message)
		if g.Fix != "" {
			b.WriteString("; " + g.Fix)
		}
		fmt.Fprintf(&b, " (%d times):", len(g.Problems))
		for i, p := range g.Problems {
			if shown > 0 && i == shown {
				fmt.Fprintf(&b, "\n  and %d more%s", len(g.Problems)-shown, f.More)
				break
			}
			b.WriteString("\n  " + f.where(p))
		}
		out = append(out, b.String())
	}
	return out
}

func (f GroupFormat) line(p Problem) string {
	if f.OnObject {
		return p.OnObject()
	}
	return p.String()
}

// where names the object (unless OnObject), the field and the value of p, without the message.
func (f GroupFormat) where(p Problem) string {
	s := fmt.Sprintf("%s: %q", p.At.Field, p.Value)
	if f.OnObject {
		return s
	}
	return p.At.Object.String() + ": " + s
}
