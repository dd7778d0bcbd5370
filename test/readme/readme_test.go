package readme

import (
	"strings"
	"testing"
)

func TestAnEllipsisStandsForAnyTextInALineAndAnyLinesAlone(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		match     bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"live after …s", "live after 12.5s", true},
		{"live after …s", "live after 12.5m", false},
		{"a\n…\nd", "a\nb\nc\nd", true},
		{"a\n…\nd", "a\nd", true},
		{"a\n…", "b", false},
		{"", "", true},
		{"", "x", false},
	} {
		if got := Match(Lines(tc.want), Lines(tc.got)); got != tc.match {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.match)
		}
	}
}

func TestABlockIsTheCommandsAfterAMarkerAndTheirOutput(t *testing.T) {
	text := strings.Join([]string{"intro", Offline, "```", "$ echo hi", "hi", "$ echo $?", "0", "```", Live, "```", "$ wait", "```"}, "\n")
	blocks, err := Blocks(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0].Live || !blocks[1].Live || blocks[0].Line != 4 ||
		len(blocks[0].Steps) != 2 || blocks[0].Steps[0].Command != "echo hi" || strings.Join(blocks[0].Steps[0].Want, "|") != "hi" {
		t.Errorf("blocks %+v", blocks)
	}
	if _, err := Blocks(Offline + "\nnot a fence"); err == nil || !strings.Contains(err.Error(), "README.md:1: a checked marker must come right before a fenced block") {
		t.Errorf("a marker without a block: %v", err)
	}
}
