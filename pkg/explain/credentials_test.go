package explain_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/docker/config"
	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/pkg/explain"
)

// authFile writes a pull secret whose entries each carry a distinct user, the entry's own name.
func authFile(t *testing.T, keys ...string) string {
	t.Helper()
	auths := map[string]map[string]string{}
	for _, k := range keys {
		auths[k] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(k + ":secret"))}
	}
	data, err := json.Marshal(map[string]any{"auths": auths})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A mirrored source where the pull secret covers the source and one mirror, by registry and by namespace.
const credentialsConf = `[[registry]]
location = "quay.io/team"
[[registry.mirror]]
location = "mirror.local/ns/team"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "other.local/team"
pull-from-mirror = "digest-only"
[[registry.mirror]]
location = "blocked.local/team"
pull-from-mirror = "digest-only"

[[registry]]
location = "blocked.local"
blocked = true
`

func TestCredentialsAreTheLibrarysAndAMirrorWithoutThemIsAWarning(t *testing.T) {
	cfg := load(t, credentialsConf)
	path := authFile(t, "quay.io", "mirror.local/ns", "mirror.local")
	e, err := explain.Explain(cfg, "quay.io/team/app@"+dgst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := explain.ExplainCredentials(e, cfg, path); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range e.Attempts {
		switch c := a.Credentials; {
		case c == nil:
			got = append(got, a.Location+": not looked up")
		case c.Found:
			got = append(got, a.Location+": "+c.Key)
		default:
			got = append(got, a.Location+": none")
		}
	}
	want := "mirror.local/ns/team: mirror.local/ns|other.local/team: none|blocked.local/team: not looked up|quay.io/team: quay.io"
	if strings.Join(got, "|") != want {
		t.Errorf("credentials:\n%s\nwant:\n%s", strings.Join(got, "|"), want)
	}

	// The entry named is the one whose credentials the library returns (each entry's user is its own name).
	sys := &types.SystemContext{AuthFilePath: path}
	for _, a := range e.Attempts {
		if a.Credentials == nil || !a.Credentials.Found {
			continue
		}
		named, err := reference.ParseNormalizedNamed(a.Reference)
		if err != nil {
			t.Fatal(err)
		}
		auth, err := config.GetCredentialsForRef(sys, named)
		if err != nil || auth.Username != a.Credentials.Key {
			t.Errorf("%s: the library gives user %q (%v), the explanation names entry %q", a.Reference, auth.Username, err, a.Credentials.Key)
		}
	}

	if len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], `none for mirror "other.local/team": if the mirror requires authentication, pulls from it fail with 401 Unauthorized`) ||
		!strings.Contains(e.Warnings[0], `add an entry for "other.local"`) {
		t.Errorf("warnings: %q", e.Warnings)
	}
	var text bytes.Buffer
	if err := e.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"credentials: looked up in " + path + ", as CRI-O looks them up in its global_auth_file",
		`     credentials: in the auth file, entry "mirror.local/ns"`,
		"     credentials: none in the auth file (the pull is anonymous)",
		`     credentials: in the auth file, entry "quay.io"`,
		"warning: the auth file has credentials for the source (entry \"quay.io\") but none for mirror \"other.local/team\"",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the text lacks %q:\n%s", line, text.String())
		}
	}
}

func TestNoWarningWhenTheSourceHasNoCredentialsEither(t *testing.T) {
	cfg := load(t, credentialsConf)
	e, err := explain.Explain(cfg, "quay.io/team/app@"+dgst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := explain.ExplainCredentials(e, cfg, authFile(t, "registry.example.com")); err != nil {
		t.Fatal(err)
	}
	if len(e.Warnings) != 0 {
		t.Errorf("warnings: %q", e.Warnings)
	}
}

func TestDockerHubCredentialsUnderItsLegacyURLAreFoundWithoutAName(t *testing.T) {
	cfg := load(t, "")
	e, err := explain.Explain(cfg, "docker.io/library/busybox:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := explain.ExplainCredentials(e, cfg, authFile(t, "https://index.docker.io/v1/")); err != nil {
		t.Fatal(err)
	}
	if c := e.Attempts[0].Credentials; c == nil || !c.Found || c.Key != "" {
		t.Errorf("credentials %+v: want found by the library, under no entry named as the repository", c)
	}
}

func TestAnAuthFileThatDoesNotParseIsAnError(t *testing.T) {
	cfg := load(t, "")
	e, err := explain.Explain(cfg, "quay.io/a/b:1", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := explain.ExplainCredentials(e, cfg, path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a broken auth file: %v", err)
	}
}
