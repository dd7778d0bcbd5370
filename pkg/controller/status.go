package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/pkg/render"
)

// maxEventMessage keeps event messages readable in `kubectl describe`.
const maxEventMessage = 1000

// statusReporter turns each sync's result into log lines, metrics and events (the rollout tracker reports rollouts,
// operatorStatus the ClusterOperator). It remembers what it last reported, so an unchanged problem is not
// repeated on every sync.
type statusReporter struct {
	recorder record.EventRecorder
	metrics  *controllerMetrics

	mu sync.Mutex
	// invalid maps each object reported invalid (and not yet reported applied) to its last message.
	invalid map[inputs.ObjectRef]string
	// warned holds the warnings last reported.
	warned map[string]bool
	// tooLarge is the size problem last reported, "" when none.
	tooLarge string
	// near holds the near-limit warnings last reported.
	near map[string]bool
}

func newStatusReporter(recorder record.EventRecorder, metrics *controllerMetrics) *statusReporter {
	return &statusReporter{recorder: recorder, metrics: metrics, invalid: map[inputs.ObjectRef]string{}, warned: map[string]bool{}}
}

// lookup returns the object ref names among the inputs of the sync, nil when it is not there (events need the
// object; one that is gone gets none).
func lookup(res *syncResult, ref inputs.ObjectRef) runtime.Object {
	if res.inputs == nil {
		return nil
	}
	if o := res.inputs.Get(ref); o != nil {
		return o
	}
	return nil
}

// report turns the result of one sync into log lines, metrics and events.
func (s *statusReporter) report(ctx context.Context, res *syncResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	logger := klog.FromContext(ctx)
	s.metrics.syncs.WithLabelValues(string(res.outcome)).Inc()
	s.reportSizes(res)
	for _, w := range res.statusWrites {
		logger.Info("Updated status", "object", w.ref.String(), "conditions", w.conditions)
	}
	switch res.outcome {
	case OutcomeInvalid:
		objs := res.invalid.Objects()
		s.metrics.invalidObjects.Set(float64(len(objs)))
		logger.Info("Mirror configuration is invalid, every MachineConfig keeps its last good content",
			"problems", len(res.invalid.Problems), "objects", objectKeys(objs))
		s.reportInvalid(res, res.invalid)
	case OutcomeDeferred:
		if res.output == nil {
			logger.V(2).Info("A cache is still being filled: the sync waits", "retry", res.deferred)
			return
		}
		fallthrough
	case OutcomeApplied, OutcomeUnchanged:
		s.tooLarge = ""
		s.metrics.invalidObjects.Set(0)
		if res.outcome != OutcomeDeferred {
			s.metrics.lastSuccess.Set(float64(time.Now().Unix()))
		}
		for _, w := range res.writes {
			s.reportRevert(w)
			s.metrics.writes.WithLabelValues(w.key.Pool, w.key.Output.ID, string(w.op)).Inc()
			logger.Info("Wrote MachineConfig", "machineConfig", w.key.Name(), "pool", w.key.Pool, "output", w.key.Output.ID, "operation", w.op, "reason", w.reason)
			if w.object != nil {
				s.recorder.Eventf(w.object, corev1.EventTypeNormal, reasons.MachineConfigWritten, "%s for pool %s: %s", w.op, w.key.Pool, truncate(w.reason))
			}
		}
		if res.outcome == OutcomeUnchanged {
			logger.V(4).Info("MachineConfigs already up to date")
		}
		s.reportRecovered(res)
		s.reportWarnings(res, res.output.Report.Warnings)
	case OutcomeError:
		// Logged by the caller; the queue retries with backoff. Invalid input whose status could not be written is
		// still reported on the objects, and a size problem is also shown to the admin.
		if res.invalid != nil {
			s.reportInvalid(res, res.invalid)
		}
		var tooLarge *tooLargeError
		if errors.As(err, &tooLarge) && tooLarge.Name != s.tooLarge {
			s.tooLarge = tooLarge.Name
			if o := lookup(res, inputs.ImageRef); o != nil {
				s.recorder.Event(o, corev1.EventTypeWarning, reasons.MachineConfigTooLarge, truncate(tooLarge.Error()))
			}
		}
	}
}

