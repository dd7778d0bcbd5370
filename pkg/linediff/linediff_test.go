package linediff_test

import (
	"slices"
	"testing"

	"github.com/openshift/registries-controller/pkg/linediff"
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string
		want []string
	}{
		{"the same text has none", "a\nb\n", "a\nb\n", nil},
		{"a line replaced: the removal first", "a\nb\nc\n", "a\nx\nc\n", []string{"- b", "+ x"}},
		{"a line added at the end", "a\n", "a\nb\n", []string{"+ b"}},
		{"lines reordered", "a\nb\n", "b\na\n", []string{"- a", "+ a"}},
		{"an empty side", "", "a\n", []string{"+ a"}},
		{"a repeated line counts twice", "a\na\n", "a\n", []string{"- a"}},
		{"a missing final newline is no change of the last line", "a\nb", "a\nb\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := linediff.Text([]byte(tc.a), []byte(tc.b)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
