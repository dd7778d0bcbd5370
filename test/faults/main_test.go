// Package faults runs the real `registries-controller start` binary against a real kube-apiserver and etcd and
// breaks things around it: the API server or etcd restarts, the process is killed between two writes, another
// writer fights it, the leader dies during a burst, CRDs are missing at start. Each test asserts that no
// MachineConfig is ever broken, half-updated or lost, and logs the figures docs/reliability.md reports.
package faults

import (
	"context"
	"testing"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// cp is the package's one control plane.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		ctx := context.Background()
		if err := cp.CreateBuiltinPools(ctx); err != nil {
			return err
		}
		_, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage)
		return err
	})
}
