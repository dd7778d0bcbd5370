package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Exit statuses that every subcommand shares: 0 success, 1 input refused (invalid manifests: what the API server
// would refuse by a CRD and the project's own checks; every problem printed, nothing written), 2 error (the job
// could not be done: I/O, a cluster unreachable, an internal failure). The answers of diff, preview, wait and
// migrate-icsp have their own statuses besides these, in their --help and docs/usage.md.
const (
	exitOK      = 0
	exitInvalid = 1
	exitFailed  = 2
)

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
