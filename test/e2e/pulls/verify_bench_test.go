package pulls

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containers/image/v5/types"
	"github.com/opencontainers/go-digest"
	imgspecv1 "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// benchImages and benchMirrors are the size of BenchmarkVerify2000ImagesThrough3Mirrors.
const (
	benchImages  = 2000
	benchMirrors = 3
)

// BenchmarkVerify2000ImagesThrough3Mirrors runs `registries-controller verify` on 2,000 images by digest, each
// mirrored by three plain-HTTP registries on loopback (insecure): the first lacks every image, the second holds the
// even ones, the third all of them, so every image is asked of all three mirrors (6,000 manifest requests) and the
// source is never reached. It reports the time of a run and the requests and connections verify used (its stderr
// line), the point being that keep-alive holds connections near the per-registry bound, not near the requests.
//
//	REGISTRIES_CONTROLLER_TEST_REGISTRY=$(hack/test-registry.sh) go test -tags=containers_image_openpgp \
//	    -run '^$' -bench BenchmarkVerify2000ImagesThrough3Mirrors -benchtime 3x ./test/e2e/pulls/
func BenchmarkVerify2000ImagesThrough3Mirrors(b *testing.B) {
	var hosts []string
	for range benchMirrors {
		hosts = append(hosts, framework.StartRegistry(b, framework.RegistryOptions{}).Host)
	}
	base := benchManifestBase(b, hosts[1:])
	var refs []string
	for i := range benchImages {
		m := benchManifest(base, i)
		d := digest.FromBytes(m)
		refs = append(refs, "source.invalid/bench/app@"+d.String())
		if i%2 == 0 {
			putManifest(b, hosts[1], m)
		}
		putManifest(b, hosts[2], m)
	}
	dir := b.TempDir()
	list := filepath.Join(dir, "images.txt")
	writeBenchFile(b, list, []byte(strings.Join(refs, "\n")+"\n"))
	var conf strings.Builder
	conf.WriteString("[[registry]]\n  location = \"source.invalid/bench\"\n  blocked = true\n")
	for _, h := range hosts {
		fmt.Fprintf(&conf, "  [[registry.mirror]]\n    location = %q\n    insecure = true\n", h+"/bench")
	}
	confPath := filepath.Join(dir, "registries.conf")
	writeBenchFile(b, confPath, []byte(conf.String()))

	stats := regexp.MustCompile(`asked (\d+) places of (\d+) images: (\d+) requests over (\d+) connections`)
	b.ResetTimer()
	for range b.N {
		r := runVerifyForBenchmark(b, "verify", "-f", list, "--config", confPath, "-o", "json")
		m := stats.FindStringSubmatch(r)
		if m == nil {
			b.Fatalf("no statistics line in:\n%s", r)
		}
		requests, _ := strconv.Atoi(m[3])
		conns, _ := strconv.Atoi(m[4])
		b.ReportMetric(float64(requests), "requests/op")
		b.ReportMetric(float64(conns), "connections/op")
	}
}

// benchManifestBase pushes one image to bench/app of each host and returns its manifest, which benchManifest varies.
func benchManifestBase(b *testing.B, hosts []string) imgspecv1.Manifest {
	b.Helper()
	img := framework.NewLayoutImage(b, nil)
	push := &types.SystemContext{
		SystemRegistriesConfPath:    filepath.Join(b.TempDir(), "registries.conf"),
		SystemRegistriesConfDirPath: filepath.Join(b.TempDir(), "none"),
		AuthFilePath:                filepath.Join(b.TempDir(), "auth.json"),
		DockerInsecureSkipTLSVerify: types.OptionalBoolTrue, // plain HTTP
	}
	writeBenchFile(b, push.SystemRegistriesConfPath, nil)
	for _, h := range hosts {
		img.Push(b, push, h+"/bench/app:base")
	}
	data, err := os.ReadFile(filepath.Join(img.Dir, "blobs", "sha256", img.Digest.Encoded()))
	if err != nil {
		b.Fatal(err)
	}
	var m imgspecv1.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		b.Fatal(err)
	}
	return m
}

// benchManifest is base with an annotation numbering it: a manifest of its own over the same blobs.
func benchManifest(base imgspecv1.Manifest, i int) []byte {
	base.Annotations = map[string]string{"registries-controller.test/n": strconv.Itoa(i)}
	data, err := json.Marshal(base)
	if err != nil {
		panic(err) // a manifest of strings always marshals
	}
	return data
}

// putManifest uploads a manifest to bench/app of host by digest.
func putManifest(b *testing.B, host string, manifest []byte) {
	b.Helper()
	url := fmt.Sprintf("http://%s/v2/bench/app/manifests/%s", host, digest.FromBytes(manifest))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(manifest))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", imgspecv1.MediaTypeImageManifest)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		b.Fatalf("PUT %s: %s", url, resp.Status)
	}
}

func writeBenchFile(b *testing.B, path string, data []byte) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
}

// runVerifyForBenchmark runs the binary, requires exit status 0, and returns its stderr.
func runVerifyForBenchmark(b *testing.B, args ...string) string {
	b.Helper()
	bin, err := framework.ControllerBinary()
	if err != nil {
		b.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("verify: %v\n%s", err, stderr.String())
	}
	return stderr.String()
}
