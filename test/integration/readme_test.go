package integration

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

	"github.com/openshift/registries-controller/test/framework"
)

// readmeBlock is one example of the README checked by TestTheREADMEExamples: a fenced block after a
// `<!-- checked: offline -->`, `<!-- checked: live -->` or `<!-- checked: registry -->` (offline, with a release
// payload on a mirror on loopback: releaseMirrorForREADME) comment, whose lines starting with "$ " are commands and
// whose other lines are what the command before them prints on stdout.
type readmeBlock struct {
	live     bool
	registry bool
	line     int // of the block's first line in README.md
	steps    []readmeStep
}

type readmeStep struct {
	command string
	want    []string
}

// readmeBlocks returns the checked examples of README.md, in order.
func readmeBlocks(t *testing.T, readme string) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		marker := strings.TrimSpace(lines[i])
		if marker != "<!-- checked: offline -->" && marker != "<!-- checked: live -->" && marker != "<!-- checked: registry -->" {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("README.md:%d: a checked marker must come right before a fenced block", i+1)
		}
		b := readmeBlock{live: marker == "<!-- checked: live -->", registry: marker == "<!-- checked: registry -->", line: i + 3}
		for j := i + 2; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			switch {
			case strings.HasPrefix(lines[j], "$ "):
				b.steps = append(b.steps, readmeStep{command: strings.TrimPrefix(lines[j], "$ ")})
			case len(b.steps) == 0:
				t.Fatalf("README.md:%d: a checked block starts with a command", j+1)
			default:
				last := &b.steps[len(b.steps)-1]
				last.want = append(last.want, lines[j])
			}
			i = j
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// matchOutput reports whether got matches want: line by line, "…" in a line standing for any text, and a line that
// is only "…" for any number of lines.
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "…" {
		for k := 0; k <= len(got); k++ {
			if matchOutput(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchOutput(want[1:], got[1:])
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

// TestTheREADMEExamples runs every checked example of README.md, in order, in one directory holding a copy of
// examples/, with the built binary and the bundled kubectl on PATH: the offline ones as they are, the live ones
// against this package's control plane with the controller and the simulated MCO running and examples/ applied
// (what `make run` gives). Each command's stdout must have the shape the README shows, so the README cannot
// silently rot. `README_PRINT=1` prints what each command printed, to update the README from.
func TestTheREADMEExamples(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme))
	if len(blocks) < 5 {
		t.Fatalf("%d checked examples in README.md: every subcommand's example should be checked", len(blocks))
	}
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples"), dir).CombinedOutput(); err != nil {
		t.Fatalf("copying examples/: %v: %s", err, out)
	}
	bin := t.TempDir()
	for name, target := range map[string]string{"registries-controller": controllerBinary(t), "kubectl": filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")} {
		if err := os.Symlink(target, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG=/nonexistent")
	liveStarted, mirrorStarted := false, false
	lastCode := 0
	for _, b := range blocks {
		if b.registry && !mirrorStarted {
			mirrorStarted = true
			env = append(env, releaseMirrorForREADME(t, dir)...)
		}
		if b.live && !liveStarted {
			liveStarted = true
			cp.Reset(t)
			cp.RunKubectl(t, "apply", "-f", filepath.Join(root, "examples"))
			startSim(t)
			startInProcess(t, cp.RESTConfig, fastSettle, 0)
			env = append(env, "KUBECONFIG="+cp.KubeconfigPath)
		}
		for _, s := range b.steps {
			// A cluster converges: a live command (they only read) runs again for up to 20 s until it prints what
			// the README shows, e.g. an event recorded just after the rollout it reports.
			deadline := time.Now().Add(20 * time.Second)
			for {
				got, code := runReadmeCommand(t, dir, env, s.command, lastCode)
				lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
				if got == "" {
					lines = nil
				}
				ok := matchOutput(s.want, lines)
				if !ok && b.live && s.command != "echo $?" && time.Now().Before(deadline) {
					time.Sleep(500 * time.Millisecond)
					continue
				}
				lastCode = code
				if os.Getenv("README_PRINT") != "" {
					t.Logf("README.md:%d $ %s\n%s", b.line, s.command, got)
				}
				if !ok {
					t.Errorf("README.md:%d: $ %s\nprinted:\n%s\nthe README shows:\n%s", b.line, s.command, got, strings.Join(s.want, "\n"))
				}
				break
			}
		}
	}
}

// runReadmeCommand runs one README command with bash in dir; "echo $?" prints the previous command's exit status.
func runReadmeCommand(t *testing.T, dir string, env []string, command string, lastCode int) (string, int) {
	t.Helper()
	if command == "echo $?" {
		return fmt.Sprintf("%d\n", lastCode), 0
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
		return stdout.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("$ %s: %v: %s", command, err, stderr.String())
	}
	return stdout.String(), 0
}

// releaseMirrorForREADME starts the mirror the README's verify example asks: a release payload of three images
// (framework.StartReleaseMirror) whose mirror lacks "machine-config-operator", the ImageDigestMirrorSet
// "release-mirror" in dir/mirrored/, and the mirror's CA in dir/certs.d/. It returns RELEASE_IMAGE=<the release
// image at the source>, for the example's environment.
func releaseMirrorForREADME(t *testing.T, dir string) []string {
	t.Helper()
	m := framework.StartReleaseMirror(t, []string{"cli", "installer", "machine-config-operator"}, "machine-config-operator")
	if err := os.MkdirAll(filepath.Join(dir, "mirrored"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mirrored", "release-mirror.yaml"), []byte(m.MirrorSet("release-mirror")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", m.CertsDir, filepath.Join(dir, "certs.d")).CombinedOutput(); err != nil {
		t.Fatalf("copying the mirror's certs.d: %v: %s", err, out)
	}
	return []string{"RELEASE_IMAGE=" + m.Release}
}
