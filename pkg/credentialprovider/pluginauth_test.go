package credentialprovider_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	dockerconfig "github.com/containers/image/v5/pkg/docker/config"
	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

// secret returns a secret whose keys all carry credentials.
func secret(name string, keys ...string) credentialprovider.SecretAuths {
	s := credentialprovider.SecretAuths{Secret: name}
	for _, k := range keys {
		s.Keys = append(s.Keys, credentialprovider.AuthKey{Key: k})
	}
	return s
}

func mirrors(locations ...string) []credentialprovider.Mirror {
	var out []credentialprovider.Mirror
	for _, l := range locations {
		out = append(out, credentialprovider.Mirror{Location: l})
	}
	return out
}

type pluginAuthCase struct {
	name string
	in   credentialprovider.PluginInput
	want credentialprovider.PluginAuth
}

// pluginAuthCases are the cases of the plugin's TestUpdateAuthContents (1 to 5), then the surprises of its
// plain string-prefix rule and of containers/image's lookup.
func pluginAuthCases() []pluginAuthCase {
	type copied = credentialprovider.CopiedKey
	type pull = credentialprovider.PullAuth
	return []pluginAuthCase{{
		name: "1 secrets merge over the global pull secret and keep its other keys",
		in: credentialprovider.PluginInput{Image: "registry.local/app/img:1", Mirrors: mirrors("mirror.quay.io", "cache.local:5000", "quay.io"),
			Secrets: []credentialprovider.SecretAuths{secret("pull", "quay.io", "cache.local:5000", "registry.local")}, GlobalKeys: []string{"global.io", "registry.local"}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{
				{Key: "cache.local:5000", Secret: "pull", WrittenAs: "cache.local:5000", Matches: []string{"cache.local:5000"}, UsedBy: []string{"cache.local:5000"}},
				{Key: "quay.io", Secret: "pull", WrittenAs: "quay.io", Matches: []string{"quay.io"}, UsedBy: []string{"quay.io"}},
				{Key: "registry.local", Secret: "pull", WrittenAs: "registry.local", Matches: []string{"registry.local/app/img:1"}, UsedBy: []string{"registry.local/app/img:1"}},
			},
			Pulls: []pull{
				{Repository: "mirror.quay.io", Mirror: true},
				{Repository: "cache.local:5000", Mirror: true, Key: "cache.local:5000", Secret: "pull"},
				{Repository: "quay.io", Mirror: true, Key: "quay.io", Secret: "pull"},
				{Repository: "registry.local/app/img:1", Key: "registry.local", Secret: "pull"},
			}},
	}, {
		name: "2 a mirror-only match, the scheme stripped",
		in: credentialprovider.PluginInput{Image: "example.com/foo:tag", Mirrors: mirrors("quay.io"),
			Secrets: []credentialprovider.SecretAuths{secret("pull", "https://quay.io")}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{{Key: "quay.io", Secret: "pull", WrittenAs: "https://quay.io", Matches: []string{"quay.io"}, UsedBy: []string{"quay.io"}}},
			Pulls:  []pull{{Repository: "quay.io", Mirror: true, Key: "quay.io", Secret: "pull"}, {Repository: "example.com/foo:tag"}}},
	}, {
		name: "3 a host key is taken for a mirror with a path",
		in: credentialprovider.PluginInput{Image: "example.com/foo:tag", Mirrors: mirrors("quay.io/foo"),
			Secrets: []credentialprovider.SecretAuths{secret("pull", "https://quay.io")}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{{Key: "quay.io", Secret: "pull", WrittenAs: "https://quay.io", Matches: []string{"quay.io/foo"}, UsedBy: []string{"quay.io/foo"}}},
			Pulls:  []pull{{Repository: "quay.io/foo", Mirror: true, Key: "quay.io", Secret: "pull"}, {Repository: "example.com/foo:tag"}}},
	}, {
		name: "4 an image-only match",
		in: credentialprovider.PluginInput{Image: "registry.local/foo:tag", Mirrors: mirrors("quay.io"),
			Secrets: []credentialprovider.SecretAuths{secret("pull", "http://registry.local")}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{{Key: "registry.local", Secret: "pull", WrittenAs: "http://registry.local", Matches: []string{"registry.local/foo:tag"}, UsedBy: []string{"registry.local/foo:tag"}}},
			Pulls:  []pull{{Repository: "quay.io", Mirror: true}, {Repository: "registry.local/foo:tag", Key: "registry.local", Secret: "pull"}}},
	}, {
		name: "5 no secret key matches: only the global keys, and no error",
		in: credentialprovider.PluginInput{Image: "nomatch.local/foo:tag", Mirrors: mirrors("cache.local:5000"),
			Secrets: []credentialprovider.SecretAuths{secret("pull", "quay.io")}, GlobalKeys: []string{"keep.io", "nomatch.local"}},
		want: credentialprovider.PluginAuth{Written: true,
			Pulls: []pull{{Repository: "cache.local:5000", Mirror: true}, {Repository: "nomatch.local/foo:tag", Key: "nomatch.local"}}},
	}, {
		name: "mirror.local is copied for mirror.localhost:5000, and used for nothing",
		in: credentialprovider.PluginInput{Image: "quay.io/team/app",
			Mirrors: []credentialprovider.Mirror{{Location: "mirror.localhost:5000/team", Pull: "mirror.localhost:5000/team/app"}},
			Secrets: []credentialprovider.SecretAuths{secret("pull", "mirror.local")}, GlobalKeys: []string{"mirror.local", "quay.io"}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{{Key: "mirror.local", Secret: "pull", WrittenAs: "mirror.local", Matches: []string{"mirror.localhost:5000/team"}}},
			Pulls:  []pull{{Repository: "mirror.localhost:5000/team/app", Mirror: true}, {Repository: "quay.io/team/app", Key: "quay.io"}}},
	}, {
		name: "a later secret replaces an earlier one's key, and the most specific key wins",
		in: credentialprovider.PluginInput{Image: "quay.io/team/app",
			Mirrors: []credentialprovider.Mirror{{Location: "mirror.example.com/team", Pull: "mirror.example.com/team/app"}},
			Secrets: []credentialprovider.SecretAuths{secret("a-pull", "mirror.example.com", "mirror.example.com/team"), secret("b-pull", "https://mirror.example.com")}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{
				{Key: "mirror.example.com", Secret: "b-pull", WrittenAs: "https://mirror.example.com", Matches: []string{"mirror.example.com/team"}},
				{Key: "mirror.example.com/team", Secret: "a-pull", WrittenAs: "mirror.example.com/team", Matches: []string{"mirror.example.com/team"}, UsedBy: []string{"mirror.example.com/team/app"}},
			},
			Pulls: []pull{{Repository: "mirror.example.com/team/app", Mirror: true, Key: "mirror.example.com/team", Secret: "a-pull"}, {Repository: "quay.io/team/app"}}},
	}, {
		name: "global keys with a scheme or Docker Hub's other name are found after normalisation",
		in: credentialprovider.PluginInput{Image: "docker.io/library/nginx", Mirrors: mirrors("quay.io/hub"),
			GlobalKeys: []string{"https://quay.io/v1/", "index.docker.io"}},
		want: credentialprovider.PluginAuth{Written: true,
			Pulls: []pull{{Repository: "quay.io/hub", Mirror: true, Key: "https://quay.io/v1/"}, {Repository: "docker.io/library/nginx", Key: "index.docker.io"}}},
	}, {
		name: "a key without credentials is still copied over the global one",
		in: credentialprovider.PluginInput{Image: "quay.io/team/app", Mirrors: mirrors("mirror.example.com"),
			Secrets:    []credentialprovider.SecretAuths{{Secret: "pull", Keys: []credentialprovider.AuthKey{{Key: "mirror.example.com", Empty: true}}}},
			GlobalKeys: []string{"mirror.example.com"}},
		want: credentialprovider.PluginAuth{Written: true,
			Copied: []copied{{Key: "mirror.example.com", Secret: "pull", WrittenAs: "mirror.example.com", Empty: true, Matches: []string{"mirror.example.com"}, UsedBy: []string{"mirror.example.com"}}},
			Pulls:  []pull{{Repository: "mirror.example.com", Mirror: true, Key: "mirror.example.com", Secret: "pull", Empty: true}, {Repository: "quay.io/team/app"}}},
	}, {
		name: "with no key at all the plugin writes no file",
		in:   credentialprovider.PluginInput{Image: "quay.io/team/app", Mirrors: mirrors("mirror.example.com"), Secrets: []credentialprovider.SecretAuths{secret("pull", "other.io")}},
		want: credentialprovider.PluginAuth{Pulls: []pull{{Repository: "mirror.example.com", Mirror: true}, {Repository: "quay.io/team/app"}}},
	}}
}

