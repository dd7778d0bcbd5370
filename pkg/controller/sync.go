package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

// SyncOutcome classifies a sync, for metrics and logs.
type SyncOutcome string

const (
	// OutcomeApplied: at least one MachineConfig was created, updated or deleted.
	OutcomeApplied SyncOutcome = "applied"
	// OutcomeUnchanged: every MachineConfig already said what the inputs say.
	OutcomeUnchanged SyncOutcome = "unchanged"
	// OutcomeInvalid: the inputs cannot be rendered; nothing was written.
	OutcomeInvalid SyncOutcome = "invalid"
	// OutcomeError: a transient failure; the sync is retried.
	OutcomeError SyncOutcome = "error"
	// OutcomeDeferred: another writer keeps changing a MachineConfig, and its revert waits (revertLimiter); the
	// sync runs again when the wait is over.
	OutcomeDeferred SyncOutcome = "deferred"
)

// cacheFillingRetry is how soon a sync runs again that found a cache still being filled.
const cacheFillingRetry = 500 * time.Millisecond

// syncResult is everything a sync learned, handed to the status reporter in one piece.
type syncResult struct {
	outcome SyncOutcome
	// inputs are the inputs gathered, nil when gathering failed; events are recorded on their objects.
	inputs  *inputs.Inputs
	output  *render.Output
	invalid *inputs.InvalidError
	writes  []write
	// statusWrites are the objects whose conditions were written.
	statusWrites []statusWrite
	// applyErr is why the MachineConfigs could not be written, nil when they were.
	applyErr error
	// sizes are how large the rendered MachineConfigs are (render.Size), also when one is too large to write.
	sizes []render.Size
	// rendered are how large the pools' rendered MachineConfigs are once the sync's writes are carried out
	// (docs/semantics.md §3.6), nil when the render failed.
	rendered []renderedconfig.Size
	duration time.Duration
	// deferred is how long a held-back revert waits; 0 when none does.
	deferred time.Duration
}

// sync gathers every input from the informer caches, renders once, and applies the difference. Invalid input
// is not an error: it is reported on the objects and retried when one of them changes, not before. A transient
// error (a write the API server refused, the status of an invalid object not written) is returned, and the queue
// retries it.
func (c *Controller) sync(ctx context.Context) (*syncResult, error) {
	res, err := c.syncOnce(ctx)
	switch {
	case err != nil:
		res.outcome = OutcomeError
	case res.invalid != nil:
		res.outcome = OutcomeInvalid
	case res.deferred > 0:
		res.outcome = OutcomeDeferred
	case len(res.writes) > 0:
		res.outcome = OutcomeApplied
	default:
		res.outcome = OutcomeUnchanged
	}
	return res, err
}

