package cluster

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Connect reads the cluster cfg points at, for a command: it lists each resource the Reader reads once (so that a
// wrong address, missing permission or missing CRD fails at once, naming the resource), starts the informers,
// and returns when their caches are filled. It only gets, lists and watches. Call stop when done.
func Connect(ctx context.Context, cfg *rest.Config) (r *Reader, stop func(), err error) {
	if err := probe(ctx, cfg); err != nil {
		return nil, nil, err
	}
	inf, err := NewInformers(cfg, 0)
	if err != nil {
		return nil, nil, err
	}
	if r, err = NewReader(inf); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	stop = func() {
		close(done)
		inf.Shutdown()
	}
	inf.Start(done)
	if !cache.WaitForCacheSync(ctx.Done(), r.synced...) {
		stop()
		return nil, nil, fmt.Errorf("reading the cluster: the caches did not fill: %w", context.Cause(ctx))
	}
	return r, stop, nil
}

// probe lists one object of every resource the Reader reads.
func probe(ctx context.Context, cfg *rest.Config) error {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	resources := []schema.GroupVersionResource{machineConfigs}
	for _, k := range inputs.Kinds {
		resources = append(resources, k.GroupVersionResource())
	}
	for _, gvr := range resources {
		if _, err := client.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return fmt.Errorf("listing %s: %w", gvr.GroupResource(), err)
		}
	}
	return nil
}

var machineConfigs = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
