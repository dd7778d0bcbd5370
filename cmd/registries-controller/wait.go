package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// Exit statuses of wait besides 0 (live) and 2 (error), from the table every subcommand shares (exitstatus.go).
const (
	waitTimedOut = exitNo
	// waitNever: the inputs are invalid, or a pool is degraded: the change would never roll out as it stands.
	waitNever = exitNever
)

// waitRecheck is how often wait looks again when nothing it watches changed.
const waitRecheck = 2 * time.Second

type waitOptions struct {
	kubeconfig string
	pools      []string
	timeout    time.Duration
}

func newWaitCommand() *cobra.Command {
	o := &waitOptions{}
	cmd := &cobra.Command{
		Use:   "wait [--pool P...] [--timeout 30m] [--kubeconfig FILE]",
		Short: "Block until the cluster's mirror configuration is live on every node of the pools",
		Long: `wait renders the desired node files from the cluster's inputs, with the function the controller uses,
and blocks until every named pool (default: every built-in pool) has every node on a rendered config carrying
them: the pool's status names a rendered config whose files are those, every machine is updated and ready,
the status is of the pool's generation and Updated is True. When the inputs change meanwhile, it waits for
the new render. It prints one line per pool each time the pool's state changes, e.g.
"worker: 2/5 nodes updated to rendered-worker-<hash>". It only reads (get, list, watch).

Exit status: 0 live on every pool; 3 timed out (it says which pools, and where they stand); 2 error;
4 the change would never roll out: the inputs are invalid (it prints the problems) or a pool is degraded
(it prints the pool's condition).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return o.run(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	cmd.Flags().StringSliceVar(&o.pools, "pool", nil, "pool to wait for; repeat or separate by commas (default: every built-in pool)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Minute, "how long to wait before giving up (exit status 3)")
	return cmd
}

func (o *waitOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	cfg, err := restConfig(o.kubeconfig)
	if err != nil {
		return err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	r, stop, err := cluster.Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer stop()
	checker := registriesconf.NewChecker()
	defer checker.Close()
	w, err := rollout.NewWaiter(r, o.pools, func(in *inputs.Inputs) (*render.Output, error) {
		return render.Render(in, render.Options{Checker: checker})
	})
	if err != nil {
		return err
	}
	p := &waitPrinter{stdout: stdout, stderr: stderr, printed: map[string]string{}}
	for {
		look, err := w.Look()
		if err := p.print(look, err); err != nil {
			return err
		}
		if look.Live {
			fmt.Fprintf(stdout, "live on every pool (%s), %s after the start\n", strings.Join(look.Pools, ", "), time.Since(start).Round(time.Second))
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return p.timedOut(o.timeout, look)
			}
			return ctx.Err()
		case <-w.Wake():
		case <-time.After(waitRecheck):
		}
	}
}

// waitPrinter prints what wait sees: a line per pool each time its state changes.
type waitPrinter struct {
	stdout, stderr io.Writer
	printed        map[string]string // the last line printed for each pool
	started        bool
}

// print prints a look at the cluster; the error carries the exit status when the change would never roll out.
func (p *waitPrinter) print(look rollout.Look, err error) error {
	var invalid *inputs.InvalidError
	switch {
	case errors.As(err, &invalid):
		fmt.Fprintln(p.stderr, invalid.Error())
		fmt.Fprintln(p.stderr, "the controller writes nothing while the inputs are invalid: this would never roll out")
		return &exitError{code: waitNever}
	case errors.Is(err, rollout.ErrNoBuiltInPool):
		return fmt.Errorf("%w with --pool", err)
	case err != nil:
		return err
	}
	if look.InputsChanged {
		fmt.Fprintln(p.stdout, "the inputs changed: waiting for the new render")
	}
	if look.Rendered && !p.started {
		p.started = true
		fmt.Fprintf(p.stdout, "rendered %s; waiting until every node of %s runs it\n", look.Summary, strings.Join(look.Pools, ", "))
	}
	for i, st := range look.States {
		line := st.Message
		switch st.Phase {
		case rollout.Live:
			line = "live: " + line
		case rollout.Degraded:
			line = "degraded: " + line
		}
		if name := look.Pools[i]; p.printed[name] != line {
			p.printed[name] = line
			fmt.Fprintf(p.stdout, "%s: %s\n", name, line)
		}
	}
	if st, degraded := look.Degraded(); degraded {
		fmt.Fprintf(p.stderr, "MachineConfigPool %s is degraded; the change cannot roll out there until it recovers: %s\n", st.Pool, st.Message)
		return &exitError{code: waitNever}
	}
	return nil
}

// timedOut says which pools are not live, and where they stand.
func (p *waitPrinter) timedOut(timeout time.Duration, look rollout.Look) error {
	var pending []string
	for i, name := range look.Pools {
		if i >= len(look.States) || look.States[i].Phase != rollout.Live {
			msg := ""
			if i < len(look.States) {
				msg = look.States[i].Message
			}
			pending = append(pending, fmt.Sprintf("%s: %s", name, msg))
		}
	}
	fmt.Fprintf(p.stderr, "timed out after %s; not live on %d of %d pools:\n  %s\n", timeout, len(pending), len(look.Pools), strings.Join(pending, "\n  "))
	return &exitError{code: waitTimedOut}
}
