package main

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/version"
)

// restConfig returns the client configuration of the commands that read a cluster: the kubeconfig file when
// given, else $KUBECONFIG, ~/.kube/config or the in-cluster configuration, as kubectl finds them.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the client configuration: %w", err)
	}
	return rest.AddUserAgent(cfg, "registries-controller/"+version.Version), nil
}

// readCluster reads the cluster the kubeconfig points at once, as the controller gathers it (cluster.Connect),
// then stops the informers: what was read stays readable. It returns the client configuration too, for
// commands that read more.
func readCluster(ctx context.Context, kubeconfig string) (*cluster.Reader, *rest.Config, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	r, stop, err := cluster.Connect(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	stop()
	return r, cfg, nil
}
