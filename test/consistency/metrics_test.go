package consistency

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/test/framework"
)

// scrapeLabels are the labels Prometheus adds to every series it scrapes from the controller (the target's), so
// the controller never registers them.
var scrapeLabels = []string{"job", "namespace", "pod", "instance", "service", "endpoint", "container"}

// registeredMetrics returns the metrics pkg/controller registers (and the process collector's, when `start`
// registers it), by full name, with their label names, read from
// its source: every prometheus.New{Counter,Gauge,Histogram}[Vec] call whose options name the metric with the
// Namespace registries_controller and a literal Name. The test reads the source rather than asking the controller,
// which registers its metrics only when it starts against a cluster.
func registeredMetrics(t *testing.T, root string) map[string][]string {
	t.Helper()
	dir := filepath.Join(root, "pkg", "controller")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	metrics := map[string][]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isPrometheusConstructor(call.Fun) || len(call.Args) == 0 {
				return true
			}
			name, ok := metricName(call.Args[0])
			if !ok {
				return true
			}
			labels := []string{}
			if len(call.Args) > 1 {
				labels = stringSlice(t, call.Args[1])
			}
			metrics[name] = labels
			return true
		})
	}
	// The process collector of client_golang, which `start` registers beside them: its series have no labels.
	start, err := os.ReadFile(filepath.Join(root, "cmd", "registries-controller", "start.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(start), "collectors.NewProcessCollector(") {
		for _, name := range []string{"process_start_time_seconds", "process_cpu_seconds_total", "process_open_fds", "process_max_fds",
			"process_virtual_memory_bytes", "process_resident_memory_bytes"} {
			metrics[name] = []string{}
		}
	}
	if len(metrics) < 5 {
		t.Fatalf("found %d metrics in pkg/controller (%v): the source reader no longer sees how they are made", len(metrics), metrics)
	}
	return metrics
}

// isPrometheusConstructor reports whether fun is prometheus.NewCounter, NewGauge, NewHistogram or a Vec of them.
func isPrometheusConstructor(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "prometheus" && regexp.MustCompile(`^New(Counter|Gauge|Histogram)(Vec)?$`).MatchString(sel.Sel.Name)
}

// metricName returns the full name of the metric whose options are opts: "registries_controller_" and its Name,
// when its Namespace is metricsNamespace and its Name a literal.
func metricName(opts ast.Expr) (string, bool) {
	lit, ok := opts.(*ast.CompositeLit)
	if !ok {
		return "", false
	}
	var namespace, name string
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch key := kv.Key.(*ast.Ident); {
		case key == nil:
		case key.Name == "Namespace":
			if id, ok := kv.Value.(*ast.Ident); ok && id.Name == "metricsNamespace" {
				namespace = "registries_controller"
			}
		case key.Name == "Name":
			if b, ok := kv.Value.(*ast.BasicLit); ok && b.Kind == token.STRING {
				name, _ = strconv.Unquote(b.Value)
			}
		}
	}
	if namespace == "" || name == "" {
		return "", false
	}
	return namespace + "_" + name, true
}

// stringSlice returns the strings of a []string{...} literal, sorted.
func stringSlice(t *testing.T, e ast.Expr) []string {
	t.Helper()
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		t.Fatalf("labels of a metric are not a []string literal: %T", e)
	}
	var out []string
	for _, el := range lit.Elts {
		b, ok := el.(*ast.BasicLit)
		if !ok {
			t.Fatalf("a label name is not a literal: %T", el)
		}
		s, _ := strconv.Unquote(b.Value)
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// seriesName returns the registered metric a series name belongs to (a histogram's _bucket, _sum and _count
// belong to it), and the labels the series adds (le for a bucket).
func seriesName(registered map[string][]string, name string) (string, []string) {
	if _, ok := registered[name]; ok {
		return name, nil
	}
	for suffix, extra := range map[string][]string{"_bucket": {"le"}, "_sum": nil, "_count": nil} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if _, ok := registered[base]; ok {
				return base, extra
			}
		}
	}
	return "", nil
}

// metricReference matches a metric of this controller named in text, with what follows it in braces.
var metricReference = regexp.MustCompile(`(registries_controller_[a-z_]+)(\{[^}]*\})?`)

// labelNames returns the label names in a brace expression: `{a="x", b=~"y"}` or the bare `{a, b}`, and whether
// it is bare (a claim of the metric's whole label set rather than a selector).
func labelNames(braces string) ([]string, bool) {
	inner := strings.Trim(braces, "{}")
	if strings.TrimSpace(inner) == "" {
		return nil, false
	}
	bare := !strings.ContainsAny(inner, "=")
	var names []string
	for _, m := range regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=|,|$)`).FindAllStringSubmatch(inner, -1) {
		names = append(names, m[1])
	}
	if !bare {
		// Only the names before an operator, not the words of quoted values.
		names = nil
		for _, m := range regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"(?:[^"\\]|\\.)*"`).FindAllStringSubmatch(inner, -1) {
			names = append(names, m[1])
		}
	}
	return names, bare
}

