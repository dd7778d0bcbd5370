package controller

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// poolsRenderHandler passes on the pool events that can change a render: adds, deletes and label changes. A
// render reads only the pools' names and labels (render.PoolNames); their status changes at every step of a
// rollout and must not re-render.
func poolsRenderHandler(h cache.ResourceEventHandlerFuncs) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    h.AddFunc,
		DeleteFunc: h.DeleteFunc,
		UpdateFunc: func(oldObj, newObj any) {
			o, errO := meta.Accessor(oldObj)
			n, errN := meta.Accessor(newObj)
			if errO != nil || errN != nil || !reflect.DeepEqual(o.GetLabels(), n.GetLabels()) {
				h.UpdateFunc(oldObj, newObj)
			}
		},
	}
}
