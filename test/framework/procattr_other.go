//go:build !unix

package framework

import "syscall"

// sysProcAttr has nothing to set on this system: a test binary that ends without calling Stop (SIGKILL, go test
// -timeout) leaves etcd and kube-apiserver running.
func sysProcAttr() *syscall.SysProcAttr {
	return nil
}