func TestPluginAuthKeys(t *testing.T) {
	for _, tc := range pluginAuthCases() {
		if got := credentialprovider.PluginAuthKeys(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\nwant %+v\ngot  %+v", tc.name, tc.want, got)
		}
	}
}

// TestPullAuthAgreesWithContainersImage proves the lookup half of PluginAuthKeys with containers/image itself:
// for each case, the auth file the plugin would write (each key's user name is the key) is given to
// containers/image as the only auth file, and the credentials it returns for each pulled repository must be
// those of PullAuth.Key. (containers/image looks credentials up for a repository name: the plugin's test
// vectors give the image with a tag, which is dropped here.)
func TestPullAuthAgreesWithContainersImage(t *testing.T) {
	dir := t.TempDir()
	confPath := filepath.Join(dir, "registries.conf")
	if err := os.WriteFile(confPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i, tc := range pluginAuthCases() {
		auths := map[string]map[string]string{}
		for _, k := range tc.in.GlobalKeys {
			auths[k] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(userFor(k) + ":global"))}
		}
		for _, c := range tc.want.Copied {
			auths[c.Key] = map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte(userFor(c.Key) + ":secret"))}
		}
		data, err := json.Marshal(map[string]any{"auths": auths})
		if err != nil {
			t.Fatal(err)
		}
		authPath := filepath.Join(dir, fmt.Sprintf("auth-%d.json", i))
		if err := os.WriteFile(authPath, data, 0o600); err != nil {
			t.Fatal(err)
		}
		sys := &types.SystemContext{AuthFilePath: authPath, SystemRegistriesConfPath: confPath, SystemRegistriesConfDirPath: filepath.Join(dir, "none.d")}
		for _, pa := range credentialprovider.PluginAuthKeys(tc.in).Pulls {
			creds, err := dockerconfig.GetCredentials(sys, withoutTag(pa.Repository))
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, pa.Repository, err)
			}
			if creds.Username != userFor(pa.Key) {
				t.Errorf("%s: %s: containers/image uses key %q, PluginAuthKeys says %q", tc.name, pa.Repository, creds.Username, pa.Key)
			}
		}
	}
}

