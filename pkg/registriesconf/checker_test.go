package registriesconf

import (
	"strings"
	"testing"

	"github.com/containers/image/v5/pkg/sysregistriesv2"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

const twoEntries = `[[registry]]
  prefix = ""
  location = "quay.io/a"

  [[registry.mirror]]
    location = "m.local/a"
    pull-from-mirror = "digest-only"

[[registry]]
  prefix = ""
  location = "quay.io/b"
  blocked = true
`

func TestCheckerLoadsWhatANodeLoads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   nodefiles.Files
		entries int
		err     string
	}{
		{"nothing written", nil, 0, ""},
		{"registries.conf", nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(twoEntries)}}, 2, ""},
		{"a drop-in alone is read on top of the base file",
			nodefiles.Files{{Path: nodefiles.SearchRegistries, Data: []byte(`unqualified-search-registries = ["quay.io"]`)}}, 0, ""},
		{"a drop-in the library rejects",
			nodefiles.Files{{Path: nodefiles.SearchRegistries, Data: []byte(`unqualified-search-registries = ["https://quay.io"]`)}}, 0, "cannot load"},
		{"both mirror-by-digest-only and pull-from-mirror",
			nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\nlocation = \"q.io\"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = \"m.io\"\npull-from-mirror = \"tag-only\"\n")}},
			0, "cannot set mirror usage mirror-by-digest-only"},
		{"a policy.json without default", nodefiles.Files{{Path: nodefiles.PolicyJSON, Data: []byte(`{"transports": {}}`)}}, 0, nodefiles.PolicyJSON},
		{"a namespace policy with an unknown key", nodefiles.Files{{Path: nodefiles.NamespacePolicy("team"), Data: []byte(`{"default": [{"type": "reject"}], "x": 1}`)}}, 0, "/etc/crio/policies/team.json"},
		{"the node's base policy.json", nodefiles.Files{{Path: nodefiles.PolicyJSON, Data: nodefiles.Base(nodefiles.PolicyJSON)}}, 0, ""},
		{"a registries.d file beside the node's base ones", nodefiles.Files{{Path: nodefiles.SigstoreRegistries,
			Data: []byte("docker:\n  quay.io/team:\n    use-sigstore-attachments: true\n")}}, 0, ""},
		// docs/semantics.md §9.9 D9: RHEL's containers-common ships registry.redhat.io.yaml; containers/image refuses the
		// whole directory when another file configures the same key, and every pull on the node would fail.
		{"a registries.d key that a base file of the node also configures", nodefiles.Files{{Path: nodefiles.SigstoreRegistries,
			Data: []byte("docker:\n  registry.redhat.io:\n    use-sigstore-attachments: true\n")}}, 0,
			`"docker" namespace "registry.redhat.io" defined both in`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewChecker()
			defer c.Close()
			n, err := c.Check(tc.files)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("want no error, got %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("want an error containing %q, got %v", tc.err, err)
			case tc.err != "":
				if strings.Contains(err.Error(), "registriesconf-") {
					t.Errorf("the error names the private directory: %v", err)
				}
			case n != tc.entries:
				t.Errorf("entries %d, want %d", n, tc.entries)
			}
		})
	}
}

func TestCheckerLoadsEachDistinctSetOfFilesOnce(t *testing.T) {
	c := NewChecker()
	defer c.Close()
	a := nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(twoEntries)}}
	b := nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(twoEntries + "\n")}}
	for i, files := range []nodefiles.Files{a, a, b, b, a} {
		if n, err := c.Check(files); err != nil || n != 2 {
			t.Fatalf("check %d: %d entries, %v", i, n, err)
		}
	}
	if c.loads != 3 {
		t.Errorf("%d loads for a, a, b, b, a: want 3 (a repeat is remembered, a change is loaded)", c.loads)
	}
	if _, err := c.Check(nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte("[[registry]]\nprefix = \"q.io\"\n")}}); err == nil {
		t.Fatal("an entry without location must be rejected")
	}
	if _, err := c.Check(a); err != nil || c.loads != 4 {
		t.Errorf("a rejected set does not replace the last accepted one (loads %d, want 4): %v", c.loads, err)
	}
}

// After a check, containers/image's process-wide cache holds the node's base file for the Checker's path, not the
// configuration checked (which at scale is megabytes kept for nothing until the next check).
func TestCheckerLeavesNoCopyOfTheCheckedConfigurationInTheLibrarysCache(t *testing.T) {
	c := NewChecker()
	defer c.Close()
	if n, err := c.Check(nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(twoEntries)}}); err != nil || n != 2 {
		t.Fatalf("Check: %d entries, %v; want 2", n, err)
	}
	cached, err := sysregistriesv2.GetRegistries(c.sys) // answered from the library's cache for that path
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cached {
		if r.Location == "quay.io/a" || r.Location == "quay.io/b" {
			t.Errorf("the library's cache still holds the checked configuration's entry %s", r.Location)
		}
	}
	// The next check of the same files is answered from the Checker's memory of them, and a change is loaded.
	if n, err := c.Check(nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: []byte(twoEntries + "\n[[registry]]\n  location = \"quay.io/c\"\n")}}); err != nil || n != 3 {
		t.Errorf("Check of a changed file: %d entries, %v; want 3", n, err)
	}
}
