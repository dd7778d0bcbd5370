package main

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

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
