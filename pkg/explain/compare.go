package explain

import (
	"bytes"

	"github.com/openshift/registries-controller/pkg/linediff"
)

// Differences says how the explanation b differs from a, e.g. the answer once a newer configuration is live: the
// lines of a's text that b's does not hold, as "- line", and b's that a's does not, as "+ line", in the order
// of the texts (a longest common subsequence of lines is kept). Nil when both say the same.
func AnswerChanges(a, b *Explanation) ([]string, error) {
	var ta, tb bytes.Buffer
	if err := a.WriteText(&ta); err != nil {
		return nil, err
	}
	if err := b.WriteText(&tb); err != nil {
		return nil, err
	}
	return linediff.Text(ta.Bytes(), tb.Bytes()), nil
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
