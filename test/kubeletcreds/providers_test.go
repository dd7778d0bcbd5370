package kubeletcreds

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/framework/tables"
)

// goldenDir holds pkg/credentialprovider's golden cases, relative to this module.
const goldenDir = "../../pkg/credentialprovider/testdata/golden"

// providerNames are the plugins the rendered files name; the plugin directory has the recorder under each.
var providerNames = []string{"ecr-credential-provider", "gcr-credential-provider", "acr-credential-provider", credentialprovider.PluginName}

func newCommand(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }

var (
	pluginDirOnce sync.Once
	pluginDir     string
	pluginDirErr  error
)

// pluginBinDir builds recorder/ with `go build` once and installs it under every provider name in a plugin
// directory shared by the tests of this process.
func pluginBinDir(t *testing.T) string {
	t.Helper()
	pluginDirOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kubeletcreds-plugins-")
		if err != nil {
			pluginDirErr = err
			return
		}
		bin := filepath.Join(dir, "recorder")
		if out, err := exec.Command("go", "build", "-o", bin, "./recorder").CombinedOutput(); err != nil {
			pluginDirErr = &buildError{err: err, out: string(out)}
			return
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			pluginDirErr = err
			return
		}
		for _, name := range providerNames {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o755); err != nil {
				pluginDirErr = err
				return
			}
		}
		pluginDir = dir
	})
	if pluginDirErr != nil {
		t.Fatalf("building the recording plugin: %v", pluginDirErr)
	}
	return pluginDir
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// renderedFile is a provider file of a golden case, with the images of its kubelet.txt table.
type renderedFile struct {
	name, path string
	table      []tableRow
}

type tableRow struct {
	image     string
	providers []string
}

// renderedFiles returns every provider file of the golden cases: the cases that write one.
func renderedFiles(t *testing.T) []renderedFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*", "node", "etc", "kubernetes", "credential-providers", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no provider file under %s: %v", goldenDir, err)
	}
	var out []renderedFile
	for _, p := range paths {
		caseDir := strings.TrimSuffix(p, filepath.Join("node", "etc", "kubernetes", "credential-providers", filepath.Base(p)))
		out = append(out, renderedFile{name: filepath.Base(caseDir), path: p, table: readKubeletTable(t, filepath.Join(caseDir, "kubelet.txt"))})
	}
	return out
}

func readKubeletTable(t *testing.T, path string) []tableRow {
	t.Helper()
	var rows []tableRow
	for _, fields := range tables.Read(t, path, 0) {
		r := tableRow{image: fields[0]}
		if fields[1] != "-" {
			r.providers = fields[1:]
		}
		rows = append(rows, r)
	}
	return rows
}

// allTableImages returns the images of every kubelet.txt and of the matchImages table, each once, sorted:
// every rendered file is also tried with all of them, comparing the kubelet with ProvidersFor.
func allTableImages(t *testing.T, files []renderedFile) []string {
	t.Helper()
	var images []string
	for _, f := range files {
		for _, r := range f.table {
			images = append(images, r.image)
		}
	}
	for _, row := range tables.Read(t, matchImageTable, 3) {
		images = append(images, row[1])
	}
	slices.Sort(images)
	return slices.Compact(images)
}

// TestKubeletLoadsEveryRenderedFile loads each rendered provider file with the kubelet's registration and
// pulls through the kubelet's keyring: the file is accepted; the providers run for each image are those of
// the case's kubelet.txt (hand-written) and those ProvidersFor names (for the images of every table); CRI-O's
// plugin gets the image name and the pod's service account token for https://kubernetes.default.svc, the
// cloud plugins their arguments and no token; and the credentials the kubelet keeps are only the cloud
// provider's, since the plugin returns none.
func TestKubeletLoadsEveryRenderedFile(t *testing.T) {
	files := renderedFiles(t)
	extra := allTableImages(t, files)
	bin := pluginBinDir(t)
	wantToken := tokenFor(podNamespace, serviceAccountName, []string{"https://kubernetes.default.svc"})
	wantArgs := map[string][]string{"gcr-credential-provider": {"get-credentials", "--v=3"}, "acr-credential-provider": {"/etc/kubernetes/cloud.conf"}}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			data, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			providers, err := credentialprovider.Providers(data)
			if err != nil {
				t.Fatal(err)
			}
			p := plan{Config: f.path, BinDir: bin}
			for _, r := range f.table {
				p.Steps = append(p.Steps, step{Image: r.image})
			}
			for _, img := range extra {
				p.Steps = append(p.Steps, step{Image: img})
			}
			res := runChild(t, p)
			if res.RegisterError != "" {
				t.Fatalf("the kubelet refuses the file: %s", res.RegisterError)
			}
			for i, s := range res.Steps {
				got := s.providers()
				if i < len(f.table) && !reflect.DeepEqual(got, f.table[i].providers) {
					t.Errorf("%s: the kubelet runs %q, kubelet.txt says %q", s.Image, got, f.table[i].providers)
				}
				if want := credentialprovider.ProvidersFor(providers, s.Image); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: the kubelet runs %q, ProvidersFor says %q", s.Image, got, want)
				}
				var cloud []string
				for _, r := range s.Runs {
					token := ""
					if r.Provider == credentialprovider.PluginName {
						token = wantToken
					} else {
						cloud = append(cloud, r.Provider)
					}
					if r.Request.Image != s.Image || r.Request.Kind != "CredentialProviderRequest" || r.Request.APIVersion != "credentialprovider.kubelet.k8s.io/v1" ||
						r.Request.ServiceAccountToken != token || !slices.Equal(r.Args, wantArgs[r.Provider]) {
						t.Errorf("%s: %s got request %+v with arguments %q; want the image, token %q and arguments %q", s.Image, r.Provider, r.Request, r.Args, token, wantArgs[r.Provider])
					}
				}
				if !reflect.DeepEqual(s.Users, cloud) {
					t.Errorf("%s: the kubelet offers the credentials of %q, want only the cloud providers' %q", s.Image, s.Users, cloud)
				}
			}
		})
	}
}

