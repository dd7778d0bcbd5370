package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

const metricsNamespace = "registries_controller"

// controllerMetrics are the controller's Prometheus metrics:
//
//	registries_controller_syncs_total{result="applied|unchanged|invalid|error|deferred"}
//	registries_controller_machineconfig_writes_total{pool, output, operation="create|update|delete"}
//	registries_controller_machineconfig_reverts_total{pool, output}
//	registries_controller_render_duration_seconds (histogram)
//	registries_controller_machineconfig_bytes{pool, output}
//	registries_controller_rendered_machineconfig_bytes{pool}
//	registries_controller_invalid_objects
//	registries_controller_last_successful_sync_timestamp_seconds
//	registries_controller_rollout_pending{pool, output}, registries_controller_rollout_duration_seconds{pool, output} (rollout.go)
//	registries_controller_rollout_degraded{pool, output} (clusteroperator.go)
//	workqueue_* {name="registries-controller"} (depth, adds, latency, work duration, retries, ...)
type controllerMetrics struct {
	syncs          *prometheus.CounterVec
	events         prometheus.Counter
	writes         *prometheus.CounterVec
	reverts        *prometheus.CounterVec
	renderDuration prometheus.Histogram
	invalidObjects prometheus.Gauge
	bytes          *prometheus.GaugeVec
	renderedBytes  *prometheus.GaugeVec
	lastSuccess    prometheus.Gauge
	workqueue      *workqueueMetrics
	rollout        *rolloutMetrics
	operator       *operatorMetrics
}

// newMetrics creates the metrics and registers them with reg.
func newMetrics(reg prometheus.Registerer) *controllerMetrics {
	m := &controllerMetrics{
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "syncs_total",
			Help: "Syncs by result: applied (MachineConfigs written), unchanged, invalid (input rejected, nothing written), error (retried).",
		}, []string{"result"}),
		events: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "events_total",
			Help: "Events of the inputs and of the MachineConfigs that scheduled a sync; against syncs_total, how many events a sync coalesces.",
		}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "machineconfig_writes_total",
			Help: "MachineConfig writes by pool, output (registries, credentialproviderconfig) and operation; every write rolls the pool's nodes.",
		}, []string{"pool", "output", "operation"}),
		reverts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "machineconfig_reverts_total",
			Help: "Writes that put back a generated MachineConfig another writer had changed; spaced out while it goes on.",
		}, []string{"pool", "output"}),
		renderDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: metricsNamespace, Name: "render_duration_seconds",
			Help:    "Time to merge the mirror configuration and render every pool's MachineConfig.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}),
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "machineconfig_bytes",
			Help: "Size of the last rendered generated MachineConfig, by pool and output; etcd refuses a request over 1572864 bytes (1.5 MiB).",
		}, []string{"pool", "output"}),
		renderedBytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "rendered_machineconfig_bytes",
			Help: "Size the pool's rendered MachineConfig has, or will have once the last sync's writes are rendered; the machine-config-operator refuses one over 1572864 bytes (1.5 MiB) and the pool then gets no configuration at all.",
		}, []string{"pool"}),
		invalidObjects: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "invalid_objects",
			Help: "Objects with problems that block rendering, as of the last sync.",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace, Name: "last_successful_sync_timestamp_seconds",
			Help: "Unix time of the last sync that left every MachineConfig in line with the inputs.",
		}),
		workqueue: newWorkqueueMetrics(),
	}
	for _, s := range []string{string(OutcomeApplied), string(OutcomeUnchanged), string(OutcomeInvalid), string(OutcomeError), string(OutcomeDeferred)} {
		m.syncs.WithLabelValues(s) // export zeros, so rates work from the start
	}
	reg.MustRegister(m.syncs, m.events, m.writes, m.reverts, m.renderDuration, m.bytes, m.renderedBytes, m.invalidObjects, m.lastSuccess)
	m.workqueue.register(reg)
	m.rollout = newRolloutMetrics(reg)
	m.operator = newOperatorMetrics(reg)
	return m
}

// WorkqueueProvider returns the provider of the work queue's metrics.
func (m *controllerMetrics) WorkqueueProvider() workqueue.MetricsProvider { return m.workqueue }

// workqueueMetrics implements workqueue.MetricsProvider with the metric names client-go's own
// Prometheus adapter uses, labelled by queue name.
type workqueueMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, workDuration      *prometheus.HistogramVec
}

func newWorkqueueMetrics() *workqueueMetrics {
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12)
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: name, Help: help}, []string{"name"})
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: name, Help: help, Buckets: buckets}, []string{"name"})
	}
	return &workqueueMetrics{
		depth:        gauge("depth", "Current depth of workqueue"),
		unfinished:   gauge("unfinished_work_seconds", "Seconds of work in progress not yet observed by work_duration."),
		longest:      gauge("longest_running_processor_seconds", "Seconds the longest running processor has been running."),
		adds:         counter("adds_total", "Total number of adds handled by workqueue"),
		retries:      counter("retries_total", "Total number of retries handled by workqueue"),
		latency:      histogram("queue_duration_seconds", "Seconds an item stays in the workqueue before being requested."),
		workDuration: histogram("work_duration_seconds", "Seconds processing an item from the workqueue takes."),
	}
}

func (w *workqueueMetrics) register(reg prometheus.Registerer) {
	reg.MustRegister(w.depth, w.unfinished, w.longest, w.adds, w.retries, w.latency, w.workDuration)
}

func (w *workqueueMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return w.depth.WithLabelValues(name)
}
func (w *workqueueMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return w.adds.WithLabelValues(name)
}
func (w *workqueueMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return w.latency.WithLabelValues(name)
}
func (w *workqueueMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return w.workDuration.WithLabelValues(name)
}
func (w *workqueueMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return w.unfinished.WithLabelValues(name)
}
func (w *workqueueMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return w.longest.WithLabelValues(name)
}
func (w *workqueueMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return w.retries.WithLabelValues(name)
}
