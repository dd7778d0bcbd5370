// Package alerts proves the alerts of manifests/ with Prometheus's own rule evaluation: `promtool check rules`
// and `promtool test rules` on the rule groups of the PrometheusRule manifest (the one source of truth: the test
// extracts them), with the unit test files of testdata/, in which every alert both fires and does not fire.
// promtool reads the rules strictly, so a misspelled field of a rule fails; the rest of the PrometheusRule and the
// ServiceMonitor are decoded strictly into the fields of prometheus-operator's monitoring.coreos.com/v1 they use.
//
// promtool comes from $PROMTOOL (make test sets it) or hack/promtool.sh, which builds it from the pinned module in
// hack/tools/promtool once and caches it; it is never skipped for want of promtool, only with -short.
package alerts

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/test/framework"
)

// Files of the repository.
const (
	ruleManifest           = "manifests/0000_80_registries-controller_11_prometheusrule.yaml"
	serviceMonitorManifest = "manifests/0000_80_registries-controller_09_servicemonitor.yaml"
	promtoolScript         = "hack/promtool.sh"
	// rulesFile is what the unit test files of testdata/ name in rule_files.
	rulesFile = "rules.yaml"
)

// envPromtool names a built promtool binary.
const envPromtool = "PROMTOOL"

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// readStrict decodes the manifest at path into obj, refusing unknown fields.
func readStrict(t *testing.T, path string, obj any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// promtool returns the promtool binary: $PROMTOOL, or what hack/promtool.sh prints (building it on first use).
func promtool(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("promtool is built from the Prometheus module on first use (minutes); skipped with -short")
	}
	if p := os.Getenv(envPromtool); p != "" {
		return p
	}
	root := repoRoot(t)
	var stdout bytes.Buffer
	cmd := exec.Command(filepath.Join(root, promtoolScript))
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v (set %s to a promtool binary instead)", promtoolScript, err, envPromtool)
	}
	return strings.TrimSpace(stdout.String())
}

// monitoringAPIVersion is prometheus-operator's API, which the cluster's monitoring stack serves.
const monitoringAPIVersion = "monitoring.coreos.com/v1"

// objectMeta is the metadata the manifests set.
type objectMeta struct {
	Name        string
	Namespace   string
	Annotations map[string]string
	Labels      map[string]string
}

// prometheusRule is the part of a monitoring.coreos.com/v1 PrometheusRule the manifest uses; its rule groups are
// kept as they are for promtool, which reads them strictly.
type prometheusRule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string
	Metadata   objectMeta
	Spec       struct {
		Groups []map[string]any
	}
}

// alertRule is what the tests read of one rule.
type alertRule struct {
	Alert, Expr string
	Labels      map[string]string
	Annotations map[string]string
}

// rules returns the PrometheusRule of manifests/, decoded strictly.
func rules(t *testing.T) *prometheusRule {
	t.Helper()
	rule := &prometheusRule{}
	readStrict(t, filepath.Join(repoRoot(t), ruleManifest), rule)
	if rule.Kind != "PrometheusRule" || rule.APIVersion != monitoringAPIVersion {
		t.Fatalf("%s is a %s %s", ruleManifest, rule.APIVersion, rule.Kind)
	}
	return rule
}

// alertRules returns the alerting rules of rule.
func alertRules(t *testing.T, rule *prometheusRule) []alertRule {
	t.Helper()
	var out []alertRule
	for _, g := range rule.Spec.Groups {
		data, err := yaml.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		var group struct{ Rules []alertRule }
		if err := yaml.Unmarshal(data, &group); err != nil {
			t.Fatal(err)
		}
		for _, r := range group.Rules {
			if r.Alert != "" {
				out = append(out, r)
			}
		}
	}
	return out
}

// alertNames returns the names of the alerts of rule, sorted.
func alertNames(t *testing.T, rule *prometheusRule) []string {
	var out []string
	for _, r := range alertRules(t, rule) {
		out = append(out, r.Alert)
	}
	sort.Strings(out)
	return out
}

