package explain

import (
	"bytes"
	"strings"
)

// Differences says how the explanation b differs from a, e.g. the answer once a newer configuration is live: the
// lines of a's text that b's does not hold, as "- line", and b's that a's does not, as "+ line", in the order
// of the texts (a longest common subsequence of lines is kept). Nil when both say the same.
func Differences(a, b *Explanation) ([]string, error) {
	var ta, tb bytes.Buffer
	if err := a.WriteText(&ta); err != nil {
		return nil, err
	}
	if err := b.WriteText(&tb); err != nil {
		return nil, err
	}
	return lineDiff(strings.Split(strings.TrimSuffix(ta.String(), "\n"), "\n"), strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")), nil
}

// lineDiff returns the removed and added lines between x and y, by a longest common subsequence, a removal
// before the addition that replaces it. Explanations are a few dozen lines, so the quadratic table is small.
func lineDiff(x, y []string) []string {
	// lcs[i][j] is the length of a longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+x[i])
			i++
		default:
			out = append(out, "+ "+y[j])
			j++
		}
	}
	return out
}

// WithoutProvenance returns a copy of e that names no object (the provenance of entries, mirrors, blocked and
// insecure settings and signature scopes): what e says of the files alone, to compare with an explanation of other
// files, whose objects are not known.
func (e *Explanation) WithoutProvenance() *Explanation {
	out := *e
	if e.Entry != nil {
		entry := *e.Entry
		entry.InheritedFrom, entry.BlockedBy = "", nil
		out.Entry = &entry
	}
	out.Attempts = make([]Attempt, len(e.Attempts))
	for i, a := range e.Attempts {
		a.Origins, a.BlockedBy, a.InsecureBy = nil, nil, nil
		out.Attempts[i] = a
	}
	if e.Signatures != nil {
		s := *e.Signatures
		s.Origins = nil
		out.Signatures = &s
	}
	return &out
}