// withoutTag drops the tag of a repository written with one: "registry.local/app/img:1" gives
// "registry.local/app/img"; "cache.local:5000" is left alone.
func withoutTag(repository string) string {
	if i := strings.LastIndexByte(repository, '/'); i >= 0 {
		if j := strings.IndexByte(repository[i:], ':'); j >= 0 {
			return repository[:i+j]
		}
	}
	return repository
}

// userFor is the user name standing for an auth file key: the key without ":", which separates the user
// name from the password; "" for no key.
func userFor(key string) string { return strings.ReplaceAll(key, ":", "|") }

func TestReadSecretAuths(t *testing.T) {
	data := []byte(`{"auths":{
		"https://quay.io": {"auth": "dTpw"},
		"bad.io": {"auth": "%%%"},
		"fields.io": {"username": "u", "password": "p"},
		"nocolon.io": {"auth": "YWJj"},
		"colon.io": {"auth": "Og=="}
	}}`)
	got, err := credentialprovider.ReadSecretAuths("pull", data)
	if err != nil {
		t.Fatal(err)
	}
	want := credentialprovider.SecretAuths{Secret: "pull", Keys: []credentialprovider.AuthKey{
		{Key: "colon.io", Empty: true},
		{Key: "fields.io", Empty: true},
		{Key: "https://quay.io"},
		{Key: "nocolon.io", Empty: true},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("want %+v, got %+v", want, got)
	}
	for _, bad := range []string{`{`, `{"auths":{"x":{"auth":5}}}`, `[]`} {
		if _, err := credentialprovider.ReadSecretAuths("pull", []byte(bad)); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
