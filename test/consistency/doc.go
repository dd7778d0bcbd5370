// Package consistency holds the pure checks that the repository's parts agree with each other: the input kinds,
// the ClusterRole and the CRDs; the metrics the alerts, their promtool test data and docs/ name, and those the
// controller registers. They need no control plane, so make unit runs them.
package consistency
