//go:build unix && !linux

package framework

import "syscall"

// sysProcAttr puts a control plane process in its own process group, so that a Ctrl-C in the terminal reaches
// only the test binary, which stops the control plane in order (see Run). Only Linux can tie the process's life
// to the test binary's (Pdeathsig): here, a test binary killed with SIGKILL or ended by go test -timeout leaves
// etcd and kube-apiserver running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
