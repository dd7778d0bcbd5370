package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// The exit statuses of every subcommand: one table, one meaning per status (exitStatusTable prints it in --help,
// and the README and docs/usage.md carry the same table).
const (
	// exitOK: done, or the answer is yes (nothing would change, proven neutral, live, every pull works).
	exitOK = 0
	// exitInvalid: the input is refused: manifests the API server would refuse by a CRD or the project's own
	// checks refuse (every problem printed, nothing written), or, for verify and preview --verify, a pull that
	// would fail (the configuration is refused by the registries).
	exitInvalid = 1
	// exitFailed: the job could not be done: I/O, a cluster unreachable, an internal failure.
	exitFailed = 2
	// exitNo: the answer to the command's question is no: diff and preview found a change, migrate-icsp could not
	// prove the swap neutral, wait timed out.
	exitNo = 3
	// exitNever: wait: the change will never go live as it stands (the controller refuses an input, a pool is
	// degraded).
	exitNever = 4
)

// exitStatusTable is the table as --help prints it.
const exitStatusTable = `Exit status (the same table for every subcommand):
  0  done; or the answer is yes: nothing changes (diff, preview), proven neutral (migrate-icsp),
     live (wait), every pull works (verify)
  1  input refused: manifests the API server or the project's checks refuse (every problem printed,
     nothing written); verify and preview --verify: a pull would fail
  2  error: the job could not be done (unreadable input, cluster unreachable, internal failure)
  3  the answer is no: a change is found (diff, preview), not proven neutral (migrate-icsp), timed out
     (wait)
  4  wait: never goes live as it stands (an input the controller refuses, a pool degraded)`

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
