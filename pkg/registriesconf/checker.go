package registriesconf

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"

	// The docker transport validates the scopes of a policy.json and reads registries.d.
	"github.com/containers/image/v5/docker"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Checker loads rendered node files with containers/image, as a node would, and fails when the library
// rejects one: registries.conf together with the registries.conf.d drop-ins, every policy.json with the
// library's strict parser, and the registries.d files together with the node's base ones
// (nodefiles.BaseRegistriesDFiles), which the library refuses when two files configure the same key. It is the render's one filesystem access (render.Options.Checker).
//
// A Checker keeps one private directory for its loads, so the library's cache of loaded configurations, keyed
// by path, holds one entry whatever the number of renders. It remembers the last set of files it accepted: a
// render of unchanged inputs (every resync, every unrelated event) is not loaded again. It is safe for
// concurrent use. Close removes the directory.
type Checker struct {
	mu   sync.Mutex
	dir  string
	sys  *types.SystemContext
	last [sha256.Size]byte
	// entries is the number of [[registry]] entries of the last accepted files; valid when checked.
	entries int
	checked bool
	// loads counts the loads done, for tests.
	loads int
}

// NewChecker returns a Checker; its directory is created on first use.
func NewChecker() *Checker { return &Checker{} }

// Check loads files (see Checker) and returns how many [[registry]] entries the library read from
// registries.conf, 0 when none is written.
func (c *Checker) Check(files nodefiles.Files) (int, error) {
	sum := digestOf(files)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.checked && sum == c.last {
		return c.entries, nil
	}
	c.loads++
	entries, err := c.load(files)
	if err != nil {
		return 0, err
	}
	c.last, c.entries, c.checked = sum, entries, true
	return entries, nil
}

func (c *Checker) load(files nodefiles.Files) (int, error) {
	for _, f := range files {
		if f.Path == nodefiles.PolicyJSON || isNamespacePolicy(f.Path) {
			if _, err := signature.NewPolicyFromBytes(f.Data); err != nil {
				return 0, fmt.Errorf("%s: %w", f.Path, err)
			}
		}
	}
	if err := c.loadRegistriesD(files.Under(nodefiles.RegistriesDir)); err != nil {
		return 0, err
	}
	conf, written := files.Get(nodefiles.RegistriesConf)
	dropIns := map[string][]byte{}
	for _, f := range files.Under(nodefiles.DropInDir) {
		dropIns[path.Base(f.Path)] = f.Data
	}
	if !written && len(dropIns) == 0 {
		return 0, nil
	}
	if !written {
		conf = nodefiles.Base(nodefiles.RegistriesConf) // the drop-ins are read on top of the node's base file
	}
	if err := c.prepare(); err != nil {
		return 0, err
	}
	if err := writeConfig(c.sys, conf, dropIns); err != nil {
		return 0, err
	}
	loaded, err := sysregistriesv2.TryUpdatingCache(c.sys)
	if err != nil {
		return 0, fmt.Errorf("containers/image cannot load the registries configuration: %s", stripTempPaths(err.Error()))
	}
	n := len(loaded.Registries)
	c.release()
	if !written {
		return 0, nil
	}
	return n, nil
}

// release replaces containers/image's cached copy of the configuration just loaded (the library keeps the last
// configuration loaded from each path, process-wide, until that path is loaded again: 5-7 MB at 5,000 objects,
// docs/benchmarks.md "Memory at 5,000 objects") by the node's small base file. Only the Checker reads that path,
// and it loads it again before every check, so nothing reads the copy; a failure only keeps it.
func (c *Checker) release() {
	if err := writeConfig(c.sys, nodefiles.Base(nodefiles.RegistriesConf), nil); err != nil {
		return
	}
	_, _ = sysregistriesv2.TryUpdatingCache(c.sys)
}

// loadRegistriesD loads the rendered registries.d files with the node's base ones, as the docker transport
// does before every pull that may read signatures (docs/semantics.md §6.5, §9.9 D9).
func (c *Checker) loadRegistriesD(rendered nodefiles.Files) error {
	if len(rendered) == 0 {
		return nil
	}
	if err := c.prepare(); err != nil {
		return err
	}
	dir := filepath.Join(c.dir, "registries.d")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("creating a registries.d directory to load: %w", err)
	}
	for name, data := range nodefiles.BaseRegistriesDFiles {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return err
		}
	}
	for _, f := range rendered {
		if err := os.WriteFile(filepath.Join(dir, path.Base(f.Path)), f.Data, 0o600); err != nil {
			return err
		}
	}
	ref, err := docker.ParseReference("//registries-controller.invalid/check")
	if err != nil {
		return err
	}
	sys := &types.SystemContext{RegistriesDirPath: dir}
	if _, err := docker.SignatureStorageBaseURL(sys, ref, false); err != nil {
		return fmt.Errorf("containers/image cannot load %s: %s", nodefiles.RegistriesDir, strings.ReplaceAll(err.Error(), dir, nodefiles.RegistriesDir))
	}
	return nil
}

// prepare creates the private directory once, and empties the drop-in directory of the previous load.
func (c *Checker) prepare() error {
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "registriesconf-")
		if err != nil {
			return fmt.Errorf("creating a directory to load registries.conf from: %w", err)
		}
		c.dir, c.sys = dir, systemContext(dir)
	}
	return os.RemoveAll(c.sys.SystemRegistriesConfDirPath)
}

// Close removes the Checker's directory. A Checker can be used again after Close.
func (c *Checker) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
		c.dir, c.sys = "", nil
	}
}

// digestOf returns a digest of the paths and contents of files.
func digestOf(files nodefiles.Files) [sha256.Size]byte {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%d:%s%d:", len(f.Path), f.Path, len(f.Data))
		h.Write(f.Data)
	}
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}

func isNamespacePolicy(p string) bool {
	_, ok := nodefiles.IsNamespacePolicy(p)
	return ok
}
