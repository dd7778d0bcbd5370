package cluster

import (
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// lastAppliedAnnotation is where `kubectl apply` keeps the whole object it applied, as JSON: as large as the
// object itself, and read by nothing here.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// dropUnread is the informers' transform for the input kinds: it keeps in the caches only what a render, an
// event or a status write reads, leaving out the managed fields and the last-applied annotation, which together
// make an object applied with kubectl about three times its size (docs/benchmarks.md has the memory it saves).
// Status writes send the cached object back through the status subresource, which ignores metadata other than
// the resourceVersion, so the fields left out are not lost.
func dropUnread(obj any) (any, error) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tomb, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	m.SetManagedFields(nil)
	dropLastApplied(m)
	return obj, nil
}

// dropLastAppliedMachineConfigs is the transform of the machineconfiguration.openshift.io informers: the
// controller names the other writer of a generated MachineConfig from its managed fields, so of a MachineConfig
// only the last-applied annotation is left out; the pools are input kinds (dropUnread).
func dropLastAppliedMachineConfigs(obj any) (any, error) {
	mc, ok := obj.(*mcfgv1.MachineConfig)
	if !ok {
		return dropUnread(obj)
	}
	dropLastApplied(mc)
	return mc, nil
}

func dropLastApplied(m metav1.Object) {
	if a := m.GetAnnotations(); a[lastAppliedAnnotation] != "" {
		delete(a, lastAppliedAnnotation)
		m.SetAnnotations(a)
	}
}
