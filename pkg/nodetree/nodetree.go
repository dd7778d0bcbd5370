// Package nodetree reads the node files of one side of a comparison from disk: a registries.conf, a
// MachineConfig (YAML or JSON), or a directory written by `render --node-root` holding one pool or several,
// and pairs the pools of two sides. What a node then does with the difference is pkg/nodeaction's.
//
//	old, err := nodetree.Read("old-nodes")     // old-nodes/worker/etc/containers/registries.conf, ...
//	new, err := nodetree.Read("99-worker-generated-registries.yaml")
//	for _, p := range nodetree.Pairs(old, new) { // pool "worker" of old against the MachineConfig, ...
//		nodeaction.Classify(p.Old, p.New, policy, opts)
//	}
package nodetree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/BurntSushi/toml"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Tree is one side of a comparison: the files written on the nodes of each pool, by pool name. A single
// set of files (a registries.conf, a MachineConfig, one pool's directory) is the pool "".
type Tree map[string]nodefiles.Files

// Read reads one side from path:
//   - a directory written by `render --node-root`: either one pool's directory (holding a directory of a managed
//     path, e.g. etc/containers or etc/crio/policies), read as pool "", or the root holding one such directory per
//     pool. The files at the node paths the render may write (machineconfigs.Managed: registries.conf, policy.json,
//     the search drop-in, sigstore-registries.yaml, /etc/crio/policies/*) are read, others are not. A directory
//     with no pool is a pool whose files are all the node's base files (render writes nothing then);
//   - a MachineConfig, YAML or JSON: the files of its Ignition config;
//   - any other file: a registries.conf (it must be TOML).
func Read(path string) (Tree, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return readDir(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	files, err := decodeFile(path, data)
	if err != nil {
		return nil, err
	}
	return Tree{"": files}, nil
}

// Pair is one comparison of two trees.
type Pair struct {
	// Pool is the pool compared, "" when both sides are a single set of files.
	Pool string
	// Old and New are the files of each side.
	Old, New nodefiles.Files
	// Note says how the pool was paired when only one side has it, e.g. "pool only in NEW: compared with
	// the node's base files"; "" otherwise.
	Note string
}

// Pairs pairs the pools of two trees, sorted by pool: a pool on both sides is compared with itself; a single
// set of files is compared with each pool of the other side; a pool only one side of pools has is compared
// with no files written (the node's base files), with a Note.
func Pairs(old, new Tree) []Pair {
	set := map[string]bool{}
	for p := range old {
		set[p] = true
	}
	for p := range new {
		set[p] = true
	}
	if len(set) > 1 {
		delete(set, "") // a single side is compared with each pool of the other
	}
	pools := make([]string, 0, len(set))
	for p := range set {
		pools = append(pools, p)
	}
	sort.Strings(pools)
	out := make([]Pair, 0, len(pools))
	for _, p := range pools {
		pair := Pair{Pool: p, Old: pick(old, p), New: pick(new, p)}
		_, inOld := old[p]
		_, inNew := new[p]
		switch {
		case !inOld && !old.single():
			pair.Note = "pool only in NEW: compared with the node's base files"
		case !inNew && !new.single():
			pair.Note = "pool only in OLD: compared with the node's base files"
		}
		out = append(out, pair)
	}
	return out
}

// single reports whether the tree is one set of files rather than pools.
func (t Tree) single() bool {
	_, ok := t[""]
	return ok && len(t) == 1
}

func pick(t Tree, pool string) nodefiles.Files {
	if f, ok := t[pool]; ok {
		return f
	}
	return t[""]
}

// readDir reads a pool directory or a root of pool directories.
func readDir(dir string) (Tree, error) {
	if isPoolDir(dir) {
		files, err := readPoolDir(dir)
		if err != nil {
			return nil, err
		}
		return Tree{"": files}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	tree := Tree{}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if e.IsDir() && isPoolDir(sub) {
			if tree[e.Name()], err = readPoolDir(sub); err != nil {
				return nil, err
			}
		}
	}
	if len(tree) == 0 {
		tree[""] = nodefiles.Files{}
	}
	return tree, nil
}

// isPoolDir reports whether dir holds node files: a directory of a managed path (machineconfigs.ManagedDirs).
func isPoolDir(dir string) bool {
	for _, d := range machineconfigs.ManagedDirs() {
		if info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(d))); err == nil && info.IsDir() {
			return true
		}
	}
	return false
}

// readPoolDir reads the node files at the managed paths of a pool directory, output by output in their table
// order, each directory's files sorted by path.
func readPoolDir(dir string) (nodefiles.Files, error) {
	var out nodefiles.Files
	for _, o := range machineconfigs.Outputs {
		for _, p := range o.Paths {
			if p.Dir {
				files, err := readNodeDir(dir, p.Path)
				if err != nil {
					return nil, err
				}
				out = append(out, files...)
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.Path)))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				return nil, err
			}
			out = append(out, nodefiles.File{Path: p.Path, Data: data})
		}
	}
	return out, nil
}

// readNodeDir reads every regular file below the node directory nodeDir of a pool directory.
func readNodeDir(root, nodeDir string) (nodefiles.Files, error) {
	var out nodefiles.Files
	base := filepath.Join(root, filepath.FromSlash(nodeDir))
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == base:
			return fs.SkipDir
		case err != nil:
			return err
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, nodefiles.File{Path: "/" + filepath.ToSlash(rel), Data: data})
		return nil
	})
	return out, err
}

// decodeFile reads a MachineConfig (YAML or JSON) or a registries.conf.
func decodeFile(path string, data []byte) (nodefiles.Files, error) {
	var tm struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &tm); err == nil && tm.Kind != "" {
		if tm.Kind != "MachineConfig" {
			return nil, fmt.Errorf("%s: kind %s is neither a MachineConfig nor a registries.conf", path, tm.Kind)
		}
		return machineConfigFiles(path, data)
	}
	var probe map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		return nil, fmt.Errorf("%s: neither a MachineConfig nor a registries.conf: %v", path, err)
	}
	return nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: data}}, nil
}

func machineConfigFiles(path string, data []byte) (nodefiles.Files, error) {
	mc := &mcfgv1.MachineConfig{}
	if err := yaml.Unmarshal(data, mc); err != nil {
		return nil, fmt.Errorf("%s: not a valid MachineConfig: %v", path, err)
	}
	files, err := machineconfigs.DecodeFiles(mc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return files, nil
}
