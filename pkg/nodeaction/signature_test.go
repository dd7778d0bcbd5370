package nodeaction

import (
	"slices"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Signature files (docs/semantics.md §9.7): policy.json, registries.d and /etc/crio/policies reload CRI-O.

const (
	cipPolicy = `{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"quay.io/myorg":[{"type":"sigstoreSigned","keyData":"LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KSwotLS0tLUVORCBQVUJMSUMgS0VZLS0tLS0K","signedIdentity":{"type":"matchRepoDigestOrExact"}}]},"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}`
	nsPolicy  = `{"default":[{"type":"insecureAcceptAnything"}],"transports":{"atomic":{},"docker":{"*.example.org":[{"type":"sigstoreSigned","pki":{"caRootsData":"Qw==","subjectHostname":"signer.example.org"},"signedIdentity":{"type":"matchRepository"}}],"quay.io/myorg":[{"type":"sigstoreSigned","keyData":"LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KSwotLS0tLUVORCBQVUJMSUMgS0VZLS0tLS0K","signedIdentity":{"type":"matchRepoDigestOrExact"}}]},"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}`
	sigstore  = "docker:\n  quay.io/myorg:\n    use-sigstore-attachments: true\n  mirror.local/myorg:\n    use-sigstore-attachments: true\n"
)

func TestSignatureFilesReloadCRIO(t *testing.T) {
	team := nodefiles.NamespacePolicy("team-a")
	cases := []struct {
		name     string
		old, new nodefiles.Files
		action   string
		minimal  string
		rules    []string
	}{
		{name: "a first CIP writes policy.json and sigstore-registries.yaml and reloads CRI-O",
			old: nil, new: onNode(nodefiles.PolicyJSON, cipPolicy, nodefiles.SigstoreRegistries, sigstore),
			action: "reload-crio", minimal: "reload-crio", rules: []string{"policy-json-changed", "registries-d-changed"}},
		{name: "the last CIP deleted removes sigstore-registries.yaml and reloads CRI-O",
			old: onNode(nodefiles.PolicyJSON, cipPolicy, nodefiles.SigstoreRegistries, sigstore), new: nil,
			action: "reload-crio", minimal: "reload-crio", rules: []string{"policy-json-changed", "registries-d-changed"}},
		{name: "a namespace policy added reloads CRI-O",
			old: onNode(nodefiles.PolicyJSON, cipPolicy), new: onNode(nodefiles.PolicyJSON, cipPolicy, team, nsPolicy),
			action: "reload-crio", minimal: "reload-crio", rules: []string{"namespace-policy-changed"}},
		{name: "a namespace policy removed, which the node deletes, reloads CRI-O",
			old: onNode(nodefiles.PolicyJSON, cipPolicy, team, nsPolicy), new: onNode(nodefiles.PolicyJSON, cipPolicy),
			action: "reload-crio", minimal: "reload-crio", rules: []string{"namespace-policy-changed"}},
		{name: "a sigstore-registries.yaml written differently reloads CRI-O, though nothing is needed",
			old: onNode(nodefiles.SigstoreRegistries, sigstore), new: onNode(nodefiles.SigstoreRegistries, "docker: {mirror.local/myorg: {use-sigstore-attachments: true}, quay.io/myorg: {use-sigstore-attachments: true}}\n"),
			action: "reload-crio", minimal: "none", rules: []string{"registries-d-changed"}},
		{name: "a namespace policy written differently reloads CRI-O, though nothing is needed",
			old: onNode(team, nsPolicy), new: onNode(team, strings.ReplaceAll(nsPolicy, ",", ", ")),
			action: "reload-crio", minimal: "none", rules: []string{"namespace-policy-changed"}},
		{name: "another registries.d file is covered by the directory's policy",
			old: nil, new: onNode("/etc/containers/registries.d/other.yaml", "docker: {}\n"),
			action: "reload-crio", minimal: "reload-crio", rules: []string{"registries-d-changed"}},
		{name: "a file no policy covers reboots",
			old: nil, new: onNode("/etc/containers/mounts.conf", "x\n"),
			action: "reboot", minimal: "reboot", rules: []string{"other-file-changed"}},
		{name: "storage.conf written by a ContainerRuntimeConfig reboots; a drain and a CRI-O restart is enough",
			old: nil, new: onNode(nodefiles.StorageConf, "[storage]\n  driver = \"overlay\"\n"),
			action: "reboot", minimal: "drain-and-restart-crio", rules: []string{"container-runtime-file-changed"}},
		{name: "a ContainerRuntimeConfig's CRI-O drop-in removed reboots; a drain and a CRI-O restart is enough",
			old: onNode(nodefiles.CRIODropInPrefix+"logLevel", "[crio]\n  [crio.runtime]\n    log_level = \"debug\"\n"), new: nil,
			action: "reboot", minimal: "drain-and-restart-crio", rules: []string{"container-runtime-file-changed"}},
		{name: "CRI-O's own drop-in is no ContainerRuntimeConfig's",
			old: nil, new: onNode("/etc/crio/crio.conf.d/00-default", "[crio]\n"),
			action: "reboot", minimal: "reboot", rules: []string{"other-file-changed"}},
		{name: "another registries.conf drop-in reboots, as nothing covers registries.conf.d",
			old: onNode("/etc/containers/registries.conf.d/99-x.conf", "a = 1\n"), new: nil,
			action: "reboot", minimal: "reboot", rules: []string{"other-file-changed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := classify(t, tc.old, tc.new)
			var rules []string
			for _, r := range res.Reasons {
				rules = append(rules, r.Rule)
			}
			if res.Action.String() != tc.action || res.Minimal.String() != tc.minimal || !slices.Equal(rules, tc.rules) {
				t.Errorf("got %s/%s %q, want %s/%s %q", res.Action, res.Minimal, rules, tc.action, tc.minimal, tc.rules)
			}
		})
	}
}

func TestDiffDescribesSignatureFilesByMeaning(t *testing.T) {
	team := nodefiles.NamespacePolicy("team-a")
	cases := []struct {
		name     string
		old, new nodefiles.Files
		want     []string
	}{
		{name: "a policy.json scope added, with its requirement summarised",
			old: nil, new: onNode(nodefiles.PolicyJSON, cipPolicy),
			want: []string{`policy.json: added: transports.docker "quay.io/myorg": [sigstoreSigned{keyData: sha256:0183c50f…, signedIdentity: matchRepoDigestOrExact}]`}},
		{name: "a requirement appended to a scope",
			old:  onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}],"transports":{"docker":{"q.io":[{"type":"insecureAcceptAnything"}]}}}`),
			new:  onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}],"transports":{"docker":{"q.io":[{"type":"insecureAcceptAnything"},{"type":"sigstoreSigned","keyPath":"/k"}]}}}`),
			want: []string{`policy.json: added: transports.docker "q.io": requirement sigstoreSigned{keyPath: /k}`}},
		{name: "the default replaced",
			old: nil, new: onNode(nodefiles.PolicyJSON, `{"default":[{"type":"reject"}],"transports":{"docker-daemon":{"":[{"type":"insecureAcceptAnything"}]}}}`),
			want: []string{`policy.json: changed: default: [insecureAcceptAnything] -> [reject]`}},
		{name: "registries.d keys added, removed and switched",
			old: onNode(nodefiles.SigstoreRegistries, "docker:\n  a.io:\n    use-sigstore-attachments: true\n  b.io:\n    use-sigstore-attachments: true\n"),
			new: onNode(nodefiles.SigstoreRegistries, "docker:\n  b.io:\n    use-sigstore-attachments: false\n  c.io:\n    use-sigstore-attachments: true\n"),
			want: []string{
				`registries.d/sigstore-registries.yaml: removed: docker "a.io": use-sigstore-attachments true`,
				`registries.d/sigstore-registries.yaml: changed: docker "b.io": use-sigstore-attachments true -> false`,
				`registries.d/sigstore-registries.yaml: added: docker "c.io": use-sigstore-attachments true`,
			}},
		{name: "a namespace policy added, against policy.json, which it replaces for the namespace",
			old: onNode(nodefiles.PolicyJSON, cipPolicy), new: onNode(nodefiles.PolicyJSON, cipPolicy, team, nsPolicy),
			want: []string{
				`/etc/crio/policies/team-a.json: added: namespace "team-a": its pods use this policy instead of policy.json`,
				`/etc/crio/policies/team-a.json: added: transports.docker "*.example.org": [sigstoreSigned{pki: {caRootsData: Qw==, subjectHostname: signer.example.org}, signedIdentity: matchRepository}] (compared with policy.json)`,
			}},
		{name: "a namespace policy removed",
			old: onNode(team, nsPolicy), new: nil,
			want: []string{`/etc/crio/policies/team-a.json: removed: namespace "team-a": its pods use policy.json again`}},
		{name: "a file no rule reads, by size and by line",
			old: onNode("/etc/x.conf", "abc\nkept\n"), new: onNode("/etc/x.conf", "abcd\nkept\n"),
			want: []string{`/etc/x.conf: changed: contents changed (9 -> 10 bytes)`, `/etc/x.conf: changed: line - abc`, `/etc/x.conf: changed: line + abcd`}},
		{name: "a reformatted registries.d file",
			old: onNode(nodefiles.SigstoreRegistries, "docker:\n  a.io:\n    use-sigstore-attachments: true\n"), new: onNode(nodefiles.SigstoreRegistries, "docker: {a.io: {use-sigstore-attachments: true}}\n"),
			want: []string{`registries.d/sigstore-registries.yaml: changed: formatting only: the decoded contents are identical`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			changes, err := Diff(tc.old, tc.new)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range changes {
				got = append(got, c.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSignatureFilesThatDoNotParseAreNamed(t *testing.T) {
	cases := []struct {
		name     string
		old, new nodefiles.Files
		want     string
	}{
		{name: "registries.d", old: nil, new: onNode(nodefiles.SigstoreRegistries, "docker: [\n"), want: "new /etc/containers/registries.d/sigstore-registries.yaml: not a registries.d YAML file"},
		{name: "namespace policy", old: onNode(nodefiles.NamespacePolicy("a"), "{"), new: nil, want: "old /etc/crio/policies/a.json: not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Classify(tc.old, tc.new, DefaultPolicy(), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
