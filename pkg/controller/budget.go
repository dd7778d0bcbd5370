package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
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

// renderedKey identifies what the pools' rendered MachineConfigs are made of: each pool's name, selector and
// current rendered MachineConfig (poolKey), and the version of every MachineConfig of another writer in all (those
// the render controller merges besides this project's), each sorted, so the cache's order does not change it. A
// pool's rendered MachineConfig alone does not say it: the render controller names its next one only after another
// writer's MachineConfig arrives, and the pool's status names it only once every node runs it, which can take hours.
func renderedKey(pools []*mcfgv1.MachineConfigPool, all []*mcfgv1.MachineConfig) string {
	keys := make([]string, 0, len(pools))
	for _, p := range pools {
		keys = append(keys, poolKey(p))
	}
	slices.Sort(keys) // the informer cache's order changes from one list to the next
	var others []string
	for _, mc := range all {
		if mergedIntoPools(mc) && !machineconfigs.IsGenerated(mc) {
			others = append(others, mc.Name+"/"+string(mc.UID)+"/"+mc.ResourceVersion)
		}
	}
	slices.Sort(others)
	return strings.Join(keys, "") + strings.Join(others, ";")
}

// poolKey identifies what a pool's rendered MachineConfig is made of, as far as the pool says: its name, selector
// and current rendered MachineConfig.
func poolKey(p *mcfgv1.MachineConfigPool) string {
	return fmt.Sprintf("%s/%s/%s/%s;", p.Name, p.UID, renderedconfig.CurrentName(p), metav1.FormatLabelSelector(p.Spec.MachineConfigSelector))
}

// mergedIntoPools reports whether obj (a MachineConfig, or the tombstone of one) is one the render controller merges into a
// pool's rendered MachineConfig: any but a rendered one.
func mergedIntoPools(obj any) bool {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	mc, ok := obj.(metav1.Object)
	return ok && !strings.HasPrefix(mc.GetName(), renderedconfig.RenderedPrefix)
}

// renderedChanged reports whether a pool update changes what its rendered MachineConfig is made of: another
// rendered MachineConfig, or another selector.
func renderedChanged(oldObj, newObj any) bool {
	o, okO := oldObj.(*mcfgv1.MachineConfigPool)
	n, okN := newObj.(*mcfgv1.MachineConfigPool)
	return okO && okN && poolKey(o) != poolKey(n)
}
