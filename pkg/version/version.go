// Package version holds the build's version string, set at link time by the Makefile.
package version

// Version is this build's version, e.g. "v0.1.0-12-gabcdef0": what --version prints and the user agent of the
// requests says. No MachineConfig carries it (docs/semantics.md §3.1).
var Version = "dev"
