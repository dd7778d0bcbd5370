package mcosim

import (
	"context"
	"fmt"
	"slices"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// syncAll makes one pass over every pool and returns how long to wait before the next one. The pools are
// read from the API server rather than a cache: the simulator writes them itself and must step on what
// the server holds, not on a cache that may lag behind its own writes.
func (s *Sim) syncAll(ctx context.Context) time.Duration {
	logger := klog.FromContext(ctx).WithName("mcosim")
	pools, err := s.client.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
	if err != nil {
		if ctx.Err() == nil {
			logger.Error(err, "Listing MachineConfigPools")
		}
		return retryDelay
	}
	configs, err := s.configs.List(labels.Everything())
	if err != nil {
		logger.Error(err, "Listing MachineConfigs")
		return retryDelay
	}
	next := resyncPeriod
	for i := range pools.Items {
		pool := &pools.Items[i]
		wait, err := s.syncPool(ctx, pool, configs)
		if err != nil {
			if ctx.Err() == nil {
				logger.Error(err, "Syncing MachineConfigPool", "pool", pool.Name)
			}
			wait = retryDelay
		}
		next = min(next, wait)
	}
	return next
}

// syncPool renders pool as the render controller does, moves its rollout by a step when one is due and
// writes its status. It returns how long to wait before the next step.
func (s *Sim) syncPool(ctx context.Context, pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig) (time.Duration, error) {
	if pending, err := s.ensureBaseConfig(ctx, pool, configs); err != nil || pending {
		// The next pass, woken by the new MachineConfig, renders the pool with it.
		return resyncPeriod, err
	}
	rendered, source, renderErr := renderPool(pool, configs, s.opts.ControllerVersion)
	if renderErr == nil {
		if err := s.ensureRendered(ctx, rendered); err != nil {
			return 0, err
		}
		var err error
		if pool, err = s.setConfiguration(ctx, pool, rendered.Name, source); err != nil {
			return 0, err
		}
	}
	wait := s.advance(pool)
	return wait, s.writeStatus(ctx, pool, renderErr)
}

// ensureBaseConfig creates the MachineConfig 00-<pool> of a built-in pool when it is missing, and reports whether
// the pool must wait for the next pass: it tried to create it, or it exists but is not in configs, this pass's list
// of MachineConfigs, taken before the cache had it (rendering from that list would report a RenderDegraded that
// MCO, whose template controller writes the base configs before any render, never reports).
func (s *Sim) ensureBaseConfig(ctx context.Context, pool *mcfgv1.MachineConfigPool, configs []*mcfgv1.MachineConfig) (bool, error) {
	if _, builtIn := pool.Labels[machineconfigs.BuiltInPoolLabel]; s.opts.NoBaseConfigs || !builtIn {
		return false, nil
	}
	name := baseConfigName(pool.Name)
	if _, err := s.configs.Get(name); err == nil {
		return !slices.ContainsFunc(configs, func(mc *mcfgv1.MachineConfig) bool { return mc.Name == name }), nil
	} else if !apierrors.IsNotFound(err) {
		return false, err
	}
	base, err := baseConfig(pool.Name)
	if err != nil {
		return false, err
	}
	created := []*mcfgv1.MachineConfig{base}
	if s.opts.RenderedBytes > 0 {
		padding, err := paddingConfig(pool, base, s.opts.RenderedBytes)
		if err != nil {
			return false, err
		}
		// The padding first: the base config's appearance is what says both exist.
		created = []*mcfgv1.MachineConfig{padding, base}
	}
	for _, mc := range created {
		_, err = s.client.MachineconfigurationV1().MachineConfigs().Create(ctx, mc, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("creating MachineConfig %s: %w", mc.Name, err)
		}
	}
	return true, nil
}

// ensureRendered creates the rendered MachineConfig when it does not exist. Its name is a hash of its
// contents, so one that exists holds them already.
func (s *Sim) ensureRendered(ctx context.Context, rendered *mcfgv1.MachineConfig) error {
	if _, err := s.configs.Get(rendered.Name); !apierrors.IsNotFound(err) {
		return err
	}
	_, err := s.client.MachineconfigurationV1().MachineConfigs().Create(ctx, rendered, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating MachineConfig %s: %w", rendered.Name, err)
	}
	return nil
}

// setConfiguration points pool's spec.configuration at the rendered config name, made of source, when it
// does not already, and returns the pool as stored.
func (s *Sim) setConfiguration(ctx context.Context, pool *mcfgv1.MachineConfigPool, name string, source []corev1.ObjectReference) (*mcfgv1.MachineConfigPool, error) {
	want := mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: name}, Source: source}
	err := s.retryOnConflict(ctx, &pool, func() error {
		if equality.Semantic.DeepEqual(pool.Spec.Configuration, want) {
			return nil
		}
		changed := pool.DeepCopy()
		changed.Spec.Configuration = want
		updated, err := s.client.MachineconfigurationV1().MachineConfigPools().Update(ctx, changed, metav1.UpdateOptions{})
		if err == nil {
			klog.FromContext(ctx).V(2).Info("Rendered", "pool", pool.Name, "config", name)
			pool = updated
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("setting spec.configuration of MachineConfigPool %s: %w", pool.Name, err)
	}
	return pool, nil
}

// advance moves the rollout of pool by a step when one is due and returns how long to wait before the next.
func (s *Sim) advance(pool *mcfgv1.MachineConfigPool) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.machinesLocked(pool)
	target := pool.Spec.Configuration.Name
	hold := p.paused || pool.Spec.Paused
	p.boot(target)
	p.applyDegrade(target)
	if !p.pending(target, hold) {
		return resyncPeriod
	}
	now := time.Now()
	if due := p.lastStep.Add(s.stepDelay); now.Before(due) {
		return due.Sub(now)
	}
	p.step(target, maxUnavailable(pool, len(p.nodes)), hold)
	p.lastStep = now
	return s.stepDelay
}

