package nodefiles_test

import (
	"encoding/json"
	"testing"

	"github.com/containers/image/v5/signature"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

func TestTheBasePolicyIsTheTemplateAndLoads(t *testing.T) {
	base := nodefiles.Base(nodefiles.PolicyJSON)
	if len(base) != 255 {
		t.Errorf("the template is 255 bytes, got %d", len(base))
	}
	if _, err := signature.NewPolicyFromBytes(base); err != nil {
		t.Errorf("the base policy.json does not load: %v", err)
	}
	base[0] = 'x'
	if nodefiles.Base(nodefiles.PolicyJSON)[0] != '{' {
		t.Error("Base returned the package's own bytes")
	}
}

func TestFilesGetContentAndUnder(t *testing.T) {
	files := nodefiles.Files{
		{Path: nodefiles.RegistriesConf, Data: []byte("x")},
		{Path: nodefiles.NamespacePolicy("team-a"), Data: []byte("{}")},
		{Path: nodefiles.SearchRegistries, Data: []byte("s")},
	}
	if data, ok := files.Get(nodefiles.PolicyJSON); ok || data != nil {
		t.Errorf("policy.json is not written: %q %v", data, ok)
	}
	var v any
	if err := json.Unmarshal(files.Content(nodefiles.PolicyJSON), &v); err != nil {
		t.Errorf("the content of an unwritten policy.json is the base file: %v", err)
	}
	if files.Content(nodefiles.SigstoreRegistries) != nil {
		t.Error("the node has no sigstore registries.d file of its own")
	}
	if got := files.Under(nodefiles.DropInDir).Paths(); len(got) != 1 || got[0] != nodefiles.SearchRegistries {
		t.Errorf("drop-ins %v", got)
	}
	if ns, ok := nodefiles.IsNamespacePolicy(files[1].Path); !ok || ns != "team-a" {
		t.Errorf("namespace policy path: %q %v", ns, ok)
	}
	if _, ok := nodefiles.IsNamespacePolicy(nodefiles.PolicyJSON); ok {
		t.Error("policy.json is not a namespace policy")
	}
}

func TestTheBaseRegistriesConfIsTheNodesFile(t *testing.T) {
	want := "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n"
	if got := string(nodefiles.Base(nodefiles.RegistriesConf)); got != want {
		t.Errorf("base registries.conf %q, want %q", got, want)
	}
}
