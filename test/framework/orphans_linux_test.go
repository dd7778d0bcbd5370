package framework_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshift/registries-controller/test/framework"
)

// orphanDeadline is how long etcd and kube-apiserver may outlive the process that started them.
const orphanDeadline = 5 * time.Second

func TestEtcdAndTheAPIServerDieWithTheTestBinaryThatStartedThem(t *testing.T) {
	kill := func(helper *exec.Cmd, _ io.Closer) error { return helper.Process.Kill() }
	tests := []struct {
		name string
		// restart has the helper stop and start etcd and kube-apiserver before it reports them.
		restart bool
		// end ends the helper process.
		end func(helper *exec.Cmd, stdin io.Closer) error
	}{{
		name: "killed with SIGKILL",
		end:  kill,
	}, {
		name: "panicking as on go test -timeout",
		end:  func(_ *exec.Cmd, stdin io.Closer) error { return stdin.Close() },
	}, {
		name:    "killed with SIGKILL after restarting etcd and kube-apiserver",
		restart: true,
		end:     kill,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// In parallel: most of the time goes into starting the helpers' control planes.
			t.Parallel()
			helper, stdin, pids := startHelper(t, tc.restart)
			for name, pid := range pids {
				if !running(pid, name) {
					t.Fatalf("%s (pid %d) is not running before the helper ends", name, pid)
				}
			}

			if err := tc.end(helper, stdin); err != nil {
				t.Fatal(err)
			}
			_ = helper.Wait()
			ended := time.Now()

			for name, pid := range pids {
				for running(pid, name) {
					if time.Since(ended) > orphanDeadline {
						t.Fatalf("%s (pid %d) still runs %v after the helper (%v) ended", name, pid, orphanDeadline,
							helper.ProcessState)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			t.Logf("helper %v; etcd and kube-apiserver gone %v later", helper.ProcessState, time.Since(ended))
		})
	}
}

// startHelper runs this test binary as a helper process (see helperMain), restarting the parts of its control
// plane when restart is set, and returns it once its control plane is ready, with its stdin and the process IDs of its etcd and kube-apiserver, keyed by name. The helper's
// temporary files go into a directory of the test; it and its processes are killed at the end of the test, in
// case they are still there.
func startHelper(t *testing.T, restart bool) (*exec.Cmd, io.WriteCloser, map[string]int) {
	t.Helper()
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(),
		envHelper+"=true",
		envHelperRestart+"="+strconv.FormatBool(restart),
		envHelperCRDDir+"="+t.TempDir(),
		framework.EnvAssets+"="+filepath.Dir(cp.KubectlPath),
		"TMPDIR="+t.TempDir())
	var stderr bytes.Buffer
	helper.Stderr = &stderr
	stdin, err := helper.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	pids := map[string]int{}
	t.Cleanup(func() {
		_ = helper.Process.Kill()
		_ = helper.Wait()
		for name, pid := range pids {
			if running(pid, name) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})

	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	// helperStderr waits for the helper to exit, and returns what it wrote on stderr.
	helperStderr := func() string {
		_ = helper.Process.Kill()
		_ = helper.Wait()
		return stderr.String()
	}
	var etcd, apiServer int
	select {
	case s := <-line:
		if _, err := fmt.Sscanf(s, helperPIDsFormat, &etcd, &apiServer); err != nil {
			t.Fatalf("helper printed %q (%v), stderr:\n%s", s, err, helperStderr())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("the helper did not start a control plane within 2m, stderr:\n%s", helperStderr())
	}
	pids["etcd"], pids["kube-apiserver"] = etcd, apiServer
	return helper, stdin, pids
}

// running reports whether pid is a live process named name: neither gone, nor a zombie that no one reaped
// yet, nor another process that reuses the PID.
func running(pid int, name string) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "<pid> (<comm>) <state> ...", where comm may hold spaces and parentheses.
	s := string(stat)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open || len(s) < closing+3 {
		return false
	}
	comm, state := s[open+1:closing], s[closing+2]
	return comm == name && state != 'Z' && state != 'X'
}
