package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift/registries-controller/pkg/initgc"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/readme"
)

// envRunAsCommand=1 makes this test binary run as registries-controller (see TestMain): the README's offline
// examples call the command by name, and this runs the same main without building a binary, so `make unit` runs
// them.
const envRunAsCommand = "REGISTRIES_CONTROLLER_TEST_RUN_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(envRunAsCommand) == "1" {
		os.Args[0] = "registries-controller"
		main()
		os.Exit(0)
	}
	// main gives the collector back its setting (pkg/initgc); the tests run without main, so they do it here.
	initgc.Restore()
	os.Exit(m.Run())
}

// TestTheREADMEsOfflineExamples runs every offline example of README.md (`<!-- checked: offline -->`; the live
// and registry ones run in test/integration), in order, in one directory holding a copy of examples/,
// with this test binary on PATH as registries-controller. Each command's stdout must have the shape the README
// shows, so the README cannot silently rot. `README_PRINT=1` prints what each command printed, to update the README
// from.
func TestTheREADMEsOfflineExamples(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := readme.ReadExamples(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 5 {
		t.Fatalf("%d checked examples in README.md: every subcommand's example should be checked", len(blocks))
	}
	var offline []readme.Block
	for _, b := range blocks {
		if !b.Live && !b.Registry {
			offline = append(offline, b)
		}
	}
	if len(offline) == 0 {
		t.Fatal("README.md has no offline example (<!-- checked: offline -->)")
	}
	// Copied in Go, not with cp, so that the test cache sees the files: a changed example runs this test again.
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatalf("copying examples/: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "registries-controller")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "KUBECONFIG=/nonexistent", envRunAsCommand+"=1")
	readme.RunExamples(t, dir, env, offline, 0)
}
