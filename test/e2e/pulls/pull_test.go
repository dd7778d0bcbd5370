package pulls

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containers/image/v5/copy"
	"github.com/containers/image/v5/directory"
	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	"github.com/sirupsen/logrus"

	"github.com/openshift/registries-controller/test/framework"
)

// pullResult is what a real pull did, as containers/image's docker transport logged it.
type pullResult struct {
	// Err is the pull's error, nil when it succeeded.
	Err error
	// Tried are the references the transport tried, in order ("Trying to access …").
	Tried []string
	// Failed maps each tried reference that failed to its error ("Accessing … failed: …").
	Failed map[string]string
}

// Served returns the reference that served a successful pull: the last one tried, which did not fail.
func (r *pullResult) Served() string {
	if r.Err != nil || len(r.Tried) == 0 {
		return ""
	}
	last := r.Tried[len(r.Tried)-1]
	if _, failed := r.Failed[last]; failed {
		return ""
	}
	return last
}

// attemptLog collects the docker transport's per-attempt log lines.
type attemptLog struct {
	mu     sync.Mutex
	tried  []string
	failed map[string]string
}

func (h *attemptLog) Levels() []logrus.Level { return logrus.AllLevels }

func (h *attemptLog) Fire(e *logrus.Entry) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch msg := e.Message; {
	case strings.HasPrefix(msg, "Trying to access "):
		if ref, err := strconv.Unquote(strings.TrimPrefix(msg, "Trying to access ")); err == nil {
			h.tried = append(h.tried, ref)
		}
	case strings.HasPrefix(msg, "Accessing "):
		rest := strings.TrimPrefix(msg, "Accessing ")
		if i := strings.Index(rest, `" failed: `); i > 0 {
			if ref, err := strconv.Unquote(rest[:i+1]); err == nil {
				h.failed[ref] = rest[i+len(`" failed: `):]
			}
		}
	}
	return nil
}

// pull copies ref from its registry into a directory with containers/image, as CRI-O pulls: the docker
// transport reads registries.conf through sys, and the signature policy is policyJSON (accept anything
// when nil). It records which places the transport tried.
func pull(t *testing.T, sys *types.SystemContext, policyJSON []byte, ref string) *pullResult {
	t.Helper()
	src, err := docker.ParseReference("//" + ref)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := directory.NewReference(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pc := framework.AcceptAnything(t)
	if policyJSON != nil {
		policy, err := signature.NewPolicyFromBytes(policyJSON)
		if err != nil {
			t.Fatal(err)
		}
		if pc, err = signature.NewPolicyContext(policy); err != nil {
			t.Fatal(err)
		}
	}
	defer pc.Destroy()

	log := &attemptLog{failed: map[string]string{}}
	logger := logrus.StandardLogger()
	level, out := logger.GetLevel(), logger.Out
	saved := logger.ReplaceHooks(logrus.LevelHooks{})
	logger.AddHook(log)
	logger.SetLevel(logrus.DebugLevel)
	logger.SetOutput(io.Discard)
	defer func() {
		logger.ReplaceHooks(saved)
		logger.SetLevel(level)
		logger.SetOutput(out)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err = copy.Image(ctx, pc, dst, src, &copy.Options{SourceCtx: sys})
	log.mu.Lock()
	defer log.mu.Unlock()
	return &pullResult{Err: err, Tried: log.tried, Failed: log.failed}
}
