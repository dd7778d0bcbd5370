package image

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	imgspecv1 "github.com/opencontainers/image-spec/specs-go/v1"
)

// registryAPI reads one repository of a registry over the distribution API with plain HTTP requests, apart from
// the code that pushed to it: GET /v2/<repo>/manifests/<ref> and /v2/<repo>/blobs/<digest>.
type registryAPI struct {
	t *testing.T
	// base is "http://HOST/v2/REPO".
	base string
}

// registryRequestTimeout bounds one request; a blob is tens of megabytes on loopback.
const registryRequestTimeout = time.Minute

// manifest returns the manifest tagged tag, requested as an OCI manifest, and checks that the registry names it
// by want (Docker-Content-Digest) and that its bytes have that digest.
func (a *registryAPI) manifest(tag string, want digest.Digest) []byte {
	a.t.Helper()
	body, header := a.get("/manifests/"+tag, imgspecv1.MediaTypeImageManifest)
	if got := header.Get("Content-Type"); got != imgspecv1.MediaTypeImageManifest {
		a.t.Errorf("manifest Content-Type %q, want %q", got, imgspecv1.MediaTypeImageManifest)
	}
	if got := header.Get("Docker-Content-Digest"); got != want.String() {
		a.t.Errorf("the registry names the manifest %s, want %s", got, want)
	}
	if got := digest.FromBytes(body); got != want {
		a.t.Fatalf("the manifest served has digest %s, want %s", got, want)
	}
	return body
}

// blob returns the blob desc describes, checking its size and digest.
func (a *registryAPI) blob(desc imgspecv1.Descriptor) []byte {
	a.t.Helper()
	body, _ := a.get("/blobs/"+desc.Digest.String(), "")
	if int64(len(body)) != desc.Size || digest.FromBytes(body) != desc.Digest {
		a.t.Fatalf("blob %s: got %d bytes with digest %s, want %d bytes", desc.Digest, len(body), digest.FromBytes(body), desc.Size)
	}
	return body
}

func (a *registryAPI) get(path, accept string) ([]byte, http.Header) {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	client := &http.Client{Timeout: registryRequestTimeout}
	resp, err := client.Do(req)
	if err != nil {
		a.t.Fatalf("GET %s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("GET %s: %v", req.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		a.t.Fatalf("GET %s: %s: %s", req.URL, resp.Status, body)
	}
	return body, resp.Header
}
