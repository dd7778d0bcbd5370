package framework

// PIDs returns the process IDs of cp's etcd and kube-apiserver, 0 for one that is not running.
func PIDs(cp *ControlPlane) (etcd, apiServer int) {
	return cp.etcd.pid(), cp.apiServer.pid()
}
