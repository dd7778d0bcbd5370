package credentialprovider_test

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/fixtures"
)

const (
	invalidMessage  = "invalid matchImages value, must be a valid fully qualified domain name in lowercase with optional wildcard, port, and path"
	wildcardMessage = "global wildcard '*' is not allowed"
)

// TestProblemsAPIVectors holds openshift/api's test vectors of the CRD (CRIOCredentialProviderConfig.yaml):
// what the API server accepts, and what it refuses with which CEL message.
func TestProblemsAPIVectors(t *testing.T) {
	accepted := [][]string{
		nil, // spec: {}
		{"123456789.dkr.ecr.us-east-1.amazonaws.com", "*.azurecr.io", "gcr.io", "*.*.registry.io", "registry.io:8080/path"},
	}
	for _, images := range accepted {
		if ps := credentialprovider.Problems(fixtures.CRIOCredentialProviderConfig(images...)); ps != nil {
			t.Errorf("%q: want no problem, got %v", images, ps)
		}
	}
	refused := map[string]string{
		"reg!stry.io":            invalidMessage,
		"Registry.COM":           invalidMessage,
		"registry.io/PaTh":       invalidMessage,
		"registry.io:8080/pa*th": invalidMessage,
		"example.app*.com":       invalidMessage,
		"*":                      wildcardMessage,
	}
	for v, msg := range refused {
		ps := credentialprovider.Problems(fixtures.CRIOCredentialProviderConfig(v))
		if len(ps) != 1 || ps[0].Message != msg || ps[0].At.Field != "spec.matchImages[0]" || ps[0].Value != v ||
			ps[0].At.Object.String() != `CRIOCredentialProviderConfig "cluster"` || ps[0].Fix == "" {
			t.Errorf("%q: want one problem %q at spec.matchImages[0] with a fix, got %v", v, msg, ps)
		}
	}
}

// TestProblemsReportEverything: the other rules of the CRD, all reported at once, in field order, as people
// read them.
func TestProblemsReportEverything(t *testing.T) {
	cfg := fixtures.CRIOCredentialProviderConfig("quay.io", "Quay.io", "", "https://mirror.local:5000/team", "quay.io", strings.Repeat("a", 513), "*")
	cfg.Name = "default"
	want := []string{
		`CRIOCredentialProviderConfig "default": metadata.name: "default": criocredentialproviderconfig is a singleton, .metadata.name must be 'cluster'; name the object "cluster": no other name is read`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[1]: "Quay.io": ` + invalidMessage + `; write it as "quay.io"`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[2]: "": must not be empty; remove the empty entry`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[2]: "": ` + invalidMessage + `; write it as host[:port][/path] in lowercase, with "*" only as a whole host label, e.g. "*.example.com", "k8s.*" or "registry.example.com:5000/team"`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[3]: "https://mirror.local:5000/team": ` + invalidMessage + `; write it as "mirror.local:5000/team"`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[4]: "quay.io": duplicate of spec.matchImages[0]: the list is a set; remove the repeated entry`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[5]: "` + strings.Repeat("a", 513) + `": must be at most 512 characters long, not 513; shorten the path, or use a wildcard host label`,
		`CRIOCredentialProviderConfig "default": spec.matchImages[6]: "*": ` + wildcardMessage + `; name the registries, e.g. "*.example.com" or "k8s.*"; the kubelet would send every image to the plugin`,
	}
	ps := credentialprovider.Problems(cfg)
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("--- want\n%s\n--- got\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

func TestProblemsOfTheList(t *testing.T) {
	var many []string
	for i := range 51 {
		many = append(many, fmt.Sprintf("r%d.example.com", i))
	}
	cases := []struct {
		name string
		cfg  *configv1.CRIOCredentialProviderConfig
		want string
	}{
		{"no spec", &configv1.CRIOCredentialProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}},
			`CRIOCredentialProviderConfig "cluster": spec: "": spec is required; write "spec: {}" for no images, or list the image patterns under spec.matchImages`},
		{"an empty list", &configv1.CRIOCredentialProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: &configv1.CRIOCredentialProviderConfigSpec{MatchImages: []configv1.MatchImage{}}},
			`CRIOCredentialProviderConfig "cluster": spec.matchImages: "[]": must have at least 1 item; list at least one image pattern, or remove matchImages`},
		{"51 entries", fixtures.CRIOCredentialProviderConfig(many...),
			`CRIOCredentialProviderConfig "cluster": spec.matchImages: "51 items": must have at most 50 items; merge entries into wildcards such as "*.example.com", or remove some`},
	}
	for _, tc := range cases {
		ps := credentialprovider.Problems(tc.cfg)
		if len(ps) != 1 || ps[0].String() != tc.want {
			t.Errorf("%s: want\n%s\ngot %v", tc.name, tc.want, ps)
		}
	}
	if ps := credentialprovider.Problems(fixtures.CRIOCredentialProviderConfig(many[:50]...)); ps != nil {
		t.Errorf("50 entries are allowed, got %v", ps)
	}
	if ps := credentialprovider.Problems(nil); ps != nil {
		t.Errorf("no object, got %v", ps)
	}
	if ps := credentialprovider.Problems(fixtures.CRIOCredentialProviderConfig(strings.Repeat("é", 10))); len(ps) != 1 || ps[0].Message != invalidMessage {
		t.Errorf("non-ASCII: got %v", ps)
	}
}
