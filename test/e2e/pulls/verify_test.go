package pulls

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/test/framework"
)

// The tests of `registries-controller verify` run the binary against registries on loopback, as an admin would run
// it before an upgrade, and check its answer, its exit status and that it never prints a credential.

// verifyRun is one run of the binary: its output and exit status.
type verifyRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runRegistriesController runs the registries-controller binary with args and returns what it printed and its exit
// status; it fails the test when the binary cannot run.
func runRegistriesController(t *testing.T, args ...string) verifyRun {
	t.Helper()
	bin, err := framework.ControllerBinary()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r := verifyRun{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", bin, err)
	}
	t.Logf("registries-controller %s: exit %d in %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.took, r.stdout, r.stderr)
	return r
}

func (r verifyRun) mustContain(t *testing.T, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(r.stdout, p) {
			t.Errorf("the output lacks %q", p)
		}
	}
}

// trustDir returns a certs.d directory trusting cert for each host (HOST:PORT/ca.crt), as a node's
// /etc/containers/certs.d, and a SystemContext that pushes to those hosts.
func trustDir(t *testing.T, cert *serverCert, hosts ...string) (string, *types.SystemContext) {
	t.Helper()
	dir := t.TempDir()
	for _, h := range hosts {
		writeTestFile(t, filepath.Join(dir, h, "ca.crt"), cert.certPEM)
	}
	push := &types.SystemContext{
		SystemRegistriesConfPath:    filepath.Join(t.TempDir(), "registries.conf"),
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		DockerPerHostCertDirPath:    dir,
		AuthFilePath:                filepath.Join(t.TempDir(), "auth.json"),
	}
	writeTestFile(t, push.SystemRegistriesConfPath, nil)
	return dir, push
}

// TestVerifyNamesTheReleaseImageAMirrorLacksUnderNeverContactSource assembles a release payload (framework.
// StartReleaseMirror): three images and a release image whose image-references names them by digest at the source.
// The mirror of an ImageDigestMirrorSet with NeverContactSource holds the release image and two of the three.
// verify --release-image reads the payload through the mirror, exits 1, names the missing image and the entry, and
// once the image is mirrored, exits 0.
func TestVerifyNamesTheReleaseImageAMirrorLacksUnderNeverContactSource(t *testing.T) {
	m := framework.StartReleaseMirror(t, []string{"cli", "installer", "machine-config-operator"}, "machine-config-operator")
	missing := m.Images["machine-config-operator"]
	manifests := t.TempDir()
	writeTestFile(t, filepath.Join(manifests, "release.yaml"), []byte(m.MirrorSet("release")))
	args := []string{"verify", "--release-image", m.Release, "--manifests", manifests, "--certs-dir", m.CertsDir}

	r := runRegistriesController(t, args...)
	if r.code != 1 {
		t.Errorf("exit status %d, want 1 (a pull fails)", r.code)
	}
	if !strings.HasPrefix(r.stdout, "FAILS: "+missing+` (release image-references "machine-config-operator")`) {
		t.Errorf("the output does not start with the failing pull of %s", missing)
	}
	mirrored := strings.Replace(missing, m.Source, m.Mirror.Host, 1)
	r.mustContain(t,
		"  1. mirror "+mirrored+": not found (HTTP 404)",
		"  2. source "+missing+": not tried: blocked",
		"summary: 4 images: 3 served, 0 served only by the source, 1 fail",
		"NeverContactSource entries whose mirrors lack an image (an outage waiting for its trigger):\n  "+m.Source+
			`/ocp/art (mirrorSourcePolicy NeverContactSource for source "`+m.Source+`/ocp/art" (ImageDigestMirrorSet "release" spec.imageDigestMirrors[1])): 1 image(s)`+"\n    "+missing+"\n",
		"images no place serves: 1\n  "+missing+"\n",
	)

	m.PushMissing(t, "machine-config-operator")
	r = runRegistriesController(t, args...)
	if r.code != 0 {
		t.Errorf("with every image mirrored: exit status %d, want 0", r.code)
	}
	r.mustContain(t, "summary: 4 images: 4 served, 0 served only by the source, 0 fail\n")
}

