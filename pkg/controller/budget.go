package controller

import (
	"context"
	"fmt"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/renderedconfig"
)

// measureRendered returns the size of every pool's rendered MachineConfig once actions are carried out on all (every
// MachineConfig in the cache), pools measured concurrently (docs/semantics.md §3.6). A pool whose MachineConfigs the
// render controller cannot merge (another writer's config it refuses) is left out and logged: it is degraded
// whatever this project writes, and this project's writes must not wait for it.
func (c *Controller) measureRendered(ctx context.Context, pools []*mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig, actions []machineconfigs.Action) []renderedconfig.Size {
	sizes, errs := renderedconfig.MeasurePools(pools, all, actions, c.budgetCache)
	c.budgetCache.Sweep()
	var out []renderedconfig.Size
	for i, err := range errs {
		if err != nil {
			klog.FromContext(ctx).Info("Cannot measure the pool's rendered MachineConfig", "pool", pools[i].Name, "err", err)
			continue
		}
		out = append(out, sizes[i])
	}
	return out
}

// renderedKey identifies what the pools' rendered MachineConfigs are made of, as far as the pools say: each pool's
// name, selector and current rendered MachineConfig.
func renderedKey(pools []*mcfgv1.MachineConfigPool) string {
	var b strings.Builder
	for _, p := range pools {
		fmt.Fprintf(&b, "%s/%s/%s/%s;", p.Name, p.UID, renderedconfig.CurrentName(p), metav1.FormatLabelSelector(p.Spec.MachineConfigSelector))
	}
	return b.String()
}

// renderedChanged reports whether a pool update changes what its rendered MachineConfig is made of: another
// rendered MachineConfig, or another selector.
func renderedChanged(oldObj, newObj any) bool {
	o, okO := oldObj.(*mcfgv1.MachineConfigPool)
	n, okN := newObj.(*mcfgv1.MachineConfigPool)
	return okO && okN && renderedKey([]*mcfgv1.MachineConfigPool{o}) != renderedKey([]*mcfgv1.MachineConfigPool{n})
}
