package controller

import (
	"context"
	"net/http"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"
)

// crdResource is the resource of CustomResourceDefinitions.
var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// CRDNames returns the names of the CustomResourceDefinitions of the kinds the controller reads or writes
// (RESOURCE.GROUP, e.g. "imagedigestmirrorsets.config.openshift.io"), sorted: the controller watches each of them
// by name, which is what manifests/ grants (test/rbac checks both agree).
func CRDNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range servedKinds() {
		if k.Resource.Group == "" {
			continue // a built-in kind has no CRD
		}
		name := k.crdName()
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// crdName is the name of the CustomResourceDefinition of k (RESOURCE.GROUP); "" for a built-in kind.
func (k servedKind) crdName() string {
	if k.Resource.Group == "" {
		return ""
	}
	return k.Resource.Resource + "." + k.Resource.Group
}

// newCRDInformers returns one informer per CRD of CRDNames, each of the CRD's metadata only and narrowed to its
// name (a field selector on metadata.name), so the controller neither reads nor is told about any other CRD of the
// cluster. Every change of one (created, changed, e.g. Established, deleted) calls changed: Health then asks
// discovery (Health.CRDChanged), where it used to ask every 30 s. A CRD in a watch's first list is no change: it
// calls listed with the CRD's name (Health.CRDListed), which asks discovery only when its kind was not served at
// the last one; an update that leaves the resourceVersion as it was (a list again after a watch ended) is none
// either. Their failed lists and watches go to watchErrors, as the input informers' do.
func newCRDInformers(client metadata.Interface, changed func(), listed func(name string),
	watchErrors func(kind string) cache.WatchErrorHandlerWithContext) ([]cache.SharedIndexInformer, error) {
	handler := crdEvents(changed, listed)
	var out []cache.SharedIndexInformer
	for _, name := range CRDNames() {
		selector := fields.OneTermEqualSelector("metadata.name", name).String()
		crds := client.Resource(crdResource)
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				opts.FieldSelector = selector
				return crds.List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.FieldSelector = selector
				return crds.Watch(ctx, opts)
			},
		}
		informer := cache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
		if err := informer.SetTransform(dropMetadataUnread); err != nil {
			return nil, err
		}
		if _, err := informer.AddEventHandler(handler); err != nil {
			return nil, err
		}
		if err := informer.SetWatchErrorHandlerWithContext(watchErrors("CustomResourceDefinition " + name)); err != nil {
			return nil, err
		}
		out = append(out, informer)
	}
	return out, nil
}

// crdEvents is the event handler of the CRD informers (newCRDInformers): a CRD in a watch's first list calls
// listed, an update that keeps the resourceVersion calls nothing, every other event calls changed.
func crdEvents(changed func(), listed func(name string)) cache.ResourceEventHandlerDetailedFuncs {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			if m, ok := obj.(metav1.Object); ok && isInInitialList {
				listed(m.GetName())
				return
			}
			changed()
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, oldOK := oldObj.(metav1.Object)
			n, newOK := newObj.(metav1.Object)
			if oldOK && newOK && o.GetResourceVersion() == n.GetResourceVersion() {
				return
			}
			changed()
		},
		DeleteFunc: func(any) { changed() },
	}
}

// dropMetadataUnread is the transform of the informers whose objects only say that something changed (the CRDs) or
// whose status alone is read (the ClusterOperator): their managed fields and annotations (a CRD applied with kubectl
// carries its whole schema in the last-applied annotation) stay out of the caches.
func dropMetadataUnread(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
		m.SetAnnotations(nil)
	}
	return obj, nil
}

// kickWhenSlow wraps the transport of the controller's own requests (the leader lease, writes, events): a request
// the API server has not answered within probeTimeout asks Health for a probe. With etcd down, kube-apiserver
// keeps serving watches from its cache and answers reads and writes only when its own timeout expires; the lease's
// renewal (every retry period, 26 s by default, by leader and followers alike) is then what sees the outage first,
// and Health's probe, bounded by probeTimeout, reports it.
func kickWhenSlow(h *Health) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			slow := time.AfterFunc(probeTimeout, h.Kick)
			defer slow.Stop()
			return next.RoundTrip(req)
		})
	}
}
