package credentialprovider

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// gcpWithPlugin is MCO's GCP template followed by a crio-credential-provider entry, the starting point of
// MCO's TestUpdateCredentialProviderConfig case "existing crio entry".
const gcpWithPlugin = gcpTemplate + `  - name: crio-credential-provider
    apiVersion: credentialprovider.kubelet.k8s.io/v1
    matchImages:
      - docker.io
      - "*.example.io"
      - quay.io
      - registry.example.com:5000
    defaultCacheDuration: "1s"
    tokenAttributes:
      serviceAccountTokenAudience: https://kubernetes.default.svc
      cacheType: Token
      requireServiceAccount: false
`

// The provider entries of MCO's TestUpdateCredentialProviderConfig expectations, written by hand.
const (
	wantHeader = "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n"
	wantGCR    = `- apiVersion: credentialprovider.kubelet.k8s.io/v1
  args:
  - get-credentials
  - --v=3
  defaultCacheDuration: 1m0s
  matchImages:
  - gcr.io
  - '*.gcr.io'
  - '*.pkg.dev'
  - container.cloud.google.com
  name: gcr-credential-provider
`
	wantPluginTail = `  name: crio-credential-provider
  tokenAttributes:
    cacheType: Token
    requireServiceAccount: false
    serviceAccountTokenAudience: https://kubernetes.default.svc
`
	wantPluginHead = "- apiVersion: credentialprovider.kubelet.k8s.io/v1\n  defaultCacheDuration: 1s\n  matchImages:\n"
)

// TestMergeMatchImages holds the cases of MCO's TestUpdateCredentialProviderConfig (helpers_test.go), whose
// expectations are compared after a YAML round trip there; here both the meaning and the bytes are compared.
func TestMergeMatchImages(t *testing.T) {
	cases := []struct {
		name        string
		base        string // "" : no starting file
		images      []string
		want        string // "" : no file
		wantSkipped []string
	}{{
		name:   "without a starting file the plugin is the only provider",
		images: []string{"myhost.com", "quay.io"},
		want:   wantHeader + wantPluginHead + "  - myhost.com\n  - quay.io\n" + wantPluginTail,
	}, {
		name:   "the plugin is appended after the platform's provider",
		base:   gcpTemplate,
		images: []string{"myhost.com", "quay.io"},
		want:   wantHeader + wantGCR + wantPluginHead + "  - myhost.com\n  - quay.io\n" + wantPluginTail,
	}, {
		name:   "an existing plugin entry only gets its matchImages replaced",
		base:   gcpWithPlugin,
		images: []string{"myhost.com"},
		want:   wantHeader + wantGCR + wantPluginHead + "  - myhost.com\n" + wantPluginTail,
	}, {
		name:        "when every image overlaps there is no file",
		base:        gcpTemplate,
		images:      []string{"gcr.io", "*.cloud.google.com", "*.gcr.io", "*.pkg.dev"},
		wantSkipped: []string{"*.cloud.google.com", "*.gcr.io", "*.pkg.dev", "gcr.io"},
	}, {
		name:        "overlapping images are skipped and the others kept",
		base:        gcpTemplate,
		images:      []string{"gcr.io", "myhost.com", "*.cloud.google.com", "quay.io"},
		want:        wantHeader + wantGCR + wantPluginHead + "  - myhost.com\n  - quay.io\n" + wantPluginTail,
		wantSkipped: []string{"*.cloud.google.com", "gcr.io"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var base []byte
			if tc.base != "" {
				base = []byte(tc.base)
			}
			data, _, skipped, err := mergeMatchImages(base, tc.images)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(skipped, tc.wantSkipped) {
				t.Errorf("skipped: want %q, got %q", tc.wantSkipped, skipped)
			}
			if tc.want == "" {
				if data != nil {
					t.Fatalf("want no file, got:\n%s", data)
				}
				return
			}
			var wantObj, gotObj any
			if err := yaml.Unmarshal([]byte(tc.want), &wantObj); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(data, &gotObj); err != nil {
				t.Fatalf("the output does not parse: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(gotObj, wantObj) {
				t.Errorf("meaning differs\nwant %v\ngot  %v", wantObj, gotObj)
			}
			if string(data) != tc.want {
				t.Errorf("bytes differ\n--- want\n%s--- got\n%s", tc.want, data)
			}
		})
	}
}

// TestTemplatesParse checks that each embedded template reads as MCO reads it: one provider with the
// template's name, matchImages in order, and the duration.
func TestTemplatesParse(t *testing.T) {
	cases := []struct {
		template, name, duration string
		matchImages, args        []string
	}{
		{awsTemplate, "ecr-credential-provider", "12h0m0s", []string{"*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn", "*.dkr.ecr-fips.*.amazonaws.com", "*.dkr.ecr.us-iso-east-1.c2s.ic.gov", "*.dkr.ecr.us-isob-east-1.sc2s.sgov.gov"}, nil},
		{gcpTemplate, "gcr-credential-provider", "1m0s", []string{"gcr.io", "*.gcr.io", "*.pkg.dev", "container.cloud.google.com"}, []string{"get-credentials", "--v=3"}},
		{azureTemplate, "acr-credential-provider", "10m0s", []string{"*.azurecr.io", "*.azurecr.cn", "*.azurecr.de", "*.azurecr.us"}, []string{"/etc/kubernetes/cloud.conf"}},
	}
	for _, tc := range cases {
		cfg, err := parseProviderConfig([]byte(tc.template))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if cfg.APIVersion != "kubelet.config.k8s.io/v1" || cfg.Kind != "CredentialProviderConfig" || len(cfg.Providers) != 1 {
			t.Fatalf("%s: got %+v", tc.name, cfg)
		}
		p := cfg.Providers[0]
		if p.Name != tc.name || p.DefaultCacheDuration.Duration.String() != tc.duration || !reflect.DeepEqual(p.MatchImages, tc.matchImages) ||
			!reflect.DeepEqual(p.Args, tc.args) || p.APIVersion != "credentialprovider.kubelet.k8s.io/v1" || p.TokenAttributes != nil {
			t.Errorf("%s: got %+v", tc.name, p)
		}
	}
}

// TestParseDropsUnknownKeys: MCO decodes a provider file leniently, so a key it does not model is dropped,
// and a file without apiVersion and kind gets the kubelet's v1 values.
func TestParseDropsUnknownKeys(t *testing.T) {
	data, _, _, err := mergeMatchImages([]byte("providers:\n- name: other\n  matchImages: [a.io]\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n  surprise: 1\n"), []string{"b.io"})
	if err != nil {
		t.Fatal(err)
	}
	want := wantHeader + "- apiVersion: credentialprovider.kubelet.k8s.io/v1\n  matchImages:\n  - a.io\n  name: other\n" +
		wantPluginHead + "  - b.io\n" + wantPluginTail
	if string(data) != want {
		t.Errorf("--- want\n%s--- got\n%s", want, data)
	}
	if _, err := parseProviderConfig([]byte("providers: {")); err == nil {
		t.Error("a file that is not YAML must be refused")
	}
}
