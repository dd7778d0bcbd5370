package framework

import (
	"net"
	"testing"
)

// FreePort returns a loopback TCP port that was free a moment ago, for a server a test starts.
func FreePort(t testing.TB) int {
	t.Helper()
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	return ports[0]
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago: all are held open together, so
// the kernel cannot hand out the same one twice.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
