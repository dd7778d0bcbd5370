// Package readme reads and runs the checked examples of README.md: a fenced block after a
// `<!-- checked: offline -->`, `<!-- checked: live -->` or `<!-- checked: registry -->` (offline, with a release
// payload on a mirror on loopback) comment, whose lines starting with "$ " are commands and whose other lines are what
// the command before them prints on stdout ("…" standing for what differs between runs). The offline examples run in
// cmd/registries-controller's tests (make unit), the live and registry ones in test/integration's.
package readme

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Offline, Live and Registry are the markers of the three kinds of checked example.
const (
	Offline  = "<!-- checked: offline -->"
	Live     = "<!-- checked: live -->"
	Registry = "<!-- checked: registry -->"
)

// Block is one checked example.
type Block struct {
	// Live is true for an example that reads a cluster.
	Live bool
	// Registry is true for an offline example that reads a release payload from a mirror on loopback.
	Registry bool
	// Line is the line of the block's first command in README.md.
	Line int
	// Steps are the commands, in order, each with the output the README shows.
	Steps []Step
}

// Step is one command of a Block and the lines it prints on stdout.
type Step struct {
	Command string
	Want    []string
}

// ReadExamples returns the checked examples of root/README.md, root being the repository's root.
func ReadExamples(root string) ([]Block, error) {
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	return Blocks(string(text))
}

// Blocks returns the checked examples of a README, in order; an error names the line of a malformed one.
func Blocks(readme string) ([]Block, error) {
	var blocks []Block
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		marker := strings.TrimSpace(lines[i])
		if marker != Offline && marker != Live && marker != Registry {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("README.md:%d: a checked marker must come right before a fenced block", i+1)
		}
		b := Block{Live: marker == Live, Registry: marker == Registry, Line: i + 3}
		for j := i + 2; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			switch {
			case strings.HasPrefix(lines[j], "$ "):
				b.Steps = append(b.Steps, Step{Command: strings.TrimPrefix(lines[j], "$ ")})
			case len(b.Steps) == 0:
				return nil, fmt.Errorf("README.md:%d: a checked block starts with a command", j+1)
			default:
				last := &b.Steps[len(b.Steps)-1]
				last.Want = append(last.Want, lines[j])
			}
			i = j
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// Lines splits a command's output into the lines Match compares: none for no output.
func Lines(out string) []string {
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// Match reports whether got matches want: line by line, "…" in a line standing for any text, and a line that is
// only "…" for any number of lines.
func Match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "…" {
		for k := 0; k <= len(got); k++ {
			if Match(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && Match(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	parts := strings.Split(want, "…")
	if len(parts) == 1 {
		return want == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, parts[len(parts)-1])
}

// RunCommand runs one README command with bash in dir, with env, for at most two minutes, and returns its stdout and exit
// status; "echo $?" prints lastCode, the previous command's exit status. An error means the command could not run.
func RunCommand(dir string, env []string, command string, lastCode int) (string, int, error) {
	if command == "echo $?" {
		return fmt.Sprintf("%d\n", lastCode), 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return stdout.String(), exit.ExitCode(), nil
	case err != nil:
		return "", 0, fmt.Errorf("$ %s: %w: %s", command, err, stderr.String())
	}
	return stdout.String(), 0, nil
}

// RunExamples runs the commands of blocks, in order, in dir with env (RunCommand), and reports on t every command whose
// stdout does not have the shape the README shows; with README_PRINT set it logs what each command printed, to update
// the README from. A cluster converges: a command of a live block (they only read) runs again for up to converge
// until it prints what the README shows, e.g. an event recorded just after the rollout it reports ("echo $?" does
// not: it reports the command before it).
func RunExamples(t testing.TB, dir string, env []string, blocks []Block, converge time.Duration) {
	t.Helper()
	lastCode := 0
	for _, b := range blocks {
		for _, s := range b.Steps {
			retry := b.Live && s.Command != "echo $?"
			got, code, ok := runStep(t, dir, env, s, lastCode, retry, converge)
			lastCode = code
			if os.Getenv("README_PRINT") != "" {
				t.Logf("README.md:%d $ %s\n%s", b.Line, s.Command, got)
			}
			if !ok {
				t.Errorf("README.md:%d: $ %s\nprinted:\n%s\nthe README shows:\n%s", b.Line, s.Command, got, strings.Join(s.Want, "\n"))
			}
		}
	}
}

// runStep runs s, again every half second for up to converge while retry is true and it does not print what the
// README shows, and returns its last stdout, its exit status and whether the stdout matches.
func runStep(t testing.TB, dir string, env []string, s Step, lastCode int, retry bool, converge time.Duration) (string, int, bool) {
	t.Helper()
	deadline := time.Now().Add(converge)
	for {
		got, code, err := RunCommand(dir, env, s.Command, lastCode)
		if err != nil {
			t.Fatal(err)
		}
		ok := Match(s.Want, Lines(got))
		if ok || !retry || !time.Now().Before(deadline) {
			return got, code, ok
		}
		time.Sleep(500 * time.Millisecond)
	}
}