// withoutScrapeLabels returns names without the labels Prometheus adds, sorted.
func withoutScrapeLabels(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(scrapeLabels, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// checkReference checks one reference to a metric in file: that the controller registers it and that every label it
// names is one of the metric's; with exact (a series of test data, or a bare label list in prose), that the labels
// are exactly the metric's.
func checkReference(t *testing.T, registered map[string][]string, file, ref, name, braces string, exact bool) {
	t.Helper()
	names, bare := labelNames(braces)
	checkLabels(t, registered, file, ref, name, names, exact || bare)
}

// checkLabels checks that the controller registers the metric name with every label of names, and with exact, with
// those labels only.
func checkLabels(t *testing.T, registered map[string][]string, file, ref, name string, names []string, exact bool) {
	t.Helper()
	base, extra := seriesName(registered, name)
	if base == "" {
		t.Errorf("%s: %s: the controller registers no metric %s", file, ref, name)
		return
	}
	want := append(slices.Clone(registered[base]), extra...)
	sort.Strings(want)
	got := withoutScrapeLabels(names)
	for _, n := range got {
		if !slices.Contains(want, n) {
			t.Errorf("%s: %s: %s has no label %q; it has {%s}", file, ref, name, n, strings.Join(want, ", "))
		}
	}
	if exact && !slices.Equal(got, want) {
		t.Errorf("%s: %s: the labels {%s} are not the ones %s is exported with: {%s}", file, ref, strings.Join(got, ", "), name, strings.Join(want, ", "))
	}
}

// TestEveryMetricTheAlertsTheirTestDataAndTheDocsNameIsOneTheControllerRegisters: a metric the PrometheusRule, its
// promtool test data (test/alerts/testdata) or docs/ and the README name must be one pkg/controller registers, with
// labels it has; a series of the test data must have exactly its labels (beside the scrape's), or the rule tests
// prove an alert against series the controller never exports.
func TestEveryMetricTheAlertsTheirTestDataAndTheDocsNameIsOneTheControllerRegisters(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	registered := registeredMetrics(t, root)

	// The PrometheusRule: every metric of every expression, with the labels of its selectors and of its by().
	rulePath := filepath.Join("manifests", "0000_80_registries-controller_11_prometheusrule.yaml")
	var rule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
					Expr  string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	readRuleFile(t, filepath.Join(root, rulePath), &rule)
	exprs := 0
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			exprs++
			for _, m := range metricReference.FindAllStringSubmatch(r.Expr, -1) {
				checkReference(t, registered, rulePath, r.Alert, m[1], m[2], false)
			}
			for _, by := range regexp.MustCompile(`by \(([^)]*)\)`).FindAllStringSubmatch(r.Expr, -1) {
				var names []string
				for _, n := range strings.Split(by[1], ",") {
					names = append(names, strings.TrimSpace(n))
				}
				for _, m := range metricReference.FindAllStringSubmatch(r.Expr, -1) {
					checkLabels(t, registered, rulePath, r.Alert+" by ("+by[1]+")", m[1], names, false)
				}
			}
		}
	}
	if exprs == 0 {
		t.Fatalf("%s: no rules", rulePath)
	}

	// The promtool test data: every input series, with exactly the metric's labels.
	tests, err := filepath.Glob(filepath.Join(root, "test", "alerts", "testdata", "*.yaml"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no promtool test data in test/alerts/testdata: %v", err)
	}
	for _, path := range tests {
		var data struct {
			Tests []struct {
				Name        string `json:"name"`
				InputSeries []struct {
					Series string `json:"series"`
				} `json:"input_series"`
			} `json:"tests"`
		}
		readRuleFile(t, path, &data)
		rel, _ := filepath.Rel(root, path)
		for _, tc := range data.Tests {
			for _, s := range tc.InputSeries {
				m := regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?$`).FindStringSubmatch(s.Series)
				if m == nil {
					t.Errorf("%s: %q: a series this test cannot read", rel, s.Series)
					continue
				}
				checkReference(t, registered, rel, tc.Name, m[1], m[2], true)
			}
		}
	}

	// The docs and the README: every metric named, with the labels given.
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(docs, filepath.Join(root, "README.md")) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range metricReference.FindAllStringSubmatch(line, -1) {
				checkReference(t, registered, rel+":"+strconv.Itoa(i+1), m[0], m[1], m[2], false)
			}
		}
	}
}

// readRuleFile decodes the YAML file at path into obj.
func readRuleFile(t *testing.T, path string, obj any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
