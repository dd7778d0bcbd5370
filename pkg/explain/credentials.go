package explain

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/docker/config"
	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// Credentials says whether an auth file holds credentials for the repository of one attempt.
type Credentials struct {
	// Found is true when containers/image finds credentials for the attempt in the auth file.
	Found bool
	// Key is the auth file's "auths" entry that holds them, the longest of the repository, its enclosing
	// namespaces and its registry that the file has, e.g. "quay.io/team" or "quay.io"; "" when none matches as
	// written (the library also accepts an entry written as a URL, or docker.io's aliases).
	Key string
}

// entry names the auth file's entry that holds the credentials.
func (c *Credentials) entry() string {
	if c.Key == "" {
		return "an entry for the registry written as a URL or an alias"
	}
	return fmt.Sprintf("entry %q", c.Key)
}

// ExplainCredentials fills each attempt's Credentials from authFile, a node's global pull secret
// (/var/lib/kubelet/config.json, CRI-O's global_auth_file), as containers/image's docker transport looks them up
// for the pull: config.GetCredentialsForRef of the attempt's reference, with the auth file and the credential
// helpers of cfg's registries.conf. Blocked attempts are never contacted and get none. A mirror without
// credentials where the source has some gets a warning (e.Warnings): if the mirror requires authentication,
// every pull from it fails with 401 Unauthorized, which containers/image reports as "authentication required".
//
// Credentials a pod's own pull secret brings are not considered: the kubelet passes those with the pull.
func ExplainCredentials(e *Explanation, cfg *registriesconf.Config, authFile string) error {
	if cfg.SystemContext() == nil {
		return errors.New("credentials: the configuration is not loaded from files")
	}
	keys, err := authKeys(authFile)
	if err != nil {
		return err
	}
	sys := *cfg.SystemContext()
	sys.AuthFilePath = authFile
	e.AuthFile = authFile
	for i := range e.Attempts {
		a := &e.Attempts[i]
		if a.Blocked {
			continue
		}
		c, err := lookupCredentials(&sys, a.Reference, keys)
		if err != nil {
			return err
		}
		a.Credentials = c
	}
	e.Warnings = append(e.Warnings, missingMirrorCredentials(e)...)
	return nil
}

// lookupCredentials asks containers/image for the credentials of ref's repository, and names the entry.
func lookupCredentials(sys *types.SystemContext, ref string, keys map[string]bool) (*Credentials, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return nil, err
	}
	auth, err := config.GetCredentialsForRef(sys, named)
	if err != nil {
		return nil, fmt.Errorf("looking up credentials for %s in %s: %w", named.Name(), sys.AuthFilePath, err)
	}
	c := &Credentials{Found: auth != (types.DockerAuthConfig{})}
	if c.Found {
		c.Key = matchingKey(named.Name(), keys)
	}
	return c, nil
}

// matchingKey returns the first of repo, its enclosing namespaces and its registry that keys holds, the order
// in which containers/image looks the entries of an auth file up.
func matchingKey(repo string, keys map[string]bool) string {
	for key := repo; ; {
		if keys[key] {
			return key
		}
		i := strings.LastIndex(key, "/")
		if i < 0 {
			return ""
		}
		key = key[:i]
	}
}

// authKeys returns the "auths" entries of an auth file, to name the one that matched.
func authKeys(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the auth file: %w", err)
	}
	var file struct {
		Auths map[string]json.RawMessage `json:"auths"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("auth file %s: %w", path, err)
	}
	keys := map[string]bool{}
	for k := range file.Auths {
		keys[k] = true
	}
	return keys, nil
}

// missingMirrorCredentials warns about each mirror attempt without credentials when the source has some.
func missingMirrorCredentials(e *Explanation) []string {
	if len(e.Attempts) == 0 {
		return nil
	}
	var out []string
	for _, a := range e.Attempts[:len(e.Attempts)-1] {
		if w := missingMirrorCredential(e, a); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// missingMirrorCredential returns the warning about mirror attempt a of e when the auth file has credentials for
// the source but none for a, else "".
func missingMirrorCredential(e *Explanation, a Attempt) string {
	source := e.Attempts[len(e.Attempts)-1]
	if !source.Primary || source.Credentials == nil || !source.Credentials.Found || a.Primary || a.Credentials == nil || a.Credentials.Found {
		return ""
	}
	host := reference.Domain(mustParse(a.Reference))
	return fmt.Sprintf("the auth file has credentials for the source (%s) but none for mirror %q: if the mirror "+
		"requires authentication, pulls from it fail with 401 Unauthorized (\"authentication required\"; the usual failure after an ImageDigestMirrorSet or "+
		"ImageTagMirrorSet is applied); add an entry for %q, or a repository under it, to the cluster's global pull secret "+
		"(secret pull-secret in namespace openshift-config)", source.Credentials.entry(), a.Location, host)
}

// mustParse parses a reference Explain already parsed.
func mustParse(ref string) reference.Named {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		panic(fmt.Sprintf("explain: attempt reference %q does not parse: %v", ref, err))
	}
	return named
}

// AuthFileKeys returns the keys of the "auths" of an auth file, sorted: for the node's global pull secret, the keys
// crio-credential-provider copies into each per-pull file under the namespace's (ExplainNamespaceCredentials).
// Nothing else of the file is kept.
func AuthFileKeys(path string) ([]string, error) {
	keys, err := authKeys(path)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(keys)), nil
}