// renderTo renders matchImages for platform with pkg/credentialprovider and writes the provider file to a
// temporary directory.
func renderTo(t *testing.T, platform configv1.PlatformType, images ...configv1.MatchImage) string {
	t.Helper()
	res, err := credentialprovider.RenderProviders(&configv1.CRIOCredentialProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       &configv1.CRIOCredentialProviderConfigSpec{MatchImages: images},
	}, platform)
	if err != nil {
		t.Fatal(err)
	}
	data, ok := res.Files.Get(credentialprovider.ProviderFile(platform))
	if !ok {
		t.Fatalf("no provider file for %q", images)
	}
	path := filepath.Join(t.TempDir(), "provider.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestKubeletRefusesTheFileWithoutTheTokenGate: the plugin's entry has tokenAttributes, which the kubelet
// accepts only with the feature KubeletServiceAccountTokenForCredentialProviders (on by default since 1.34);
// without it the kubelet refuses the whole file, cloud provider included.
func TestKubeletRefusesTheFileWithoutTheTokenGate(t *testing.T) {
	bin := pluginBinDir(t)
	const gate = "KubeletServiceAccountTokenForCredentialProviders"
	for _, platform := range []configv1.PlatformType{configv1.AWSPlatformType, configv1.NonePlatformType} {
		config := renderTo(t, platform, "quay.io")
		res := runChild(t, plan{Config: config, BinDir: bin, Gates: map[string]bool{gate: false}})
		if want := "tokenAttributes is not supported when " + gate + " feature gate is disabled"; !strings.Contains(res.RegisterError, want) {
			t.Errorf("%s with the gate off: want an error with %q, got %q", platform, want, res.RegisterError)
		}
		res = runChild(t, plan{Config: config, BinDir: bin, Gates: map[string]bool{gate: true}, Steps: []step{{Image: "quay.io/team/app"}}})
		if res.RegisterError != "" || len(res.Steps) != 1 || !reflect.DeepEqual(res.Steps[0].providers(), []string{credentialprovider.PluginName}) {
			t.Errorf("%s with the gate on: want the plugin run, got %+v", platform, res)
		}
	}
}

// TestKubeletCachesThePluginAnswerPerRegistry: the plugin answers with cache key type Registry and no cache
// duration, so the kubelet keeps its (empty) answer for the entry's defaultCacheDuration of 1s per registry:
// a second image of the same registry pulled within that second does not run the plugin, so no auth file is
// written for it; after the second it runs again. Each attempt uses its own registry; an attempt whose second
// pull came too late to tell (over 800ms, on a busy machine) is not judged, but one attempt must be.
func TestKubeletCachesThePluginAnswerPerRegistry(t *testing.T) {
	bin := pluginBinDir(t)
	config := renderTo(t, configv1.NonePlatformType, "*.example.com")
	const attempts = 5
	var p plan
	p.Config, p.BinDir = config, bin
	for i := range attempts {
		host := "r" + string(rune('a'+i)) + ".example.com"
		p.Steps = append(p.Steps, step{Image: host + "/team/one"}, step{Image: host + "/team/two"}, step{Image: host + "/team/three", SleepBefore: 1200 * time.Millisecond})
	}
	res := runChild(t, p, faithfulEnv+"=1")
	judged := 0
	for i := range attempts {
		first, second, third := res.Steps[3*i], res.Steps[3*i+1], res.Steps[3*i+2]
		plugin := []string{credentialprovider.PluginName}
		if !reflect.DeepEqual(first.providers(), plugin) || !reflect.DeepEqual(third.providers(), plugin) {
			t.Fatalf("the first pull and the one after 1.2s must run the plugin: %q, %q", first.providers(), third.providers())
		}
		if second.Started.Sub(first.Ended) > 800*time.Millisecond {
			continue
		}
		judged++
		if len(second.Runs) != 0 {
			t.Errorf("%s right after %s ran %q: want the kubelet's cached answer", second.Image, first.Image, second.providers())
		}
	}
	if judged == 0 {
		t.Fatalf("no attempt pulled twice within 800ms: %+v", res.Steps)
	}
}
