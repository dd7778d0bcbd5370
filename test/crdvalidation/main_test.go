// Package crdvalidation proves pkg/crdvalidation against the real kube-apiserver: every row of the hand-written
// tables in testdata/ (one file per input kind) is created with a server-side dry run against the same CRD, and
// judged offline; the verdict, the field paths and the messages must be the same, and the field paths those
// the row expects.
package crdvalidation

import (
	"testing"

	"github.com/openshift/registries-controller/test/framework"
)

// cp is the package's one control plane.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		return nil
	})
}