// syncOnce gathers, computes and applies: the MachineConfigs first, then the status of the objects reported on
// through their status, which says what the MachineConfigs now carry (or why they were left alone). Invalid input
// is in res.invalid, not in the error, which is only ever a transient failure.
func (c *Controller) syncOnce(ctx context.Context) (*syncResult, error) {
	if !c.reader.HasSynced() {
		// A kind read since the last sync (its feature gate turned on, its CRD installed) is still being listed: a
		// render now would take it for empty.
		return &syncResult{deferred: cacheFillingRetry}, nil
	}
	res := &syncResult{inputs: c.reader.Inputs()}
	out, err := c.render(res)
	if out != nil {
		res.sizes = out.Sizes
	}
	if errors.As(err, &res.invalid) {
		res.statusWrites, err = c.updateStatus(ctx, res)
		crcWrites, crcErr := c.updateContainerRuntimeConfigs(ctx, res)
		res.statusWrites = append(res.statusWrites, crcWrites...)
		return res, errors.Join(err, crcErr)
	}
	if err != nil {
		return res, fmt.Errorf("rendering: %w", err)
	}
	res.output = out
	all, err := c.configs.List(labels.Everything())
	if err != nil {
		return res, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	actions := machineconfigs.Plan(generated(all), c.reader.Decoder(), &out.Set, machineconfigs.PlanOptions{})
	if key := renderedKey(res.inputs.Pools, all); len(actions) > 0 || c.rendered == nil || key != c.renderedFor {
		// Only a write, or another writer's change to a pool's rendered MachineConfig, changes what the render
		// controller will see: a sync that writes nothing keeps the figures of the last. What a write makes is
		// measured before it, so the sync after it (its own write's event) keeps them too.
		c.rendered, c.renderedFor = c.measureRendered(ctx, res.inputs.Pools, all, actions), key
	}
	res.rendered = c.rendered
	if res.invalid = render.CheckRendered(out, res.rendered); res.invalid != nil {
		// The pools would get no configuration at all: nothing is written (docs/semantics.md §3.6).
		res.statusWrites, err = c.updateStatus(ctx, res)
		return res, err
	}
	if res.writes, res.deferred, res.applyErr = c.apply(ctx, actions); res.applyErr != nil {
		// The CRIOCredentialProviderConfig says so (MachineConfigRendered False), as MCO's does; the write is retried.
		res.statusWrites, _ = c.updateStatus(ctx, res)
		return res, res.applyErr
	}
	res.statusWrites, err = c.updateStatus(ctx, res)
	crcWrites, crcErr := c.updateContainerRuntimeConfigs(ctx, res)
	res.statusWrites = append(res.statusWrites, crcWrites...)
	return res, errors.Join(err, crcErr)
}

// generated returns the MachineConfigs of all named as those this controller writes.
func generated(all []*mcfgv1.MachineConfig) []*mcfgv1.MachineConfig {
	var out []*mcfgv1.MachineConfig
	for _, mc := range all {
		if machineconfigs.IsGenerated(mc) {
			out = append(out, mc)
		}
	}
	return out
}

// lastRender is the render of the last sync, kept to be reused while the inputs stay the same.
type lastRender struct {
	// fingerprint is the inputs' (inputs.Inputs.Fingerprint), "" when nothing is kept.
	fingerprint string
	out         *render.Output
	err         error
}

// renderAhead renders the inputs while the settle delay runs (settling), for the sync at its end to reuse: the
// render, the containers/image load-back and the encoding (about 100 ms at 5,000 objects) are then done before the
// delay is over, not after it. Only the worker calls it, between syncs, so that it never competes with a sync's
// writes; an event after it makes the sync render again, as a sync without it would (render's fingerprint). It
// reports whether it rendered: inputs rendered already (the events of the controller's own writes, a pool's status)
// are not rendered again.
func (c *Controller) renderAhead() bool {
	if !c.reader.HasSynced() {
		return false
	}
	before := c.last.out
	_, _ = c.render(&syncResult{inputs: c.reader.Inputs()})
	return c.last.out != before
}

// render renders res.inputs, or reuses the last render when the inputs hold the same versions of the same objects
// (a resync, a pool's status, an unrelated MachineConfig): a sync that changes nothing neither merges nor loads nor
// encodes again. Only results that depend on the inputs alone are kept: an output, or invalid input.
func (c *Controller) render(res *syncResult) (*render.Output, error) {
	fingerprint := res.inputs.Fingerprint()
	if fingerprint != "" && fingerprint == c.last.fingerprint {
		return c.last.out, c.last.err
	}
	start := c.cfg.Clock.Now()
	out, err := render.Render(res.inputs, render.Options{Checker: c.cfg.Checker})
	res.duration = c.cfg.Clock.Since(start)
	c.metrics.renderDuration.Observe(res.duration.Seconds())
	out = keptOutput(out)
	var invalid *inputs.InvalidError
	if err == nil || errors.As(err, &invalid) {
		c.last = lastRender{fingerprint: fingerprint, out: out, err: err}
	}
	return out, err
}

// keptOutput is what a sync keeps of a render, as long as the inputs do not change: the MachineConfigs, their
// sizes, the signature policies' and the credential providers' outcomes and the merge's warnings, which the sync
// writes and reports. The merge's model and its report of where every mirror came from (a FieldRef per mirror of
// every entry, the largest allocation in the heap profile taken after the scale benchmark's burst) are for
// `explain` and `preview`, so the controller does not hold them between renders.
func keptOutput(out *render.Output) *render.Output {
	if out == nil {
		return nil
	}
	kept := *out
	kept.Merge = nil
	if out.Report != nil {
		kept.Report = &registries.Report{Warnings: out.Report.Warnings, Ignored: out.Report.Ignored}
	}
	return &kept
}
