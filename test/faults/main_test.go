// Package faults runs the real `registries-controller start` binary against a real kube-apiserver and etcd and
// breaks things around it: the API server or etcd restarts, the process is killed between two writes, another
// writer fights it, the leader dies during a burst, CRDs are missing at start. Each test asserts that no
// MachineConfig is ever broken, half-updated or lost, and logs the figures docs/reliability.md reports.
//
// What the MachineConfigs must hold after a fault (expected) is computed with production code: the render path
// the controller and `render` share, run on the objects the test created, without a fault. These tests prove that
// a fault changes nothing about what an uninterrupted run writes; whether that render is right is proven by
// pkg/render's and pkg/registries' golden files. So that a render broken in the same way on both sides cannot pass
// here unseen, the tests also check the files against expectations written by hand (handWrittenMirror).
package faults

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
