package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// process is a process seen in /proc.
type process struct {
	pid  int
	argv []string
}

// processes are the etcd and kube-apiserver children of local-up.
type processes []process

// name returns the base name of the process's executable.
func (p process) name() string {
	if len(p.argv) == 0 {
		return ""
	}
	return filepath.Base(p.argv[0])
}

// alive reports whether the process still runs: it exists, is no zombie, and has the same command line (its pid
// was not reused).
func (p process) alive() bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "stat"))
	if err != nil {
		return false
	}
	if _, state, _ := parseStat(stat); state == "Z" {
		return false
	}
	argv, err := readArgv(p.pid)
	return err == nil && strings.Join(argv, " ") == strings.Join(p.argv, " ")
}

// children lists the running children of local-up.
func (p *localUpProcess) children() processes {
	entries, _ := os.ReadDir("/proc")
	var out processes
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ppid, _, ok := parseStat(stat); !ok || ppid != p.cmd.Process.Pid {
			continue
		}
		if argv, err := readArgv(pid); err == nil {
			out = append(out, process{pid: pid, argv: argv})
		}
	}
	return out
}

// controlPlaneChildren returns the etcd and kube-apiserver children of local-up, failing unless there is
// exactly one of each.
func (p *localUpProcess) controlPlaneChildren(t *testing.T) processes {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("cannot list processes without /proc: %v", err)
	}
	children := p.children()
	count := map[string]int{}
	for _, c := range children {
		count[c.name()]++
	}
	if count["etcd"] != 1 || count["kube-apiserver"] != 1 {
		t.Fatalf("children of local-up = %+v, want one etcd and one kube-apiserver", children)
	}
	return children
}

// etcdAddresses returns the host:port addresses etcd listens on, from its command line.
func (ps processes) etcdAddresses(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, p := range ps {
		if p.name() != "etcd" {
			continue
		}
		for _, arg := range p.argv {
			for _, flag := range []string{"--listen-client-urls=", "--listen-peer-urls="} {
				if v, ok := strings.CutPrefix(arg, flag); ok {
					u, err := url.Parse(v)
					if err != nil {
						t.Fatalf("etcd %s: %v", flag, err)
					}
					out = append(out, u.Host)
				}
			}
		}
	}
	if len(out) != 2 {
		t.Fatalf("etcd listen addresses = %q, want a client and a peer address", out)
	}
	return out
}

// parseStat returns the parent pid and state from the content of /proc/<pid>/stat.
func parseStat(stat []byte) (ppid int, state string, ok bool) {
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, "", false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, fields[0], err == nil
}

func readArgv(pid int) ([]string, error) {
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00"), nil
}