// machinesLocked returns the state of pool with its machines: on first sight, or when the pool was created
// anew, they run the pool's status.configuration. s.mu must be held.
func (s *Sim) machinesLocked(pool *mcfgv1.MachineConfigPool) *poolState {
	p := s.stateLocked(pool.Name)
	if p.uid != pool.UID {
		p.uid, p.nodes, p.lastStep = pool.UID, nil, time.Time{}
		p.resize(pool.Name, pool.Status.Configuration.Name)
	}
	p.resize(pool.Name, pool.Spec.Configuration.Name)
	return p
}

// writeStatus writes the status of pool when it changed, through the status subresource.
func (s *Sim) writeStatus(ctx context.Context, pool *mcfgv1.MachineConfigPool, renderErr error) error {
	err := s.retryOnConflict(ctx, &pool, func() error {
		s.mu.Lock()
		status := s.machinesLocked(pool).status(pool, renderErr, metav1.Now())
		s.mu.Unlock()
		if equality.Semantic.DeepEqual(status, pool.Status) {
			return nil
		}
		changed := pool.DeepCopy()
		changed.Status = status
		_, err := s.client.MachineconfigurationV1().MachineConfigPools().UpdateStatus(ctx, changed, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("writing the status of MachineConfigPool %s: %w", pool.Name, err)
	}
	return nil
}

// retryOnConflict runs write until it does not fail with a conflict, a few times at most, reading *pool
// afresh from the API server before each retry.
func (s *Sim) retryOnConflict(ctx context.Context, pool **mcfgv1.MachineConfigPool, write func() error) error {
	first := true
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if !first {
			fresh, err := s.client.MachineconfigurationV1().MachineConfigPools().Get(ctx, (*pool).Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			*pool = fresh
		}
		first = false
		return write()
	})
}
