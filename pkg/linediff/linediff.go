// Package linediff compares two texts line by line: the one line diff of the project, used where a person reads
// what changed in a file or an answer (`explain`'s answer before and after a rollout, `migrate-icsp`'s proof,
// `diff` and `preview` of files no rule reads).
//
//	linediff.Text([]byte("a\nb\nc\n"), []byte("a\nc\nd\n")) // ["- b", "+ d"]
package linediff

import "strings"

// Lines returns the lines only x holds, as "- line", and those only y holds, as "+ line", in order, by a longest
// common subsequence: a removal comes before the addition that replaces it. It is quadratic in the lines, for
// texts people read (files of a few hundred lines at most).
func Lines(x, y []string) []string {
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

// Text returns Lines of a and b split at newlines, a final newline not counting as an empty last line.
func Text(a, b []byte) []string {
	return Lines(split(a), split(b))
}

func split(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}
