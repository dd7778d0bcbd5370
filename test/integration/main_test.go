// Package integration runs the controller against a real kube-apiserver and etcd with the OpenShift CRDs
// installed, and asserts on the objects it leaves in the cluster.
package integration

import (
	"context"
	"testing"

	"github.com/openshift/registries-controller/test/framework"
)

// cp is the package's one control plane.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		return cp.CreateBuiltinCluster(context.Background())
	})
}
