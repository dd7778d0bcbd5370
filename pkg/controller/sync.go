package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/render"
)

// Outcome classifies a sync, for metrics and logs.
type Outcome string

const (
	// OutcomeApplied: at least one MachineConfig was created, updated or deleted.
	OutcomeApplied Outcome = "applied"
	// OutcomeUnchanged: every MachineConfig already said what the inputs say.
	OutcomeUnchanged Outcome = "unchanged"
	// OutcomeInvalid: the inputs cannot be rendered; nothing was written.
	OutcomeInvalid Outcome = "invalid"
	// OutcomeError: a transient failure; the sync is retried.
	OutcomeError Outcome = "error"
)

// syncResult is everything a sync learned, handed to the status reporter in one piece.
type syncResult struct {
	outcome  Outcome
	inputs   *render.Inputs
	output   *render.Output
	invalid  *registries.InvalidInputError
	writes   []write
	duration time.Duration
}

// sync gathers every input from the listers, renders once, and applies the difference.
func (c *Controller) sync(ctx context.Context) error {
	logger := klog.FromContext(ctx)
	res := &syncResult{}
	err := c.syncOnce(ctx, res)
	switch {
	case res.invalid != nil:
		res.outcome = OutcomeInvalid
		err = nil // reported on the objects; retried when one of them changes, not before
	case err != nil:
		res.outcome = OutcomeError
	case len(res.writes) > 0:
		res.outcome = OutcomeApplied
	default:
		res.outcome = OutcomeUnchanged
	}
	c.status.report(ctx, res, err)
	if err != nil {
		logger.Error(err, "Sync failed, will retry")
	}
	return err
}

func (c *Controller) syncOnce(ctx context.Context, res *syncResult) error {
	in, err := c.gather()
	if err != nil {
		return err
	}
	res.inputs = in
	start := c.clock.Now()
	out, err := render.Render(in)
	res.duration = c.clock.Since(start)
	c.metrics.renderDuration.Observe(res.duration.Seconds())
	if errors.As(err, &res.invalid) {
		return err
	}
	if err != nil {
		return fmt.Errorf("rendering: %w", err)
	}
	res.output = out
	existing, err := c.generatedConfigs()
	if err != nil {
		return err
	}
	return c.apply(ctx, out.MachineConfigs, existing, res)
}

// gather reads every input from the informer caches. Objects are shared with the cache and only read.
func (c *Controller) gather() (*render.Inputs, error) {
	all := labels.Everything()
	in := &render.Inputs{Version: c.cfg.Version}
	var err error
	if in.ImageContentSourcePolicies, err = c.icsps.List(all); err != nil {
		return nil, fmt.Errorf("listing ImageContentSourcePolicies: %w", err)
	}
	if in.ImageDigestMirrorSets, err = c.idmss.List(all); err != nil {
		return nil, fmt.Errorf("listing ImageDigestMirrorSets: %w", err)
	}
	if in.ImageTagMirrorSets, err = c.itmss.List(all); err != nil {
		return nil, fmt.Errorf("listing ImageTagMirrorSets: %w", err)
	}
	if in.Pools, err = c.pools.List(all); err != nil {
		return nil, fmt.Errorf("listing MachineConfigPools: %w", err)
	}
	image, err := c.images.Get(registries.ImageConfigName)
	switch {
	case apierrors.IsNotFound(err):
		// Render from the mirror objects alone; the MachineConfigs then have no owner.
	case err != nil:
		return nil, fmt.Errorf("getting Image %s: %w", registries.ImageConfigName, err)
	default:
		in.Image = image
	}
	version, err := c.versions.Get(registries.ClusterVersionName)
	switch {
	case apierrors.IsNotFound(err):
		// The payload rule cannot run: blocked registries are not applied, and that is reported.
	case err != nil:
		return nil, fmt.Errorf("getting ClusterVersion %s: %w", registries.ClusterVersionName, err)
	default:
		in.ReleaseImage = releaseImage(version)
	}
	return in, nil
}

// releaseImage is the payload the cluster runs or is moving to.
func releaseImage(cv *configv1.ClusterVersion) string {
	return cv.Status.Desired.Image
}

// generatedConfigs returns the MachineConfigs this controller generates, by name.
func (c *Controller) generatedConfigs() (map[string]*mcfgv1.MachineConfig, error) {
	list, err := c.configs.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing MachineConfigs: %w", err)
	}
	out := map[string]*mcfgv1.MachineConfig{}
	for _, mc := range list {
		if isGeneratedName(mc) {
			out[mc.Name] = mc
		}
	}
	return out, nil
}