func TestPromtoolProvesEveryAlert(t *testing.T) {
	bin := promtool(t)
	rule := rules(t)
	dir := t.TempDir()
	// The rule file promtool reads: spec.groups, as the PrometheusRule carries them.
	groups, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rulesFile), groups, 0o644); err != nil {
		t.Fatal(err)
	}
	tests, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no unit test files in testdata: %v", err)
	}
	var names []string
	for _, path := range tests {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
		if err != nil {
			t.Fatalf("promtool %s: %v", strings.Join(args, " "), err)
		}
	}
	run("check", "rules", rulesFile)
	run(append([]string{"test", "rules"}, names...)...)

	// Every alert is shown to fire in some test case and not to fire in another.
	fires, quiet := expectations(t, tests)
	for _, alert := range alertNames(t, rule) {
		if fires[alert] == 0 {
			t.Errorf("no test case of testdata/ expects %s to fire", alert)
		}
		if quiet[alert] == 0 {
			t.Errorf("no test case of testdata/ expects %s not to fire", alert)
		}
		t.Logf("%s: proven to fire at %d evaluations, not to fire at %d", alert, fires[alert], quiet[alert])
	}
}

// expectations counts, per alert, the evaluations of the unit test files that expect it to fire and not to fire.
func expectations(t *testing.T, paths []string) (fires, quiet map[string]int) {
	t.Helper()
	fires, quiet = map[string]int{}, map[string]int{}
	for _, path := range paths {
		var file struct {
			Tests []struct {
				AlertRuleTest []struct {
					Alertname string
					ExpAlerts []any `json:"exp_alerts"`
				} `json:"alert_rule_test"`
			}
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &file); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, tc := range file.Tests {
			for _, a := range tc.AlertRuleTest {
				if len(a.ExpAlerts) > 0 {
					fires[a.Alertname]++
				} else {
					quiet[a.Alertname]++
				}
			}
		}
	}
	return fires, quiet
}

func TestEveryAlertTellsAnAdminWhatToDo(t *testing.T) {
	rules := alertRules(t, rules(t))
	if len(rules) == 0 {
		t.Fatal("no alerts")
	}
	for _, r := range rules {
		if r.Labels["severity"] == "" {
			t.Errorf("%s has no severity", r.Alert)
		}
		if r.Annotations["summary"] == "" || !strings.Contains(r.Annotations["description"], "`oc ") {
			t.Errorf("%s: a summary, and a description naming the `oc` command to run, are needed: %v", r.Alert, r.Annotations)
		}
		if !strings.Contains(r.Expr, "by (namespace") {
			t.Errorf("%s: the alert must carry the namespace label, for routing: %s", r.Alert, r.Expr)
		}
	}
}

func TestTheServiceMonitorScrapesOverHTTPSWithTheServiceCA(t *testing.T) {
	// The part of a monitoring.coreos.com/v1 ServiceMonitor the manifest uses.
	var sm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string
		Metadata   objectMeta
		Spec       struct {
			Endpoints []struct {
				Port, Path, Interval, Scheme, BearerTokenFile string
				TLSConfig                                     struct{ CAFile, ServerName string }
			}
			NamespaceSelector struct{ MatchNames []string }
			Selector          struct{ MatchLabels map[string]string }
		}
	}
	readStrict(t, filepath.Join(repoRoot(t), serviceMonitorManifest), &sm)
	if sm.APIVersion != monitoringAPIVersion || sm.Kind != "ServiceMonitor" || len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("%s %s with %d endpoints, want a %s ServiceMonitor with 1", sm.APIVersion, sm.Kind, len(sm.Spec.Endpoints), monitoringAPIVersion)
	}
	e := sm.Spec.Endpoints[0]
	got := fmt.Sprintf("port=%s path=%s scheme=%s tokenFile=%s ca=%s serverName=%s", e.Port, e.Path, e.Scheme,
		e.BearerTokenFile, e.TLSConfig.CAFile, e.TLSConfig.ServerName)
	want := "port=metrics path=/metrics scheme=https tokenFile=/var/run/secrets/kubernetes.io/serviceaccount/token " +
		"ca=/etc/prometheus/configmaps/serving-certs-ca-bundle/service-ca.crt serverName=registries-controller.openshift-registries-controller.svc"
	if got != want {
		t.Errorf("ServiceMonitor endpoint:\n%s\nwant:\n%s", got, want)
	}
}
