package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/nodeaction"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/nodetree"
)

// Exit statuses of diff, from the table every subcommand shares (exitstatus.go). Unlike diff(1), a change is 3:
// 1 means refused input in every subcommand.
const (
	diffExitSame    = exitOK
	diffExitChanged = exitNo
	diffExitError   = exitFailed
)

type diffOptions struct {
	policyFile string
	singleNode bool
}

func newDiffCommand() *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Show what changes in meaning between two renders, and what the change costs a node",
		Long: `diff compares the node files of OLD and NEW by meaning, not by text: the search list, the
[[registry]] entries and mirrors added, removed or changed, the policy.json and namespace policy scopes,
the registries.d keys, the search drop-in. It then prints the action a node running the machine-config
daemon (MCO 4.13 and later) takes to apply the change, by the cluster's node disruption policies (reload
CRI-O, drain and reload, reboot, or what a custom policy asks for), with one reason per finding, and, when
it is smaller, the minimal safe action with why it is safe (advisory: nodes still do what the daemon does).

OLD and NEW are each one of:
  - a registries.conf file;
  - a MachineConfig, YAML or JSON (e.g. 99-worker-generated-registries.yaml written by render);
  - a directory written by 'render --node-root': either one pool's directory (holding etc/containers/
    or etc/crio/), or the root holding one directory per pool, compared pool by pool. A single file or
    pool compared with a root is compared with each of its pools.
A file that is not written (e.g. no policy.json in a MachineConfig) is the node's base file, or no file.

Without --node-disruption-policy the daemon's default node disruption policies apply.

Exit status: 0 when nothing changes, 3 when something changes (not 1 as diff(1): 1 means refused input
in every subcommand), 2 on error (unreadable or unparsable input, printed as one line).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			changed, err := runDiff(cmd.OutOrStdout(), o, args[0], args[1])
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
	cmd.Flags().StringVar(&o.policyFile, "node-disruption-policy", "", "the cluster's MachineConfiguration \"cluster\", YAML or JSON (its status.nodeDisruptionPolicyStatus.clusterPolicies, or else its spec.nodeDisruptionPolicy over the defaults)")
	cmd.Flags().BoolVar(&o.singleNode, "single-node", false, "the cluster is a single-node cluster, whose nodes never drain")
	return cmd
}

// oneLine folds a multi-line error into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// oneLineError prints err on one line, for a one-line error message, and keeps it for errors.Is and errors.As.
type oneLineError struct{ err error }

func (e oneLineError) Error() string { return oneLine(e.err) }
func (e oneLineError) Unwrap() error { return e.err }

func runDiff(w io.Writer, o *diffOptions, oldPath, newPath string) (bool, error) {
	policy := nodeaction.DefaultPolicy()
	if o.policyFile != "" {
		data, err := os.ReadFile(o.policyFile)
		if err != nil {
			return false, err
		}
		if policy, err = nodeaction.ParsePolicy(data); err != nil {
			return false, fmt.Errorf("%s: %w", o.policyFile, err)
		}
	}
	old, err := nodetree.Read(oldPath)
	if err != nil {
		return false, err
	}
	new, err := nodetree.Read(newPath)
	if err != nil {
		return false, err
	}
	// Print only when every pool compared: an error leaves nothing half printed.
	var buf bytes.Buffer
	if o.policyFile != "" {
		fmt.Fprintf(&buf, "node disruption policies: %s\n", policy.Source)
	}
	changed := false
	for i, p := range nodetree.Pairs(old, new) {
		if p.Pool != "" {
			if i > 0 {
				fmt.Fprintln(&buf)
			}
			fmt.Fprintf(&buf, "== pool %s\n", p.Pool)
		}
		if p.Note != "" {
			fmt.Fprintf(&buf, "note: %s\n", p.Note)
		}
		c, err := diffOne(&buf, p.Old, p.New, policy, nodeaction.Options{SingleNode: o.singleNode})
		if err != nil {
			at := ""
			if p.Pool != "" {
				at = " (pool " + p.Pool + ")"
			}
			return false, fmt.Errorf("comparing %s with %s%s: %w", oldPath, newPath, at, err)
		}
		changed = changed || c
	}
	_, err = buf.WriteTo(w)
	return changed, err
}

// diffOne prints the semantic diff and the classification of one pool, and reports whether anything
// changed.
func diffOne(w io.Writer, old, new nodefiles.Files, policy nodeaction.Policy, opts nodeaction.Options) (bool, error) {
	changes, err := nodeaction.Diff(old, new)
	if err != nil {
		return false, err
	}
	res, err := nodeaction.Classify(old, new, policy, opts)
	if err != nil {
		return false, err
	}
	if len(res.Changed) == 0 {
		fmt.Fprintln(w, "no change")
		return false, nil
	}
	fmt.Fprintln(w, "changes:")
	for _, c := range changes {
		fmt.Fprintf(w, "  %s %s: %s\n", changeSymbols[c.Kind], c.Where(), c.Detail)
	}
	fmt.Fprintf(w, "action: %s (%s), as %s does\n", res.Action, res.Action.Describe(), nodeaction.Daemon)
	for _, r := range res.Reasons {
		fmt.Fprintf(w, "  %s\n", r)
	}
	if res.Minimal.Level() < res.Action.Level() {
		fmt.Fprintf(w, "minimal safe action: %s (%s); advisory, nodes still %s\n", res.Minimal, res.Minimal.Describe(), res.Action.Describe())
		for _, r := range res.Reasons {
			if r.Minimal.Level() < r.Action.Level() {
				fmt.Fprintf(w, "  %s is enough for %s: %s\n", r.Minimal, r.Where(), r.Safe)
			}
		}
	}
	return true, nil
}

var changeSymbols = map[nodeaction.ChangeKind]string{nodeaction.Added: "+", nodeaction.Removed: "-", nodeaction.Changed: "~"}
