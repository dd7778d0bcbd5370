package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// The exit statuses of every subcommand, one table (README "Exit status", docs/usage.md, --help):
//
//	0  success: the job is done, or the answer to a question is "yes, as asked"
//	1  input refused: invalid manifests (what the API server would refuse by a CRD, and the project's own
//	   checks), every problem printed, nothing written
//	2  error: the job could not be done (I/O, a cluster unreachable, an internal failure)
//	3  the answer is "no": diff or preview found changes, migrate-icsp cannot prove the swap neutral, wait timed out
//	4  wait: a pool is degraded, the change will not roll out by itself
const (
	exitOK       = 0
	exitInvalid  = 1
	exitFailed   = 2
	exitNo       = 3
	exitDegraded = 4
)

// exitStatusTable is the table as --help prints it.
const exitStatusTable = `Exit status (every subcommand):
  0  success
  1  input refused: invalid manifests, every problem printed, nothing written
  2  error: the job could not be done (I/O, cluster unreachable, internal)
  3  the answer is "no": changes found (diff, preview), swap not neutral (migrate-icsp), timed out (wait)
  4  wait: a pool is degraded`

// exitError carries the exit status a subcommand wants; its message has already been printed.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitStatus returns the exit status for what a subcommand returned, and prints what it has not printed yet:
// the problems of refused input, or the error.
func exitStatus(err error, stderr io.Writer) int {
	var exit *exitError
	var invalid *inputs.InvalidError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &exit):
		return exit.code
	case errors.As(err, &invalid):
		fmt.Fprintln(stderr, invalid.Error())
		return exitInvalid
	default:
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitFailed
	}
}
