package registriesconf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

const conf = `unqualified-search-registries = ["registry.access.redhat.com"]

[[registry]]
  prefix = ""
  location = "quay.io/ns"
  blocked = true

  [[registry.mirror]]
    location = "mirror.local/ns"
    pull-from-mirror = "digest-only"

  [[registry.mirror]]
    location = "blocked.local/ns"
    pull-from-mirror = "digest-only"

  [[registry.mirror]]
    location = "plain.local/ns"
    insecure = true
    pull-from-mirror = "tag-only"

[[registry]]
  prefix = ""
  location = "blocked.local"
  blocked = true
`

const digest = "@sha256:0000000000000000000000000000000000000000000000000000000000000001"

// attempt is what a pull source says, written as the test expects it.
func attempts(t *testing.T, c *registriesconf.Config, ref string) []string {
	t.Helper()
	named, err := registriesconf.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	pull, err := c.PullSources(named)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range pull.Sources {
		line := s.Reference.String()
		if s.Blocked {
			line += " blocked"
		}
		if s.Insecure {
			line += " insecure"
		}
		if s.Primary {
			line += " primary"
		}
		out = append(out, line)
	}
	return out
}

func TestPullSourcesFollowTheLibrary(t *testing.T) {
	c, err := registriesconf.Load([]byte(conf), map[string][]byte{"01-search.conf": []byte(`unqualified-search-registries = ["quay.io"]`)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := strings.Join(attempts(t, c, "quay.io/ns/app"+digest), "\n")
	want := strings.Join([]string{
		"mirror.local/ns/app" + digest,
		"blocked.local/ns/app" + digest + " blocked",
		"quay.io/ns/app" + digest + " blocked primary",
	}, "\n")
	if got != want {
		t.Errorf("digest pull:\n%s\nwant:\n%s", got, want)
	}
	got = strings.Join(attempts(t, c, "quay.io/ns/app:1"), "\n")
	want = "plain.local/ns/app:1 insecure\nquay.io/ns/app:1 blocked primary"
	if got != want {
		t.Errorf("tag pull:\n%s\nwant:\n%s", got, want)
	}
	if got := attempts(t, c, "docker.io/library/busybox:1"); len(got) != 1 || got[0] != "docker.io/library/busybox:1 primary" {
		t.Errorf("an unconfigured registry: %v", got)
	}
	search, err := c.UnqualifiedSearchRegistries()
	if err != nil || len(search) != 1 || search[0] != "quay.io" {
		t.Errorf("the drop-in's search list was not applied: %v %v", search, err)
	}
}

func TestCloseRemovesTheFiles(t *testing.T) {
	c, err := registriesconf.Load([]byte(conf), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := c.SystemContext().SystemRegistriesConfPath
	c.Close()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("%s still exists after Close: %v", filepath.Dir(path), err)
	}
}

func TestErrorsNameTheUsersFileNotTheCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registries.conf")
	if err := os.WriteFile(path, []byte("[[registry]]\nlocation = \"https://quay.io\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := registriesconf.LoadFile(path, "")
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), "registriesconf-") {
		t.Errorf("error %v: want it to start with the file's path and not mention the temporary copy", err)
	}
	if _, err := registriesconf.ParseReference("quay.io/A:1"); err == nil {
		t.Errorf("an uppercase repository parsed")
	}
}
