package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/registryprobe"
	"github.com/openshift/registries-controller/pkg/verify"
	"github.com/openshift/registries-controller/test/framework"
)

// TestVerifyRunningAsksThePoolsMirrorForEachPodImageOnce: images pushed to a mirror on loopback, an
// ImageDigestMirrorSet with NeverContactSource for their source applied and the controller's MachineConfig live on
// the pool; pods created with kubectl in two namespaces name them (an init container too, one image in two pods).
// verify --kubeconfig --running lists each image once, with the pods that run it, asks the mirror the pool's
// configuration names and exits 0. A pod naming an image the mirror lacks: exit 1, the image, its pod and the
// NeverContactSource entry named.
func TestVerifyRunningAsksThePoolsMirrorForEachPodImageOnce(t *testing.T) {
	cp.Reset(t)
	m := framework.StartReleaseMirror(t, []string{"api", "setup", "web", "late"}, "late")
	idms := filepath.Join(t.TempDir(), "idms.yaml")
	if err := os.WriteFile(idms, []byte(m.MirrorSet("verify-running")), 0o600); err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "apply", "-f", idms)
	startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}

	const nsA, nsB = "verify-running-a", "verify-running-b"
	pods := `apiVersion: v1
kind: Namespace
metadata:
  name: ` + nsA + `
---
apiVersion: v1
kind: Namespace
metadata:
  name: ` + nsB + `
---
apiVersion: v1
kind: Pod
metadata:
  name: api
  namespace: ` + nsA + `
spec:
  initContainers:
  - name: setup
    image: ` + m.Images["setup"] + `
  containers:
  - name: api
    image: ` + m.Images["api"] + `
  - name: sidecar
    image: ` + m.Images["web"] + `
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: ` + nsB + `
spec:
  containers:
  - name: web
    image: ` + m.Images["web"] + `
`
	file := filepath.Join(t.TempDir(), "pods.yaml")
	if err := os.WriteFile(file, []byte(pods), 0o600); err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "apply", "-f", file)
	t.Cleanup(func() {
		// No kubelet: pods bound to no node go at once; no namespace controller: the namespaces stay Terminating.
		cp.RunKubectl(t, "delete", "pods", "--all", "-n", nsA)
		cp.RunKubectl(t, "delete", "pods", "--all", "-n", nsB)
		cp.RunKubectl(t, "delete", "namespace", nsA, nsB, "--wait=false")
	})

	verifyRunning := func(t *testing.T, args ...string) (string, int) {
		t.Helper()
		stdout, stderr, code := runBinary(t, append([]string{"verify", "--kubeconfig", cp.KubeconfigPath, "--running",
			"--certs-dir", m.CertsDir}, args...)...)
		t.Logf("verify --running %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout, stderr)
		return stdout, code
	}

	t.Run("every image on the mirror: each once, asked at the mirror, exit 0", func(t *testing.T) {
		stdout, code := verifyRunning(t, "-o", "json")
		if code != 0 {
			t.Errorf("exit %d, want 0", code)
		}
		var report verify.Report
		if err := json.Unmarshal([]byte(stdout), &report); err != nil {
			t.Fatalf("-o json: %v", err)
		}
		want := map[string][]string{
			m.Images["setup"]: {"pod " + nsA + "/api"},
			m.Images["api"]:   {"pod " + nsA + "/api"},
			m.Images["web"]:   {"pod " + nsA + "/api", "pod " + nsB + "/web"},
		}
		if len(report.Images) != len(want) {
			t.Errorf("%d images checked, want %d (each once)", len(report.Images), len(want))
		}
		for _, img := range report.Images {
			from, ok := want[img.Reference]
			if !ok {
				t.Errorf("checked %s, which no pod of the test names", img.Reference)
				continue
			}
			delete(want, img.Reference)
			if strings.Join(img.From, "; ") != strings.Join(from, "; ") {
				t.Errorf("%s: from %q, want %q", img.Reference, img.From, from)
			}
			if img.Verdict != verify.Served {
				t.Errorf("%s: %s, want %s", img.Reference, img.Verdict, verify.Served)
			}
			// The pool's configuration: the mirror first, the source blocked by the ImageDigestMirrorSet.
			mirrored := strings.Replace(img.Reference, m.Source, m.Mirror.Host, 1)
			if len(img.Places) != 2 || img.Places[0].Reference != mirrored || img.Places[0].Result == nil ||
				img.Places[0].Result.Answer != registryprobe.Has || !img.Places[1].Source || img.Places[1].NotTried == "" {
				t.Errorf("%s: places %+v, want the mirror %s answering %q, then the source not tried", img.Reference, img.Places, mirrored, registryprobe.Has)
			}
			if len(img.BlockedBy) == 0 {
				t.Errorf("%s: the source is not blocked", img.Reference)
			}
		}
		for ref := range want {
			t.Errorf("%s (named by a pod) not checked", ref)
		}
		text, code := verifyRunning(t)
		if want := "summary: 3 images: 3 served, 0 served only by the source, 0 fail\n"; code != 0 || text != want {
			t.Errorf("text: exit %d, want 0 and only %q", code, want)
		}
	})

	t.Run("a pod naming an image the mirror lacks: exit 1, the image and the entry named", func(t *testing.T) {
		late := `apiVersion: v1
kind: Pod
metadata:
  name: late
  namespace: ` + nsB + `
spec:
  containers:
  - name: late
    image: ` + m.Images["late"] + `
`
		if _, _, err := cp.Kubectl(t.Context(), strings.NewReader(late), "apply", "-f", "-"); err != nil {
			t.Fatal(err)
		}
		stdout, code := verifyRunning(t)
		if code != 1 {
			t.Errorf("exit %d, want 1", code)
		}
		lacking := strings.Replace(m.Images["late"], m.Source, m.Mirror.Host, 1)
		for _, want := range []string{
			"FAILS: " + m.Images["late"] + " (pod " + nsB + "/late)\n",
			"  1. mirror " + lacking + ": not found (HTTP 404)\n",
			"summary: 4 images: 3 served, 0 served only by the source, 1 fail\n",
			"NeverContactSource entries whose mirrors lack an image (an outage waiting for its trigger):\n  " + m.Source + "/ocp/art (",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q", want)
			}
		}
		if !strings.HasPrefix(stdout, "FAILS: ") {
			t.Errorf("the failing pull is not first")
		}
	})
}
