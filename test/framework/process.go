package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// readyPollInterval is how often a starting process is asked whether it serves.
const readyPollInterval = 100 * time.Millisecond

// errExitedEarly is wrapped by the error of process.start when the process exited before it was ready, which is
// what a port taken by someone else between freePorts and the process's bind causes.
var errExitedEarly = errors.New("exited before it was ready")

// process is one control plane binary, etcd or kube-apiserver. It can be stopped and started again any number
// of times with the same command line, so the ports, files and data it uses stay the same.
type process struct {
	// name is the binary's name, for errors: "etcd", "kube-apiserver".
	name string
	// path and args are the command line.
	path string
	args []string
	// stdout and stderr receive the output; nil discards it.
	stdout, stderr io.Writer
	// ready returns nil when the process serves. It is polled while the process starts, and must return
	// within a second or two.
	ready func(ctx context.Context) error
	// startTimeout bounds the wait for ready; stopTimeout the wait between SIGTERM and SIGKILL.
	startTimeout, stopTimeout time.Duration

	mu sync.Mutex
	// cmd is the running child, nil when there is none.
	cmd *exec.Cmd
	// exited is closed once cmd has exited and been waited for.
	exited <-chan struct{}
	// closed is set by close: the files the process needs are gone, it must not start again.
	closed bool
}

// start starts the process unless it is running, and waits until it is ready. When it fails, the process is
// stopped again.
func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("cannot start %s: the control plane was stopped", p.name)
	}
	if p.runningLocked() {
		return nil
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	cmd.SysProcAttr = sysProcAttr()
	exited, err := startOnLockedThread(cmd)
	if err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	p.cmd, p.exited = cmd, exited
	if err := p.waitReadyLocked(); err != nil {
		return errors.Join(err, p.stopLocked())
	}
	return nil
}

// startOnLockedThread starts cmd from a goroutine locked to its OS thread, which waits for the child and ends
// only after it has exited; the returned channel is closed then.
//
// On Linux, sysProcAttr asks the kernel to SIGKILL the child when its parent goes, and the parent is the thread
// that forked it, not the process (prctl(2), PR_SET_PDEATHSIG). The Go runtime ends a thread when a goroutine
// locked to it returns: had the child been started from an unlocked thread, a later unrelated goroutine that
// locks that thread and returns would kill etcd or kube-apiserver in the middle of a test. Locked here, the
// thread lives exactly as long as the child, and dies with the test binary however that ends (SIGKILL, the panic
// of go test -timeout, os.Exit), taking the child with it.
func startOnLockedThread(cmd *exec.Cmd) (<-chan struct{}, error) {
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		// Never unlocked: the thread ends with this goroutine, once its child has exited.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		// The exit status stays in cmd.ProcessState; a process that was stopped is expected to fail.
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return exited, nil
}

// waitReadyLocked polls p.ready until it succeeds, the process exits, or startTimeout passes.
func (p *process) waitReadyLocked() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.startTimeout)
	defer cancel()
	tick := time.NewTicker(readyPollInterval)
	defer tick.Stop()
	for {
		err := p.ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s %w (%v); set KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true or Options.LogDir "+
				"to see its output", p.name, errExitedEarly, p.cmd.ProcessState)
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready within %v: %w", p.name, p.startTimeout, err)
		case <-tick.C:
		}
	}
}

// awaitReady waits, when the process is running, until it is ready again, for example kube-apiserver after
// etcd came back.
func (p *process) awaitReady() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.runningLocked() {
		return nil
	}
	return p.waitReadyLocked()
}

// stopLocked stops the process unless it is not running: SIGTERM, then SIGKILL after stopTimeout. It returns
// once the process has exited.
func (p *process) stopLocked() error {
	if p.cmd == nil {
		return nil
	}
	cmd, exited := p.cmd, p.exited
	p.cmd, p.exited = nil, nil
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		// No SIGTERM on this system (Windows).
		_ = cmd.Process.Kill()
	}
	select {
	case <-exited:
		return nil
	case <-time.After(p.stopTimeout):
	}
	_ = cmd.Process.Kill()
	<-exited
	return fmt.Errorf("%s did not stop within %v of SIGTERM: killed it", p.name, p.stopTimeout)
}

// kill kills the process unless it is not running (SIGKILL), and returns once it has exited.
func (p *process) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	// A failed kill means the process has exited already.
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.cmd, p.exited = nil, nil
}

// close stops the process for good: start fails afterwards.
func (p *process) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	return p.stopLocked()
}

// pid returns the process ID of the running process, 0 when it is not running.
func (p *process) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.runningLocked() {
		return 0
	}
	return p.cmd.Process.Pid
}

func (p *process) runningLocked() bool {
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}
