package credentialprovider

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// AuthKey is one key of the "auths" object of a dockerconfigjson secret, as the plugin reads it. The
// credentials themselves are never kept.
type AuthKey struct {
	// Key is the key as written in the secret, e.g. "https://mirror.local:5000" or "mirror.local:5000/team".
	Key string
	// Empty is true when its "auth" decodes to no user name and no password (no "auth" field, or no ":" in
	// it): the plugin still copies the key, with empty credentials, over the global pull secret's.
	Empty bool
}

// SecretAuths is one kubernetes.io/dockerconfigjson secret of the pod's namespace, as the plugin reads it.
//
//	SecretAuths{Secret: "mirror-pull", Keys: []AuthKey{{Key: "mirror.local:5000"}}}
type SecretAuths struct {
	// Secret is the secret's name.
	Secret string
	// Keys are the keys of its "auths" whose "auth" is valid base64 (the plugin skips the others), sorted.
	Keys []AuthKey
}

// dockerConfigJSON is the part of a .dockerconfigjson the plugin reads.
type dockerConfigJSON struct {
	Auths map[string]struct {
		Auth string `json:"auth"`
	} `json:"auths"`
}

// ReadSecretAuths reads the .dockerconfigjson data of the secret named secret as the plugin does: keys whose
// "auth" is not base64 are left out; an "auth" without ":" gives an Empty key. It returns an error when the
// plugin would skip the whole secret (not JSON of that shape). Nothing of the credentials is returned.
//
//	ReadSecretAuths("mirror-pull", []byte(`{"auths":{"https://mirror.local:5000":{"auth":"dTpw"}}}`))
//	// SecretAuths{Secret: "mirror-pull", Keys: []AuthKey{{Key: "https://mirror.local:5000"}}}
func ReadSecretAuths(secret string, data []byte) (SecretAuths, error) {
	var cfg dockerConfigJSON
	if err := json.Unmarshal(data, &cfg); err != nil {
		return SecretAuths{}, fmt.Errorf("secret %q: the plugin skips it: the docker config JSON is not parsable: %w", secret, err)
	}
	out := SecretAuths{Secret: secret}
	for key, entry := range cfg.Auths {
		decoded, err := base64.StdEncoding.DecodeString(entry.Auth)
		if err != nil {
			continue
		}
		user, password, ok := strings.Cut(string(decoded), ":")
		out.Keys = append(out.Keys, AuthKey{Key: key, Empty: !ok || user == "" && strings.Trim(password, "\x00") == ""})
	}
	slices.SortFunc(out.Keys, func(a, b AuthKey) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Mirror is one mirror of the image, as registries.conf lists it for the image's registry.
type Mirror struct {
	// Location is the mirror's location, which the plugin compares the secrets' keys with, e.g.
	// "mirror.local:5000/team".
	Location string
	// Pull is the repository containers/image pulls from the mirror for the image, which it looks credentials
	// up for, e.g. "mirror.local:5000/team/app" for "quay.io/team/app" mirrored from "quay.io/team". Empty
	// means Location.
	Pull string
}

func (m Mirror) pull() string {
	if m.Pull == "" {
		return m.Location
	}
	return m.Pull
}

// PluginInput is what the crio-credential-provider plugin works from for one pull.
type PluginInput struct {
	// Image is the image's LookupName, as the kubelet sends it: "quay.io/team/app".
	Image string
	// Mirrors are the mirrors of the image's registries.conf entry, in order (the plugin takes all of them,
	// whatever pull-from-mirror says).
	Mirrors []Mirror
	// Secrets are the pod namespace's kubernetes.io/dockerconfigjson secrets, in the order the API lists them
	// (by name): a later secret's key replaces an earlier one's.
	Secrets []SecretAuths
	// GlobalKeys are the keys of the node's global pull secret (/var/lib/kubelet/config.json), as written.
	GlobalKeys []string
}

// CopiedKey is a key the plugin copies from a namespace secret into the pull's auth file.
type CopiedKey struct {
	// Key is the key as the file holds it: the secret's key without "http://" or "https://".
	Key string
	// Secret is the secret it is copied from: the last one in list order that has it.
	Secret string
	// WrittenAs is the key as written in that secret, e.g. "https://mirror.local:5000".
	WrittenAs string
	// Empty is true when it carries no credentials (see AuthKey.Empty).
	Empty bool
	// Matches are the mirror locations, then the image, that Key is a string prefix of: why the plugin took
	// it. A plain string prefix, so "mirror.local" is taken for "mirror.localhost:5000".
	Matches []string
	// UsedBy are the repositories of PluginAuth.Pulls whose credentials come from this key. Empty means the key
	// is copied for nothing (the "mirror.local" above: containers/image never uses it for
	// "mirror.localhost:5000"), though it still replaces a global key of the same name.
	UsedBy []string
}

// PullAuth is the credential containers/image uses for one location of a pull, when CRI-O pulls with the
// plugin's auth file as its only auth file.
type PullAuth struct {
	// Repository is what is pulled: a mirror's Pull, or the image itself.
	Repository string
	// Mirror is false for the image's own location.
	Mirror bool
	// Key is the auth file key containers/image uses: the longest of Repository and its parent namespaces
	// down to the host that the file has, else a key that names the host after normalisation (scheme and path
	// dropped, "docker.io" read as "index.docker.io"). Empty: no credentials, an anonymous pull.
	Key string
	// Secret is the namespace secret Key was copied from; empty when Key comes from the global pull secret.
	Secret string
	// Empty is true when Key carries no credentials (see AuthKey.Empty).
	Empty bool
}

// PluginAuth says which credentials a pull through CRI-O's plugin uses.
type PluginAuth struct {
	// Written is false when the plugin writes no auth file because it has no key at all: it then fails, and
	// CRI-O uses the node's global pull secret, which is empty too.
	Written bool
	// Copied are the keys the plugin copies from the secrets, sorted by Key.
	Copied []CopiedKey
	// Pulls are the locations of the pull in the order CRI-O tries them: the mirrors, then the image.
	Pulls []PullAuth
}

// PluginAuthKeys applies the plugin's rule for a pull of in.Image and tells which key serves each location.
//
// The plugin takes, from each secret in order, every key that (without "http://" or "https://") is a plain
// string prefix of some mirror location or of the image; a later secret replaces an earlier one's key. It
// writes them over the global pull secret's keys into a per-pull auth file, which CRI-O then uses as the only
// auth file of that pull. Within one secret, two keys that differ only by their scheme are taken in an order
// the plugin does not fix; here the one sorting last wins.
//
// For the plugin's own test case "merge secrets over global and preserve others": global keys global.io and
// registry.local, one secret with quay.io, cache.local:5000 and registry.local, image registry.local/app/img,
// mirrors mirror.quay.io, cache.local:5000 and quay.io: the three secret keys are copied (registry.local
// replacing the global one), global.io stays, and the pulls use
//
//	mirror.quay.io            no key
//	cache.local:5000          cache.local:5000 of the secret
//	quay.io                   quay.io of the secret
//	registry.local/app/img    registry.local of the secret
func PluginAuthKeys(in PluginInput) PluginAuth {
	copied := map[string]*CopiedKey{}
	for _, s := range in.Secrets {
		for _, k := range s.Keys {
			key := stripScheme(k.Key)
			var matches []string
			for _, m := range in.Mirrors {
				if strings.HasPrefix(m.Location, key) {
					matches = append(matches, m.Location)
				}
			}
			if strings.HasPrefix(in.Image, key) {
				matches = append(matches, in.Image)
			}
			if len(matches) > 0 {
				copied[key] = &CopiedKey{Key: key, Secret: s.Secret, WrittenAs: k.Key, Empty: k.Empty, Matches: matches}
			}
		}
	}
	file := map[string]*CopiedKey{} // the auth file's keys; nil value: from the global pull secret
	for _, k := range in.GlobalKeys {
		file[k] = nil
	}
	for k, c := range copied {
		file[k] = c
	}
	out := PluginAuth{Written: len(file) > 0}
	locations := make([]PullAuth, 0, len(in.Mirrors)+1)
	for _, m := range in.Mirrors {
		locations = append(locations, PullAuth{Repository: m.pull(), Mirror: true})
	}
	locations = append(locations, PullAuth{Repository: in.Image})
	for _, pa := range locations {
		pa.Key = authFileKey(file, pa.Repository)
		if c := file[pa.Key]; c != nil {
			pa.Secret, pa.Empty = c.Secret, c.Empty
			c.UsedBy = append(c.UsedBy, pa.Repository)
		}
		out.Pulls = append(out.Pulls, pa)
	}
	for _, c := range copied {
		out.Copied = append(out.Copied, *c)
	}
	slices.SortFunc(out.Copied, func(a, b CopiedKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// PluginKey returns the key under which the plugin files a secret's key in the auth file, and which it compares
// with the mirrors and the image: the key without "http://" or "https://".
//
//	PluginKey("https://mirror.local:5000") // "mirror.local:5000"
func PluginKey(key string) string { return stripScheme(key) }

// stripScheme removes the "http://" or "https://" the plugin strips from a secret's key.
func stripScheme(key string) string {
	key = strings.TrimPrefix(key, "http://")
	return strings.TrimPrefix(key, "https://")
}

// authFileKey returns the key of file containers/image (pkg/docker/config) uses for repository, or "": the
// repository and each parent namespace down to the host, exactly; then any key naming the same host after
// normalisation (the first in sorted order, where containers/image takes whichever its map yields first).
func authFileKey(file map[string]*CopiedKey, repository string) string {
	for key := repository; ; {
		if _, ok := file[key]; ok {
			return key
		}
		i := strings.LastIndexByte(key, '/')
		if i < 0 {
			break
		}
		key = key[:i]
	}
	host, _, _ := strings.Cut(repository, "/")
	host = normalizeRegistry(host)
	keys := make([]string, 0, len(file))
	for k := range file {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if normalizeAuthFileKey(k) == host {
			return k
		}
	}
	return ""
}

// normalizeAuthFileKey turns an auth file key into a host as containers/image does for a non-legacy file: a
// key written with a scheme loses it and its path.
func normalizeAuthFileKey(key string) string {
	stripped := stripScheme(key)
	if stripped != key {
		stripped, _, _ = strings.Cut(stripped, "/")
	}
	return normalizeRegistry(stripped)
}

// normalizeRegistry reads Docker Hub's host names as containers/image's auth files name it.
func normalizeRegistry(host string) string {
	switch host {
	case "registry-1.docker.io", "docker.io":
		return "index.docker.io"
	}
	return host
}