// reportSizes sets the size gauges of every generated MachineConfig and of every pool's rendered MachineConfig, and
// records a Warning on the Image "cluster" for each one at 80% of its limit or more, once per distinct figure.
func (s *statusReporter) reportSizes(res *syncResult) {
	if res.sizes == nil {
		return
	}
	s.metrics.bytes.Reset()
	for _, size := range res.sizes {
		s.metrics.bytes.WithLabelValues(size.Key.Pool, size.Key.Output.ID).Set(float64(size.Bytes))
	}
	var warnings []string
	if res.output != nil {
		warnings = res.output.SizeWarnings()
	}
	if res.rendered != nil {
		s.metrics.renderedBytes.Reset()
		for _, size := range res.rendered {
			s.metrics.renderedBytes.WithLabelValues(size.Pool).Set(float64(size.Bytes))
		}
		warnings = append(warnings, render.RenderedWarnings(res.rendered)...)
	}
	near := map[string]bool{}
	for _, w := range warnings {
		near[w] = true
		if s.near[w] {
			continue
		}
		if o := lookup(res, inputs.ImageRef); o != nil {
			s.recorder.Event(o, corev1.EventTypeWarning, reasons.MachineConfigNearSizeLimit, truncate(w))
		}
	}
	s.near = near
}

// reportInvalid records a Warning on each offending object whose problems changed since last time.
func (s *statusReporter) reportInvalid(res *syncResult, invalid *inputs.InvalidError) {
	for _, m := range invalid.EventMessages() {
		if s.invalid[m.Object] == m.Message {
			continue
		}
		s.invalid[m.Object] = m.Message
		if o := lookup(res, m.Object); o != nil {
			s.recorder.Event(o, corev1.EventTypeWarning, reasons.InvalidMirrorConfiguration, truncate(m.Message))
		}
	}
}

// reportRecovered records a Normal event on every object reported invalid before, now that the
// configuration was applied again.
func (s *statusReporter) reportRecovered(res *syncResult) {
	for obj := range s.invalid {
		if o := lookup(res, obj); o != nil {
			s.recorder.Eventf(o, corev1.EventTypeNormal, reasons.MirrorConfigurationApplied,
				"The mirror configuration is valid again and applied to pools %s", strings.Join(pools(res), ", "))
		}
		delete(s.invalid, obj)
	}
}

// reportWarnings records each new warning (a part of the input deliberately not applied) once. New warnings
// of one object with the same reason are one event, listing five values (inputs.GroupProblems).
func (s *statusReporter) reportWarnings(res *syncResult, warnings []inputs.Problem) {
	current := map[string]bool{}
	fresh := map[inputs.ObjectRef][]inputs.Problem{}
	var objects []inputs.ObjectRef
	for _, w := range warnings {
		line := w.String()
		current[line] = true
		if s.warned[line] {
			continue
		}
		if fresh[w.At.Object] == nil {
			objects = append(objects, w.At.Object)
		}
		fresh[w.At.Object] = append(fresh[w.At.Object], w)
	}
	for _, obj := range objects {
		if o := lookup(res, obj); o != nil {
			for _, msg := range (inputs.GroupFormat{OnObject: true}).Format(inputs.GroupProblems(fresh[obj])) {
				s.recorder.Event(o, corev1.EventTypeWarning, reasons.MirrorConfigurationNotApplied, truncate(msg))
			}
		}
	}
	s.warned = current
}

func pools(res *syncResult) []string { return res.output.Pools }

func objectKeys(objs []inputs.ObjectRef) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Kind + "/" + o.Name
		if o.Namespace != "" {
			out[i] = o.Kind + "/" + o.Namespace + "/" + o.Name
		}
	}
	return out
}

func truncate(msg string) string {
	if len(msg) <= maxEventMessage {
		return msg
	}
	cut := strings.LastIndexByte(msg[:maxEventMessage], '\n')
	if cut < maxEventMessage/2 {
		cut = maxEventMessage
	}
	return msg[:cut] + fmt.Sprintf("\n... (%d more bytes; see the controller log or `registries-controller render`)", len(msg)-cut)
}
