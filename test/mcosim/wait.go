package mcosim

import (
	"context"
	"errors"
	"fmt"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// pollInterval is how often WaitUpdated looks at the pool.
const pollInterval = 50 * time.Millisecond

// ErrDegraded is wrapped by the error of WaitUpdated when the pool is degraded.
var ErrDegraded = errors.New("pool is degraded")

// WaitUpdated waits until pool is updated to the config its MachineConfigs render to now: the config
// rendered from the MachineConfigs the API server holds at each look (so one created just before the call
// counts) is the pool's spec.configuration and status.configuration, the status is of the pool's current
// generation, and Updated is True. It returns that rendered config's name. It fails at once with an error
// wrapping ErrDegraded when the pool reports NodeDegraded while Degrade holds, or RenderDegraded while its
// MachineConfigs cannot be rendered (a degraded status about to be rewritten does not count), and when ctx
// ends, saying what it saw last.
func (s *Sim) WaitUpdated(ctx context.Context, pool string) (string, error) {
	var rendered, last string
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		var done bool
		var err error
		rendered, last, done, err = s.updated(ctx, pool)
		return done, err
	})
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("waiting for MachineConfigPool %s to be updated: %w; last seen: %s", pool, err, last)
		}
		return "", err
	}
	return rendered, nil
}

// updated looks at pool once: it returns the name of the config the pool's MachineConfigs render to, what
// the pool's status says, and whether the pool is updated to that config.
func (s *Sim) updated(ctx context.Context, name string) (rendered, seen string, done bool, err error) {
	pool, err := s.client.MachineconfigurationV1().MachineConfigPools().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", "the pool does not exist", false, nil
	}
	if err != nil {
		return "", err.Error(), false, nil
	}
	list, err := s.client.MachineconfigurationV1().MachineConfigs().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err.Error(), false, nil
	}
	configs := make([]*mcfgv1.MachineConfig, len(list.Items))
	for i := range list.Items {
		configs[i] = &list.Items[i]
	}
	mc, _, renderErr := renderPool(pool, configs, s.opts.ControllerVersion)
	// A degraded condition fails the wait only while its cause is there: a status written before Heal, or
	// before the MachineConfig that fixes the render, is about to change.
	if err := degradedError(pool, s.degrading(name), renderErr != nil); err != nil {
		return "", "", false, err
	}
	if renderErr != nil {
		return "", "not rendered: " + renderErr.Error(), false, nil
	}
	st := pool.Status
	seen = fmt.Sprintf("generation %d observed %d, spec.configuration %q, status.configuration %q, %d of %d updated, Updated=%t",
		pool.Generation, st.ObservedGeneration, pool.Spec.Configuration.Name, st.Configuration.Name,
		st.UpdatedMachineCount, st.MachineCount, conditionTrue(pool, mcfgv1.MachineConfigPoolUpdated))
	done = pool.Spec.Configuration.Name == mc.Name && st.Configuration.Name == mc.Name &&
		st.ObservedGeneration == pool.Generation && conditionTrue(pool, mcfgv1.MachineConfigPoolUpdated)
	return mc.Name, seen + fmt.Sprintf(", want %q", mc.Name), done, nil
}

// degradedError returns an error wrapping ErrDegraded with the message of pool's NodeDegraded condition
// when nodeDegraded and it is True, or of its RenderDegraded condition when renderDegraded and it is True.
func degradedError(pool *mcfgv1.MachineConfigPool, nodeDegraded, renderDegraded bool) error {
	checks := []struct {
		t     mcfgv1.MachineConfigPoolConditionType
		cause bool
	}{{mcfgv1.MachineConfigPoolNodeDegraded, nodeDegraded}, {mcfgv1.MachineConfigPoolRenderDegraded, renderDegraded}}
	for _, c := range checks {
		if t := c.t; c.cause && conditionTrue(pool, t) {
			return fmt.Errorf("%w: MachineConfigPool %s: %s: %s", ErrDegraded, pool.Name, t, PoolCondition(pool, t).Message)
		}
	}
	return nil
}

// degrading reports whether Degrade holds for pool.
func (s *Sim) degrading(pool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pools[pool]
	return ok && p.degrade != nil
}

// RenderedFiles returns the files of the rendered config in pool's status.configuration, the one every
// machine of the pool runs: path and decoded contents.
func (s *Sim) RenderedFiles(ctx context.Context, pool string) (map[string][]byte, error) {
	p, err := s.client.MachineconfigurationV1().MachineConfigPools().Get(ctx, pool, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	name := p.Status.Configuration.Name
	if name == "" {
		return nil, fmt.Errorf("MachineConfigPool %s has no status.configuration yet", pool)
	}
	mc, err := s.client.MachineconfigurationV1().MachineConfigs().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	files, err := machineconfigs.DecodeFiles(mc)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		out[f.Path] = f.Data
	}
	return out, nil
}