// TestVerifyAsksAMirrorThatRequiresALoginWithTheNodesPullSecret: without --authfile the mirror answers 401 and the
// pull fails; with the pull secret the mirror serves it, and neither the password nor its encoding is printed.
func TestVerifyAsksAMirrorThatRequiresALoginWithTheNodesPullSecret(t *testing.T) {
	cert := newServerCert(t)
	mirror := startRegistryWithAuth(t, cert, mirrorHtpasswd)
	certsDir, push := trustDir(t, cert, mirror.Host)
	push.AuthFilePath = pullSecret(t, mirror.Host)
	img := framework.NewLayoutImage(t, nil)
	img.Push(t, push, mirror.Host+"/team/app:v1")

	conf := filepath.Join(t.TempDir(), "registries.conf")
	writeTestFile(t, conf, []byte(fmt.Sprintf(`
[[registry]]
  location = "source.invalid/team"
  blocked = true
  [[registry.mirror]]
    location = "%s/team"
`, mirror.Host)))
	list := filepath.Join(t.TempDir(), "images.txt")
	ref := "source.invalid/team/app@" + img.Digest.String()
	writeTestFile(t, list, []byte(ref+"\n"))

	r := runRegistriesController(t, "verify", "-f", list, "--config", conf, "--certs-dir", certsDir)
	if r.code != 1 {
		t.Errorf("without credentials: exit status %d, want 1", r.code)
	}
	r.mustContain(t, "unauthorized (HTTP 401: the registry requires authentication and there are no credentials for it), without credentials")

	r = runRegistriesController(t, "verify", "-f", list, "--config", conf, "--certs-dir", certsDir, "--authfile", push.AuthFilePath, "-o", "json")
	if r.code != 0 {
		t.Errorf("with the pull secret: exit status %d, want 0", r.code)
	}
	r.mustContain(t, `"answer": "has it"`, `"credentials": "auth file entry \"`+mirror.Host+`\""`)
	for _, secret := range []string{mirrorPassword, "ZTJlOmUyZS1zZWNyZXQ="} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("the output carries a credential (%q)", secret)
		}
	}
}

// TestVerifyNamesAClosedPortAnUnknownCAAndADigestOnlyMirrorNotTried: one registries.conf, four places for one image
// by tag and one by digest. A mirror on a closed port is unreachable, a TLS mirror whose CA is not trusted is a TLS
// failure naming the unknown authority (and, marked insecure, serves the pull), a digest-only mirror is not tried
// for the tag, and all within the per-request timeout.
func TestVerifyNamesAClosedPortAnUnknownCAAndADigestOnlyMirrorNotTried(t *testing.T) {
	cert := newServerCert(t)
	untrusted := startRegistry(t, cert)
	insecureHost := startRegistry(t, cert)
	_, push := trustDir(t, cert, untrusted.Host, insecureHost.Host)
	img := framework.NewLayoutImage(t, nil)
	img.Push(t, push, untrusted.Host+"/team/app:v1")
	img.Push(t, push, insecureHost.Host+"/team/app:v1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	conf := filepath.Join(t.TempDir(), "registries.conf")
	writeTestFile(t, conf, []byte(fmt.Sprintf(`
[[registry]]
  location = "source.invalid/team"
  blocked = true
  [[registry.mirror]]
    location = "%[1]s/team"
  [[registry.mirror]]
    location = "%[2]s/team"
  [[registry.mirror]]
    location = "%[2]s/team"
    pull-from-mirror = "digest-only"
  [[registry.mirror]]
    location = "%[3]s/team"
    insecure = true
`, closed, untrusted.Host, insecureHost.Host)))
	list := filepath.Join(t.TempDir(), "images.txt")
	writeTestFile(t, list, []byte("source.invalid/team/app:v1\nsource.invalid/team/app@"+img.Digest.String()+"\n"))

	r := runRegistriesController(t, "verify", "-f", list, "--config", conf, "--timeout", "2s")
	if r.code != 0 {
		t.Errorf("exit status %d, want 0 (the insecure mirror serves both)", r.code)
	}
	r.mustContain(t,
		"SERVED: source.invalid/team/app:v1",
		"  1. mirror "+closed+"/team/app:v1: unreachable (connection refused)",
		"  2. mirror "+untrusted.Host+"/team/app:v1: TLS failure (certificate signed by an unknown authority",
		"  3. mirror "+insecureHost.Host+"/team/app:v1: has it",
		`  not tried: mirror "`+untrusted.Host+`/team" (digest-only: the reference is by tag)`,
		"  3. mirror "+untrusted.Host+"/team/app@"+img.Digest.String()+": TLS failure",
		"summary: 2 images: 2 served, 0 served only by the source, 0 fail",
	)
	if r.took > 20*time.Second {
		t.Errorf("took %v: the 2s per-request timeout does not bound it", r.took)
	}
}
