package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExplainWithManifestsNamesTheObjectBehindEachMirror(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "objects.yaml"), teamIDMS)
	stdout, stderr, code := runCLI(t, "explain", "--manifests", dir, "quay.io/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	want := `reference: quay.io/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111 (pull by digest)
entry: [[registry]] prefix "quay.io/team", location "quay.io/team"
attempts, in order (the first that has the image serves the pull):
  1. mirror.local/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111
     mirror "mirror.local/team", pull-from-mirror digest-only
     from ImageDigestMirrorSet "team" spec.imageDigestMirrors[0].mirrors[0]
  2. quay.io/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111
     primary location "quay.io/team" (the source)
source: contacted only when every mirror before it fails
`
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
	if !strings.Contains(stderr, "files of pool worker") {
		t.Errorf("stderr does not say which pool's files were used: %q", stderr)
	}
}

func TestExplainWithConfigAndDropIns(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, filepath.Join(dir, "registries.conf"), `unqualified-search-registries = ["docker.io"]
[[registry]]
location = "docker.io/library"
[[registry.mirror]]
location = "mirror.local/library"
pull-from-mirror = "tag-only"
`)
	// The drop-in replaces the docker.io/library entry wholesale, as containers/image does.
	writeFile(t, filepath.Join(dir, "d", "10-block.conf"), `[[registry]]
location = "docker.io/library"
blocked = true
`)
	stdout, stderr, code := runCLI(t, "explain", "--config", conf, "--drop-ins", filepath.Join(dir, "d"), "docker.io/library/busybox:1")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	want := `reference: docker.io/library/busybox:1 (pull by tag)
entry: [[registry]] prefix "docker.io/library", location "docker.io/library", blocked
attempts, in order (the first that has the image serves the pull):
  1. docker.io/library/busybox:1
     primary location "docker.io/library" (the source)
     BLOCKED: refused without contacting it (entry "docker.io/library" is blocked)
source: never contacted: the primary location is blocked, so the pull fails when no mirror has the image
`
	if stdout != want {
		t.Errorf("got\n%s\nwant\n%s", stdout, want)
	}
}

func TestExplainRefusesManifestsTheAPIServerRefusesWithStatus1(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "m", "idms.yaml"), `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata: {name: typo}
spec:
  imageDigestMirrors:
  - source: quay.io/a
    mirorrs: [m.local/a]
`)
	_, stderr, code := runCLI(t, "explain", "--manifests", filepath.Join(dir, "m"), "quay.io/a/b:1")
	if want := `ImageDigestMirrorSet "typo": spec.imageDigestMirrors[0].mirorrs: unknown field "spec.imageDigestMirrors[0].mirorrs"`; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
}

func TestExplainReportsBadInputOnOneLine(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "good.conf"), `unqualified-search-registries = ["quay.io"]`)
	bad := writeFile(t, filepath.Join(dir, "bad.conf"), "[[registry]\n")
	rejected := writeFile(t, filepath.Join(dir, "scheme.conf"), "[[registry]]\nlocation = \"https://quay.io\"\n")
	badManifests := filepath.Dir(writeFile(t, filepath.Join(dir, "m", "x.yaml"), "kind: [\n"))
	cases := map[string]struct {
		args []string
		want string
	}{
		"unreadable config":      {args: []string{"--config", filepath.Join(dir, "missing"), "quay.io/a:1"}, want: "no such file or directory"},
		"unparsable config":      {args: []string{"--config", bad, "quay.io/a:1"}, want: "bad.conf: containers/image cannot load the registries configuration"},
		"config the lib refuses": {args: []string{"--config", rejected, "quay.io/a:1"}, want: "scheme.conf: containers/image cannot load"},
		"malformed reference":    {args: []string{"--config", good, "quay.io/A:1"}, want: `not an image reference: "quay.io/A:1"`},
		"short name":             {args: []string{"--config", good, "busybox"}, want: `short name "busybox"`},
		"unreadable manifests":   {args: []string{"--manifests", filepath.Join(dir, "none"), "quay.io/a:1"}, want: "reading manifests"},
		"unparsable manifests":   {args: []string{"--manifests", badManifests, "quay.io/a:1"}, want: "x.yaml (document 1)"},
		"no source given":        {args: []string{"quay.io/a:1"}, want: "[config manifests kubeconfig]"},
		"a pool without cluster": {args: []string{"--config", good, "--pool", "master", "quay.io/a:1"}, want: "--pool needs --kubeconfig"},
		"unreadable auth file":   {args: []string{"--config", good, "--authfile", filepath.Join(dir, "no-auth.json"), "quay.io/a:1"}, want: "reading the auth file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, append([]string{"explain"}, tc.args...)...)
			if code == 0 {
				t.Errorf("status 0, want an error")
			}
			if stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("want one error line containing %q; stdout %q, stderr %q", tc.want, stdout, stderr)
			}
		})
	}
}

func TestExplainWithAnAuthFileWarnsAboutAMirrorWithoutCredentials(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "objects.yaml"), teamIDMS)
	// The pull secret of a cluster that pulled from quay.io before the mirror set was applied: user:secret.
	auth := writeFile(t, filepath.Join(t.TempDir(), "config.json"), `{"auths": {"quay.io": {"auth": "dXNlcjpzZWNyZXQ="}}}`)
	stdout, stderr, code := runCLI(t, "explain", "--manifests", dir, "--authfile", auth, "quay.io/team/app@sha256:1111111111111111111111111111111111111111111111111111111111111111")
	if code != 0 {
		t.Fatalf("status %d: %s", code, stderr)
	}
	for _, line := range []string{
		"credentials: looked up in " + auth + ", as CRI-O looks them up in its global_auth_file\n",
		"     from ImageDigestMirrorSet \"team\" spec.imageDigestMirrors[0].mirrors[0]\n     credentials: none in the auth file (the pull is anonymous)\n",
		"     primary location \"quay.io/team\" (the source)\n     credentials: in the auth file, entry \"quay.io\"\n",
		"warning: the auth file has credentials for the source (entry \"quay.io\") but none for mirror \"mirror.local/team\": if the mirror requires authentication, pulls from it fail with 401 Unauthorized",
	} {
		if !strings.Contains(stdout, line) {
			t.Errorf("stdout lacks %q:\n%s", line, stdout)
		}
	}
}
