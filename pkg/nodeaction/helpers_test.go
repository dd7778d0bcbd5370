package nodeaction

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// The tests write registries.conf files by hand, as TOML, with these small builders:
//
//	conf(search("a", "b"), registryTOML("quay.io", "blocked = true", mirror("m.local", "digest-only")))

// search returns the unqualified-search-registries line.
func search(hosts ...string) string {
	q := make([]string, len(hosts))
	for i, h := range hosts {
		q[i] = fmt.Sprintf("%q", h)
	}
	return "unqualified-search-registries = [" + strings.Join(q, ", ") + "]\n"
}

// conf joins a search line and entries; without a search line the base one is used.
func conf(parts ...string) []byte {
	if len(parts) == 0 || !strings.HasPrefix(parts[0], "unqualified-search-registries") {
		parts = append([]string{search("registry.access.redhat.com", "docker.io")}, parts...)
	}
	return []byte(strings.Join(parts, "\n"))
}

// registryTOML returns a [[registry]] table for a location (prefix ""), with extra key lines and mirrors.
// A part starting with "prefix" replaces the empty prefix.
func registryTOML(location string, parts ...string) string {
	prefix := `prefix = ""`
	var keys, mirrors []string
	for _, p := range parts {
		switch {
		case strings.HasPrefix(p, "prefix"):
			prefix = p
		case strings.HasPrefix(p, "[[registry.mirror]]"):
			mirrors = append(mirrors, p)
		default:
			keys = append(keys, p)
		}
	}
	lines := append([]string{"[[registry]]", prefix, fmt.Sprintf("location = %q", location)}, keys...)
	return strings.Join(append(lines, mirrors...), "\n") + "\n"
}

// mirror returns a [[registry.mirror]] table; pullFrom "" leaves pull-from-mirror out.
func mirror(location, pullFrom string, keys ...string) string {
	lines := []string{"[[registry.mirror]]", fmt.Sprintf("location = %q", location)}
	if pullFrom != "" {
		lines = append(lines, fmt.Sprintf("pull-from-mirror = %q", pullFrom))
	}
	return strings.Join(append(lines, keys...), "\n")
}

// onNode builds the files of one side; a nil data leaves that file out (the node keeps its base file, or
// has none). For example onNode(nodefiles.RegistriesConf, conf(...), nodefiles.PolicyJSON, nil).
func onNode(pathsAndData ...any) nodefiles.Files {
	var out nodefiles.Files
	for i := 0; i < len(pathsAndData); i += 2 {
		var data []byte
		switch d := pathsAndData[i+1].(type) {
		case string:
			data = []byte(d)
		case []byte:
			data = d
		}
		if data != nil {
			out = append(out, nodefiles.File{Path: pathsAndData[i].(string), Data: data})
		}
	}
	return out
}

// withConf is the files of a side that writes only registries.conf (nil: not written).
func withConf(data []byte) nodefiles.Files { return onNode(nodefiles.RegistriesConf, data) }

// classify runs Classify with the default policy on a cluster of several nodes.
func classify(t *testing.T, old, new nodefiles.Files) *Result {
	t.Helper()
	res, err := Classify(old, new, DefaultPolicy(), Options{})
	if err != nil {
		t.Fatalf("Classify: %v", err)
	}
	return res
}

// reasonsOf returns the reasons of one rule.
func reasonsOf(res *Result, ruleName string) []Reason {
	var out []Reason
	for _, r := range res.Reasons {
		if r.Rule == ruleName {
			out = append(out, r)
		}
	}
	return out
}

// briefReasons renders findings as "entry mirror: action/minimal", the part of a Reason tests assert on.
func briefReasons(rs []Reason) []string {
	var out []string
	for _, r := range rs {
		s := r.Entry
		if r.Mirror != "" {
			s += " " + r.Mirror
		}
		out = append(out, fmt.Sprintf("%s: %s/%s", s, r.Action, r.Minimal))
	}
	return out
}

// ruleCase is one row of a rule's table test: registries.conf contents on both sides (nil: the base file).
type ruleCase struct {
	name     string
	old, new []byte
	want     []string
}

// runRuleTable classifies each case and checks the findings of one rule.
func runRuleTable(t *testing.T, ruleName string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := briefReasons(reasonsOf(classify(t, withConf(tc.old), withConf(tc.new)), ruleName))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestBuildersWriteWhatTheyMean(t *testing.T) {
	got := string(conf(registryTOML("quay.io", "blocked = true", mirror("m.local", "digest-only"))))
	want := `unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]

[[registry]]
prefix = ""
location = "quay.io"
blocked = true
[[registry.mirror]]
location = "m.local"
pull-from-mirror = "digest-only"
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
