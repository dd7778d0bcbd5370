package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Connect reads the cluster cfg points at, for a command: it lists each resource the Reader reads once (so that a
// wrong address, missing permission or missing CRD of a required kind fails at once, naming the resource), starts
// the informers, reads the optional kinds the controller would read (RefreshOptional), and returns when their
// caches are filled. It only gets, lists and watches. Call stop when done.
func Connect(ctx context.Context, cfg *rest.Config) (r *Reader, stop func(), err error) {
	unserved, err := probe(ctx, cfg)
	if err != nil {
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
	r.Start(done)
	if err := r.Fill(ctx, func(k *inputs.Kind) bool { return !unserved[k.Name] }); err != nil {
		stop()
		return nil, nil, err
	}
	return r, stop, nil
}

// Fill decides which optional kinds are read (RefreshOptional; served says which kinds the API server serves) and
// waits until the cache of every kind read, and of the MachineConfigs, is filled. Start the Reader first.
func (r *Reader) Fill(ctx context.Context, served func(*inputs.Kind) bool) error {
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(context.Context) (bool, error) {
		opt, err := r.RefreshOptional(served)
		return err == nil && !opt.Pending && r.HasSynced(), err
	})
	if err != nil {
		return fmt.Errorf("reading the cluster: the caches did not fill: %w", errors.Join(err, context.Cause(ctx)))
	}
	return nil
}

// probe lists one object of every resource the Reader reads, and returns the optional kinds the API server does
// not serve.
func probe(ctx context.Context, cfg *rest.Config) (map[string]bool, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if _, err := client.Resource(machineConfigs).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return nil, fmt.Errorf("listing %s: %w", machineConfigs.GroupResource(), err)
	}
	unserved := map[string]bool{}
	for _, k := range inputs.Kinds {
		gvr := k.GroupVersionResource()
		_, err := client.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		switch {
		case err == nil:
		case k.Optional && apierrors.IsNotFound(err):
			unserved[k.Name] = true
		default:
			return nil, fmt.Errorf("listing %s: %w", gvr.GroupResource(), err)
		}
	}
	return unserved, nil
}

var machineConfigs = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
