package credentialprovider_test

import (
	"reflect"
	"testing"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/framework/tables"
)

func TestMatchImage(t *testing.T) {
	for _, row := range tables.Read(t, "testdata/matchimage.txt", 3) {
		want := row[2] == "true"
		if got := credentialprovider.MatchImage(row[0], row[1]); got != want {
			t.Errorf("MatchImage(%q, %q) = %v, want %v", row[0], row[1], got, want)
		}
	}
	// Values Go's URL parser refuses match nothing.
	for _, bad := range [][2]string{{"%zz.io", "%zz.io/app"}, {"a.io", "a.io:port/app"}, {"a.io", "a.io/%zz"}} {
		if credentialprovider.MatchImage(bad[0], bad[1]) {
			t.Errorf("MatchImage(%q, %q) = true, want false", bad[0], bad[1])
		}
	}
}

func TestLookupName(t *testing.T) {
	for _, row := range tables.Read(t, "testdata/lookupname.txt", 2) {
		got, err := credentialprovider.LookupName(row[0])
		if err != nil || got != row[1] {
			t.Errorf("LookupName(%q) = %q, %v; want %q", row[0], got, err, row[1])
		}
	}
	for _, bad := range []string{"", "team/UPPER", "quay.io/app:tag:tag", "https://quay.io/app"} {
		if got, err := credentialprovider.LookupName(bad); err == nil {
			t.Errorf("LookupName(%q) = %q, want an error", bad, got)
		}
	}
}

func TestProvidersOfAFileOnANode(t *testing.T) {
	file := []byte(`apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: ecr-credential-provider
    matchImages: ["*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"]
    defaultCacheDuration: 12h
    apiVersion: credentialprovider.kubelet.k8s.io/v1
  - name: crio-credential-provider
    matchImages: ["123456789012.dkr.ecr.us-east-1.amazonaws.com", "quay.io"]
    defaultCacheDuration: 1s
    apiVersion: credentialprovider.kubelet.k8s.io/v1
`)
	providers, err := credentialprovider.Providers(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []credentialprovider.Provider{
		{Name: "ecr-credential-provider", MatchImages: []string{"*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"}},
		{Name: "crio-credential-provider", MatchImages: []string{"123456789012.dkr.ecr.us-east-1.amazonaws.com", "quay.io"}},
	}
	if !reflect.DeepEqual(providers, want) {
		t.Fatalf("want %+v, got %+v", want, providers)
	}
	for image, want := range map[string][]string{
		"123456789012.dkr.ecr.us-east-1.amazonaws.com/app": {"ecr-credential-provider", "crio-credential-provider"},
		"quay.io/team/app":        {"crio-credential-provider"},
		"docker.io/library/nginx": nil,
	} {
		if got := credentialprovider.ProvidersFor(providers, image); !reflect.DeepEqual(got, want) {
			t.Errorf("ProvidersFor(%q) = %q, want %q", image, got, want)
		}
	}
	if _, err := credentialprovider.Providers([]byte("providers: [")); err == nil {
		t.Error("want an error for a file that is not YAML")
	}
}
