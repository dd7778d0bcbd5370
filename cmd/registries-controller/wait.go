package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/generated"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
	"github.com/openshift/registries-controller/pkg/version"
)

// Exit statuses of wait besides 0 (live) and 2 (error).
const (
	waitTimedOut = 1
	// waitNever: the inputs are invalid, or a pool is degraded: the change would never roll out as it stands.
	waitNever = 3
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

Exit status: 0 live on every pool; 1 timed out (it says which pools, and where they stand); 2 error;
3 the change would never roll out: the inputs are invalid (it prints the problems) or a pool is degraded
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
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Minute, "how long to wait before giving up (exit status 1)")
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
	w := &waiter{reader: r, pools: o.pools, stdout: stdout, stderr: stderr, printed: map[string]string{}, wake: make(chan struct{}, 1)}
	if err := w.watch(); err != nil {
		return err
	}
	checker := registriesconf.NewChecker()
	defer checker.Close()
	for {
		done, err := w.look(checker)
		if err != nil || done {
			if err == nil {
				fmt.Fprintf(stdout, "live on every pool (%s), %s after the start\n", strings.Join(w.names, ", "), time.Since(start).Round(time.Second))
			}
			return err
		}
		select {
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return w.timedOut(o.timeout)
			}
			return ctx.Err()
		case <-w.wake:
		case <-time.After(waitRecheck):
		}
	}
}

// waiter follows the pools for wait.
type waiter struct {
	reader         *cluster.Reader
	pools          []string
	stdout, stderr io.Writer
	// inputsChanged is set when an input changed since the last render.
	inputsChanged atomic.Bool
	wake          chan struct{}
	output        *render.Output
	// names are the pools waited for; states their last states; printed the last line printed for each.
	names   []string
	states  map[string]rollout.State
	printed map[string]string
}

// watch makes every change of an input, a pool or a MachineConfig wake the waiter; input changes also re-render.
func (w *waiter) watch() error {
	wake := func() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	err := w.reader.AddEventHandler(cluster.AllKinds, cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.inputsChanged.Store(true); wake() },
		UpdateFunc: func(any, any) { w.inputsChanged.Store(true); wake() },
		DeleteFunc: func(any) { w.inputsChanged.Store(true); wake() },
	})
	if err != nil {
		return err
	}
	_, err = w.reader.MachineConfigInformer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { wake() }, UpdateFunc: func(any, any) { wake() }, DeleteFunc: func(any) { wake() },
	})
	return err
}

// look renders again when the inputs changed, judges every pool, prints the pools whose state changed, and
// reports whether every pool is live. The error carries the exit status when the change would never roll out.
func (w *waiter) look(checker render.Checker) (bool, error) {
	if w.inputsChanged.Swap(false) || w.output == nil {
		in := w.reader.Inputs()
		out, err := render.Render(in, render.Options{Version: version.Version, Checker: checker})
		var invalid *inputs.InvalidError
		if errors.As(err, &invalid) {
			fmt.Fprintln(w.stderr, invalid.Error())
			fmt.Fprintln(w.stderr, "the controller writes nothing while the inputs are invalid: this would never roll out")
			return false, &exitError{code: waitNever}
		}
		if err != nil {
			return false, err
		}
		if w.output != nil && !slices.EqualFunc(w.output.AllFiles(), out.AllFiles(), sameFile) {
			fmt.Fprintln(w.stdout, "the inputs changed: waiting for the new render")
		}
		first := w.output == nil
		w.output = out
		if w.names, err = w.poolNames(in); err != nil {
			return false, err
		}
		if first {
			fmt.Fprintf(w.stdout, "rendered %s; waiting until every node of %s runs it\n", in.Summary(), strings.Join(w.names, ", "))
		}
	}
	w.states = map[string]rollout.State{}
	live := true
	for _, name := range w.names {
		pool := w.reader.Pool(name)
		if pool == nil {
			return false, fmt.Errorf("MachineConfigPool %s does not exist", name)
		}
		st, err := w.reader.PoolRollout(pool, w.output)
		if err != nil {
			return false, err
		}
		w.states[name] = st
		line := st.Message
		switch st.Phase {
		case rollout.Live:
			line = "live: " + line
		case rollout.Degraded:
			line = "degraded: " + line
		}
		if w.printed[name] != line {
			w.printed[name] = line
			fmt.Fprintf(w.stdout, "%s: %s\n", name, line)
		}
		if st.Phase == rollout.Degraded {
			fmt.Fprintf(w.stderr, "MachineConfigPool %s is degraded; the change cannot roll out there until it recovers: %s\n", name, st.Message)
			return false, &exitError{code: waitNever}
		}
		live = live && st.Phase == rollout.Live
	}
	return live, nil
}

func sameFile(a, b nodefiles.File) bool { return a.Path == b.Path && string(a.Data) == string(b.Data) }

// poolNames returns the pools to wait for: those named, or every built-in pool.
func (w *waiter) poolNames(in *inputs.Inputs) ([]string, error) {
	if len(w.pools) > 0 {
		return w.pools, nil
	}
	if len(in.Pools) == 0 {
		return nil, errors.New("no built-in MachineConfigPool exists; name the pools to wait for with --pool")
	}
	names := generated.BuiltInPools(in.Pools)
	if len(names) == 0 {
		return nil, errors.New("no built-in MachineConfigPool exists; name the pools to wait for with --pool")
	}
	return names, nil
}

// timedOut says which pools are not live, and where they stand.
func (w *waiter) timedOut(timeout time.Duration) error {
	var pending []string
	for _, name := range w.names {
		if st, ok := w.states[name]; !ok || st.Phase != rollout.Live {
			pending = append(pending, fmt.Sprintf("%s: %s", name, w.states[name].Message))
		}
	}
	fmt.Fprintf(w.stderr, "timed out after %s; not live on %d of %d pools:\n  %s\n", timeout, len(pending), len(w.names), strings.Join(pending, "\n  "))
	return &exitError{code: waitTimedOut}
}
