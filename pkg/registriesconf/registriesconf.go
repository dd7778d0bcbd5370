// Package registriesconf is registries.conf as CRI-O and Podman read it, with containers/image's
// sysregistriesv2: which entry a reference matches, and which places a pull tries, in which order.
//
// A Config comes from one of two places:
//
//   - Load reads bytes the way a node does. containers/image reads configuration only from files, so it writes
//     them into a private temporary directory and points the library at it; nothing else on the machine is
//     read (not /etc/containers, not the user's ~/.config/containers). The Checker loads every render this way.
//   - FromModel answers the same questions in memory, from the model the render encodes, without any file:
//     the pure core uses it (the release payload rule, sigstore attachments). Its matching is the library's,
//     checked against Load by a differential test.
//
// Encode writes a model as TOML, byte for byte as github.com/BurntSushi/toml does.
package registriesconf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/types"
)

// dropInDir is the directory for registries.conf drop-ins, relative to the registries.conf.
const dropInDir = "registries.conf.d"

// Config is a registries.conf as containers/image holds it once loaded, with its drop-ins. Close releases it.
type Config struct {
	// dir and sys are set for a loaded file; model for one held in memory.
	dir   string
	sys   *types.SystemContext
	model *sysregistriesv2.V2RegistriesConf
}

// Load parses registriesConf and the drop-ins (file name -> contents, e.g. "01-search.conf") exactly as
// containers/image would on a node, and returns an error when the library rejects them.
func Load(registriesConf []byte, dropIns map[string][]byte) (*Config, error) {
	dir, err := os.MkdirTemp("", "registriesconf-")
	if err != nil {
		return nil, fmt.Errorf("creating a directory to load registries.conf from: %w", err)
	}
	c := &Config{dir: dir, sys: systemContext(dir)}
	if err := writeConfig(c.sys, registriesConf, dropIns); err != nil {
		c.Close()
		return nil, err
	}
	if _, err := sysregistriesv2.TryUpdatingCache(c.sys); err != nil {
		c.Close()
		return nil, fmt.Errorf("containers/image cannot load the registries configuration: %w", err)
	}
	return c, nil
}

// systemContext points containers/image at a registries.conf and drop-in directory in dir, and nowhere else.
func systemContext(dir string) *types.SystemContext {
	return &types.SystemContext{
		SystemRegistriesConfPath:    filepath.Join(dir, "registries.conf"),
		SystemRegistriesConfDirPath: filepath.Join(dir, dropInDir),
		// Keep the user's ~/.config/containers out of it.
		RootForImplicitAbsolutePaths: dir,
	}
}

// LoadFile loads a registries.conf from disk, with the drop-ins in dropInDir when it is not empty.
func LoadFile(path, dropInDir string) (*Config, error) {
	conf, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dropIns := map[string][]byte{}
	if dropInDir != "" {
		names, err := filepath.Glob(filepath.Join(dropInDir, "*.conf"))
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			dropIns[filepath.Base(name)] = b
		}
	}
	c, err := Load(conf, dropIns)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.New(stripTempPaths(err.Error())))
	}
	return c, nil
}

// loadingRE matches the library's mention of the temporary copy it was given, which means nothing to the
// person who named the file.
var loadingRE = regexp.MustCompile(`loading (drop-in )?registries configuration "[^"]*registriesconf-[^"]*": `)

func stripTempPaths(msg string) string { return loadingRE.ReplaceAllString(msg, "") }

// writeConfig writes conf and the drop-ins where sys points containers/image.
func writeConfig(sys *types.SystemContext, conf []byte, dropIns map[string][]byte) error {
	if err := os.WriteFile(sys.SystemRegistriesConfPath, conf, 0o600); err != nil {
		return fmt.Errorf("writing registries.conf to load it: %w", err)
	}
	if len(dropIns) == 0 {
		return nil
	}
	if err := os.Mkdir(sys.SystemRegistriesConfDirPath, 0o700); err != nil {
		return fmt.Errorf("creating drop-in directory: %w", err)
	}
	for name, data := range dropIns {
		if name != filepath.Base(name) {
			return fmt.Errorf("drop-in name %q must be a plain file name", name)
		}
		if err := os.WriteFile(filepath.Join(sys.SystemRegistriesConfDirPath, name), data, 0o600); err != nil {
			return fmt.Errorf("writing drop-in %s to load it: %w", name, err)
		}
	}
	return nil
}

