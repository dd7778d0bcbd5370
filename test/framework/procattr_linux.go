package framework

import "syscall"

// sysProcAttr puts a control plane process in its own process group, so that a Ctrl-C in the terminal reaches
// only the test binary, which stops the control plane in order (see Run), and has the kernel SIGKILL the
// process when the thread that started it ends, which happens when the test binary ends in any way, even one
// that runs no code of its own (see startOnLockedThread).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
