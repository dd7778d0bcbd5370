// Package initgc holds the garbage collector off while the binary's packages initialise, and gives it back to
// main. The client, API-server and registry libraries the binary links allocate about 5 MB in 45,000 objects as
// they initialise (schemes, regular expressions, OpenAPI formats); with the collector on, that is two collections
// and their sweeps in the first 15 ms of every run, which `render`, `diff` and `--version` pay each time
// (docs/benchmarks.md, "Starting the binary"). Nothing initialised is garbage worth collecting that early.
//
// Import it first, for its side effect, in package main, and call Restore at the top of main:
//
//	import _ "github.com/openshift/registries-controller/pkg/initgc"
//	func main() { initgc.Restore(); ... }
package initgc

import "runtime/debug"

// percent is the collector's setting before init turned it off: GOGC's, 100 when unset.
var percent = debug.SetGCPercent(-1)

// Restore gives the collector back the setting it had before this package initialised (GOGC's). Safe to call more
// than once.
func Restore() { debug.SetGCPercent(percent) }
