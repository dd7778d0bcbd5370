package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/nodeaction"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/render"
)

// Exit statuses of diff, as diff(1) has them.
const (
	diffExitSame    = 0
	diffExitChanged = 1
	diffExitError   = 2
)

func newDiffCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changes in meaning between two renders, and what the change costs a node",
		Long: `diff compares the node files of OLD and NEW by meaning, not by text: the search list, the
[[registry]] entries and mirrors added, removed or changed, the policy.json scopes, the search drop-in.
It then prints the action a node running the machine-config daemon takes to apply the change (reload
CRI-O, drain and reload, or reboot) with one reason per finding, and, when it is smaller, the minimal
safe action with why it is safe (advisory: nodes still do what the daemon does).

OLD and NEW are each one of:
  - a registries.conf file;
  - a MachineConfig, YAML or JSON (e.g. 99-worker-generated-registries.yaml written by render);
  - a directory written by 'render --node-root': either one pool's directory (holding etc/containers/),
    or the root holding one directory per pool, compared pool by pool. A single file or pool compared
    with a root is compared with each of its pools.
A file that is not written (e.g. no policy.json in a MachineConfig) is the node's base file.

Exit status: 0 when nothing changes, 1 when something changes, 2 on error (unreadable or unparsable
input, printed as one line).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			changed, err := runDiff(cmd.OutOrStdout(), args[0], args[1])
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "error: %s\n", oneLine(err))
				return &exitError{code: diffExitError}
			}
			if changed {
				return &exitError{code: diffExitChanged}
			}
			return nil
		},
	}
}

// oneLine folds a multi-line error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// nodeTree is one side of a diff: the files per pool; the pool is "" for a single file set.
type nodeTree map[string]nodeaction.Files

func runDiff(w io.Writer, oldPath, newPath string) (bool, error) {
	old, err := readNodeTree(oldPath)
	if err != nil {
		return false, err
	}
	new, err := readNodeTree(newPath)
	if err != nil {
		return false, err
	}
	pools, notes := pairPools(old, new)
	// Print only when every pool compared: an error leaves nothing half printed.
	out := w
	var buf bytes.Buffer
	w = &buf
	changed := false
	for i, pool := range pools {
		if pool != "" {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "== pool %s\n", pool)
		}
		if n := notes[pool]; n != "" {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		c, err := diffOne(w, pick(old, pool), pick(new, pool))
		if err != nil {
			at := ""
			if pool != "" {
				at = " (pool " + pool + ")"
			}
			return false, fmt.Errorf("comparing %s with %s%s: %w", oldPath, newPath, at, err)
		}
		changed = changed || c
	}
	_, err = buf.WriteTo(out)
	return changed, err
}

// pairPools returns the pools to compare, sorted, with a note for pools only one side has.
func pairPools(old, new nodeTree) ([]string, map[string]string) {
	single := func(t nodeTree) bool { _, ok := t[""]; return ok && len(t) == 1 }
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
	notes := map[string]string{}
	pools := make([]string, 0, len(set))
	for p := range set {
		pools = append(pools, p)
		_, inOld := old[p]
		_, inNew := new[p]
		switch {
		case !inOld && !single(old):
			notes[p] = "pool only in NEW: compared with the node's base files"
		case !inNew && !single(new):
			notes[p] = "pool only in OLD: compared with the node's base files"
		}
	}
	sort.Strings(pools)
	return pools, notes
}

func pick(t nodeTree, pool string) nodeaction.Files {
	if f, ok := t[pool]; ok {
		return f
	}
	return t[""]
}

// diffOne prints the semantic diff and the classification of one pool, and reports whether anything
// changed.
func diffOne(w io.Writer, old, new nodeaction.Files) (bool, error) {
	changes, err := nodeaction.Diff(old, new)
	if err != nil {
		return false, err
	}
	res, err := nodeaction.Classify(old, new)
	if err != nil {
		return false, err
	}
	if res.Action == nodeaction.None {
		fmt.Fprintln(w, "no change")
		return false, nil
	}
	fmt.Fprintln(w, "changes:")
	for _, c := range changes {
		fmt.Fprintf(w, "  %s\n", changeLine(c))
	}
	fmt.Fprintf(w, "action: %s (%s), as the machine-config daemon does\n", res.Action, res.Action.Describe())
	for _, r := range res.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
	}
	if res.Minimal < res.Action {
		fmt.Fprintf(w, "minimal safe action: %s (%s); advisory, nodes still %s\n", res.Minimal, res.Minimal.Describe(), res.Action.Describe())
		for _, r := range res.Reasons {
			if r.Minimal < r.Action {
				fmt.Fprintf(w, "  %s is enough for %s: %s\n", r.Minimal, where(r), r.Safe)
			}
		}
	}
	return true, nil
}

var changeSymbols = map[nodeaction.ChangeKind]string{nodeaction.Added: "+", nodeaction.Removed: "-", nodeaction.Changed: "~"}

// changeLine prints a change as `+ registries.conf [[registry]] "quay.io" mirror "m.local": digest-only`.
func changeLine(c nodeaction.Change) string {
	return fmt.Sprintf("%s %s: %s", changeSymbols[c.Kind], location(c.File, c.Entry, c.Mirror), c.Detail)
}

func where(r nodeaction.Reason) string { return location(r.File, r.Entry, r.Mirror) }

func location(file, entry, mirror string) string {
	s := strings.TrimPrefix(file, "/etc/containers/")
	if entry != "" {
		s += fmt.Sprintf(" [[registry]] %q", entry)
	}
	if mirror != "" {
		s += fmt.Sprintf(" mirror %q", mirror)
	}
	return s
}

// readNodeTree reads one side: a directory written by render --node-root, a MachineConfig, or a
// registries.conf.
func readNodeTree(path string) (nodeTree, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return readNodeDir(path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	files, err := decodeNodeFile(path, data)
	if err != nil {
		return nil, err
	}
	return nodeTree{"": files}, nil
}

// etcContainers is where the node files live below a pool directory.
var etcContainers = filepath.Join("etc", "containers")

// readNodeDir reads a pool directory (holding etc/containers) or a root of pool directories. A
// directory with neither is a pool whose files are all the node's base files (render writes nothing
// then).
func readNodeDir(dir string) (nodeTree, error) {
	if isDir(filepath.Join(dir, etcContainers)) {
		files, err := readPoolDir(dir)
		if err != nil {
			return nil, err
		}
		return nodeTree{"": files}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	tree := nodeTree{}
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if e.IsDir() && isDir(filepath.Join(sub, etcContainers)) {
			if tree[e.Name()], err = readPoolDir(sub); err != nil {
				return nil, err
			}
		}
	}
	if len(tree) == 0 {
		tree[""] = nodeaction.Files{}
	}
	return tree, nil
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func readPoolDir(dir string) (nodeaction.Files, error) {
	read := func(nodePath string) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(nodePath)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return data, err
	}
	var f nodeaction.Files
	var err error
	if f.RegistriesConf, err = read(nodefiles.RegistriesConf); err != nil {
		return f, err
	}
	if f.PolicyJSON, err = read(nodefiles.PolicyJSON); err != nil {
		return f, err
	}
	f.SearchRegistries, err = read(nodefiles.SearchRegistries)
	return f, err
}

// decodeNodeFile reads a MachineConfig (YAML or JSON) or a registries.conf.
func decodeNodeFile(path string, data []byte) (nodeaction.Files, error) {
	var tm struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &tm); err == nil && tm.Kind != "" {
		if tm.Kind != "MachineConfig" {
			return nodeaction.Files{}, fmt.Errorf("%s: kind %s is neither a MachineConfig nor a registries.conf", path, tm.Kind)
		}
		return machineConfigFiles(path, data)
	}
	var probe map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		return nodeaction.Files{}, fmt.Errorf("%s: neither a MachineConfig nor a registries.conf: %v", path, err)
	}
	return nodeaction.Files{RegistriesConf: data}, nil
}

func machineConfigFiles(path string, data []byte) (nodeaction.Files, error) {
	mc := &mcfgv1.MachineConfig{}
	if err := yaml.Unmarshal(data, mc); err != nil {
		return nodeaction.Files{}, fmt.Errorf("%s: not a valid MachineConfig: %v", path, err)
	}
	files, err := render.Files(mc)
	if err != nil {
		return nodeaction.Files{}, fmt.Errorf("%s: %w", path, err)
	}
	var f nodeaction.Files
	for _, file := range files {
		switch file.Path {
		case nodefiles.RegistriesConf:
			f.RegistriesConf = nonNil(file.Data)
		case nodefiles.PolicyJSON:
			f.PolicyJSON = nonNil(file.Data)
		case nodefiles.SearchRegistries:
			f.SearchRegistries = nonNil(file.Data)
		}
	}
	return f, nil
}

// nonNil keeps a written empty file apart from a file that is not written.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
