package cluster

import (
	"context"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/nodeaction"
)

// Names of the cluster-wide objects that say how nodes take a change.
const (
	// MachineConfigurationName is the MachineConfiguration (operator.openshift.io/v1) whose status holds the
	// cluster's node disruption policies.
	MachineConfigurationName = "cluster"
	// InfrastructureName is the Infrastructure (config.openshift.io/v1) whose status says the control plane's
	// topology.
	InfrastructureName = "cluster"
)

// NodeDisruption is how the cluster's nodes take a change of files, as far as a reader may know it.
type NodeDisruption struct {
	// Policy is the cluster's node disruption policy (nodeaction.PolicyFromMachineConfiguration), or the
	// daemon's defaults when the MachineConfiguration cannot be read.
	Policy nodeaction.Policy
	// SingleNode is true when the Infrastructure says status.controlPlaneTopology SingleReplica: nodes never drain.
	SingleNode bool
	// Notes say what could not be read and what was assumed instead, one line each, e.g. `cannot read
	// MachineConfiguration "cluster" (forbidden): ...`.
	Notes []string
}

// ReadNodeDisruption gets the MachineConfiguration "cluster" and the Infrastructure "cluster" (get only).
// An object that does not exist, or that the user may not read, is a note and a fallback: the daemon's default
// policies, a cluster whose nodes drain. Any other failure to read, or a policy the daemon cannot run, is an
// error.
func ReadNodeDisruption(ctx context.Context, cfg *rest.Config) (*NodeDisruption, error) {
	nd := &NodeDisruption{Policy: nodeaction.DefaultPolicy()}
	operator, err := operatorclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("operator client: %w", err)
	}
	mc, err := operator.OperatorV1().MachineConfigurations().Get(ctx, MachineConfigurationName, metav1.GetOptions{})
	switch {
	case err == nil:
		if nd.Policy, err = nodeaction.PolicyFromMachineConfiguration(mc); err != nil {
			return nil, err
		}
	case apierrors.IsNotFound(err):
		nd.Policy.Source += fmt.Sprintf(" (there is no MachineConfiguration %q)", MachineConfigurationName)
	case apierrors.IsForbidden(err):
		nd.Notes = append(nd.Notes, fmt.Sprintf("cannot read MachineConfiguration %q (get machineconfigurations.operator.openshift.io "+
			"is forbidden for this user): the actions below follow the daemon's default node disruption policies, and a "+
			"policy the cluster's admin set is not taken into account", MachineConfigurationName))
	default:
		return nil, fmt.Errorf("reading MachineConfiguration %q: %w", MachineConfigurationName, err)
	}

	config, err := configclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("config client: %w", err)
	}
	infra, err := config.ConfigV1().Infrastructures().Get(ctx, InfrastructureName, metav1.GetOptions{})
	switch {
	case err == nil:
		nd.SingleNode = infra.Status.ControlPlaneTopology == configv1.SingleReplicaTopologyMode
	case apierrors.IsNotFound(err):
	case apierrors.IsForbidden(err):
		nd.Notes = append(nd.Notes, fmt.Sprintf("cannot read Infrastructure %q (get infrastructures.config.openshift.io is "+
			"forbidden for this user): assuming nodes drain; on a single-node cluster they never do", InfrastructureName))
	default:
		return nil, fmt.Errorf("reading Infrastructure %q: %w", InfrastructureName, err)
	}
	return nd, nil
}
