package hostile

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// The corpus through `render`: exit 1, every problem printed with its field and value, nothing written, for every
// rejected case; files that containers/image loads for every other.
func TestRenderRejectsEveryHostileInputAtItsFieldAndWritesNothing(t *testing.T) {
	bin, err := framework.ControllerBinary()
	if err != nil {
		t.Fatal(err)
	}
	var inputs, nRejected, written, unloadable int
	for _, tc := range corpus() {
		inputs++
		dir := t.TempDir()
		manifests, out, nodeRoot := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "node")
		if err := os.Mkdir(manifests, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, o := range tc.objects {
			data, err := json.Marshal(o.body)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(manifests, strconv.Itoa(i)+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "render", "--manifests", manifests, "--output", out, "--node-root", nodeRoot,
			"--release-image", fixtures.ReleaseImage)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		entries, _ := os.ReadDir(out)
		written += len(entries)
		switch tc.want {
		case rejected:
			if code != 1 || len(entries) != 0 {
				t.Errorf("%s: exit %d (%v), %d files written; want exit 1 and nothing written\n%s", tc.name, code, err, len(entries), clip(stderr.String()))
				continue
			}
			ok := true
			for _, a := range tc.at {
				if !reports(stderr.String(), a) {
					ok = false
					t.Errorf("%s: render did not report %s %q %s %q:\n%s", tc.name, a.kind, a.name, a.field, clip(a.value), clip(stderr.String()))
				}
			}
			if ok {
				nRejected++
			}
		default:
			if code != 0 {
				t.Errorf("%s: exit %d: %s", tc.name, code, clip(stderr.String()))
				continue
			}
			if tc.want == notApplied && !reports(stderr.String(), tc.at[0]) {
				t.Errorf("%s: no warning naming %s %q:\n%s", tc.name, tc.at[0].field, tc.at[0].value, clip(stderr.String()))
			}
			unloadable += loadNodeFiles(t, tc.name, nodeRoot)
		}
	}
	t.Logf("render: %d hostile inputs; %d rejected at the right field with nothing written; %d MachineConfig files written "+
		"for the others; %d node files containers/image cannot load", inputs, nRejected, written, unloadable)
}

// reports tells whether output names the problem at a: its object, field and (quoted, as problems print values)
// value. An empty value is not checked (a problem of the whole field).
//
// The project's own checks print the value right after the field; the API server's (a CRD's rule, the same
// words offline) print it after their verdict, e.g. `spec.x: Invalid value: "v": ...`.
func reports(output string, a at) bool {
	prefix := a.kind + ` "` + a.name + `": ` + a.field + ": "
	withValue := a.value != "" || strings.HasSuffix(a.field, "]")
	for _, line := range strings.Split(output, "\n") {
		i := strings.Index(line, prefix)
		if i < 0 {
			continue
		}
		rest := line[i+len(prefix):]
		// The API server leaves a value too long to print out of its message.
		if !withValue || strings.HasPrefix(rest, strconv.Quote(a.value)) || strings.HasPrefix(rest, "Too long: ") ||
			(strings.HasSuffix(rest[:strings.Index(rest+":", ":")], "value") && strings.Contains(rest, strconv.Quote(a.value))) {
			return true
		}
	}
	return false
}

// loadNodeFiles loads every registries.conf and policy.json under root with containers/image, and returns how
// many failed.
func loadNodeFiles(t *testing.T, name, root string) int {
	t.Helper()
	failed := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Base(path) {
		case "registries.conf":
			ctx := &types.SystemContext{SystemRegistriesConfPath: path, SystemRegistriesConfDirPath: filepath.Join(filepath.Dir(path), "registries.conf.d")}
			if _, err := sysregistriesv2.TryUpdatingCache(ctx); err != nil {
				failed++
				t.Errorf("%s: %s does not load: %v", name, path, err)
			}
			sysregistriesv2.InvalidateCache()
		case "policy.json":
			if _, err := signature.NewPolicyFromFile(path); err != nil {
				failed++
				t.Errorf("%s: %s does not load: %v", name, path, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return failed
}

// clip keeps long values and outputs readable in failures.
func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