// Close removes the temporary files and drops the library's cached copy of them.
func (c *Config) Close() {
	if c == nil || c.dir == "" {
		return
	}
	// The library caches by path; the cache has no per-entry removal, and an entry for a removed
	// directory would only leak memory. Other users of the cache simply reload on next use.
	sysregistriesv2.InvalidateCache()
	_ = os.RemoveAll(c.dir)
	c.dir = ""
}

// SystemContext returns the context that makes containers/image (for instance its docker transport)
// read this configuration. It stays valid until Close; it is nil for a Config held in memory.
func (c *Config) SystemContext() *types.SystemContext { return c.sys }

// Registries returns the entries as the library holds them after loading: normalized, with duplicate
// prefixes dropped (the first wins), sorted by prefix.
func (c *Config) Registries() ([]sysregistriesv2.Registry, error) {
	if c.model != nil {
		return c.model.Registries, nil
	}
	return sysregistriesv2.GetRegistries(c.sys)
}

// UnqualifiedSearchRegistries returns the search list, drop-ins applied.
func (c *Config) UnqualifiedSearchRegistries() ([]string, error) {
	if c.model != nil {
		return c.model.UnqualifiedSearchRegistries, nil
	}
	return sysregistriesv2.UnqualifiedSearchRegistries(c.sys)
}

// FindRegistry returns the entry that governs ref (a name like "quay.io/ns/repo", or a full reference),
// or nil when no entry matches.
func (c *Config) FindRegistry(ref string) (*sysregistriesv2.Registry, error) {
	if c.model != nil {
		return findRegistry(c.model.Registries, ref), nil
	}
	return sysregistriesv2.FindRegistry(c.sys, ref)
}

// Source is one place a pull tries, in order.
type Source struct {
	// Endpoint is the mirror or primary location as configured.
	Endpoint sysregistriesv2.Endpoint
	// Reference is the reference rewritten for this endpoint, e.g. "mirror.local/ns/repo@sha256:…".
	Reference reference.Named
	// Primary is true for the last source, the reference's own location.
	Primary bool
	// Blocked is true when the rewritten reference's own entry is blocked: the docker transport refuses
	// to contact it ("registry … is blocked").
	Blocked bool
	// Insecure is true when the attempt skips TLS verification and may use plain HTTP.
	Insecure bool
	// Entry is the prefix of the entry governing the rewritten reference ("" when none matches).
	Entry string
}

// Pull describes how a pull of one reference proceeds.
type Pull struct {
	// Registry is the entry the reference matches, nil when none does (then the only source is the
	// reference itself).
	Registry *sysregistriesv2.Registry
	// Sources are the places tried, in order; the last is the primary location.
	Sources []Source
}

// PullSources returns the places a pull of ref tries, in order, with the same logic as the docker
// transport: FindRegistry on the reference's name, PullSourcesFromReference (digest references use
// digest-only and "all" mirrors, tag references tag-only and "all"), and for each attempt the blocked
// flag of the rewritten reference's own entry and the endpoint's insecure flag.
func (c *Config) PullSources(ref reference.Named) (*Pull, error) {
	reg, err := c.FindRegistry(ref.Name())
	if err != nil {
		return nil, err
	}
	if reg == nil {
		return &Pull{Sources: []Source{{Reference: ref, Primary: true, Endpoint: sysregistriesv2.Endpoint{Location: reference.Domain(ref)}}}}, nil
	}
	pss, err := reg.PullSourcesFromReference(ref)
	if err != nil {
		return nil, err
	}
	out := &Pull{Registry: reg}
	for i, ps := range pss {
		s := Source{Endpoint: ps.Endpoint, Reference: ps.Reference, Primary: i == len(pss)-1, Insecure: ps.Endpoint.Insecure}
		own, err := c.FindRegistry(ps.Reference.Name())
		if err != nil {
			return nil, err
		}
		if own != nil {
			s.Blocked = own.Blocked
			s.Entry = own.Prefix
		}
		out.Sources = append(out.Sources, s)
	}
	return out, nil
}

// ParseReference parses an image reference the way CRI-O does before consulting registries.conf:
// short names are not resolved here, so the reference must name its registry.
func ParseReference(s string) (reference.Named, error) {
	ref, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return nil, fmt.Errorf("not an image reference: %q: %v", s, err)
	}
	return ref, nil
}
