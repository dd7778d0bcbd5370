// Package version holds the build's version string, set at link time by the Makefile.
package version

// Version is this build's version, e.g. "v0.1.0-12-gabcdef0". It is written into every generated
// MachineConfig's machineconfiguration.openshift.io/generated-by-controller-version annotation.
var Version = "dev"
