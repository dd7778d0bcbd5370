package pulls

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/test/framework"
)

// mirrorUser may pull from the authenticating mirror; the bcrypt hash is of mirrorPassword.
const (
	mirrorUser     = "e2e"
	mirrorPassword = "e2e-secret"
	mirrorHtpasswd = mirrorUser + ":$2y$05$abcdefghijklmnopqrstuuXhuQfUCIGXEofofqdBR6RB.MmW6ruHS\n"
)

// pullSecret writes an auth file with user:password for each host.
func pullSecret(t *testing.T, hosts ...string) string {
	t.Helper()
	var entries []string
	for _, h := range hosts {
		auth := base64.StdEncoding.EncodeToString([]byte(mirrorUser + ":" + mirrorPassword))
		entries = append(entries, fmt.Sprintf("%q: {\"auth\": %q}", h, auth))
	}
	path := filepath.Join(t.TempDir(), "config.json")
	writeTestFile(t, path, []byte(`{"auths": {`+strings.Join(entries, ", ")+`}}`))
	return path
}

// loginMirror is a TLS registry on loopback that requires a login (mirrorHtpasswd), holding a new image at
// mirror/team/app:v1.
type loginMirror struct {
	*framework.Registry
	// certDir trusts the registry's CA: certDir/ca.crt, for a SystemContext's DockerCertPath.
	certDir string
	image   *framework.LayoutImage
	// push reaches the registry with its login (and nothing else: no mirrors).
	push *types.SystemContext
}

func startLoginMirror(t *testing.T) *loginMirror {
	t.Helper()
	cert := newServerCert(t)
	m := &loginMirror{Registry: startRegistryWithAuth(t, cert, mirrorHtpasswd), certDir: t.TempDir(), image: framework.NewLayoutImage(t, nil)}
	writeTestFile(t, filepath.Join(m.certDir, "ca.crt"), cert.certPEM)
	m.push = &types.SystemContext{
		SystemRegistriesConfPath:    filepath.Join(t.TempDir(), "registries.conf"),
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		DockerCertPath:              m.certDir,
		AuthFilePath:                pullSecret(t, m.Host),
	}
	writeTestFile(t, m.push.SystemRegistriesConfPath, nil)
	m.image.Push(t, m.push, m.Host+"/mirror/team/app:v1")
	return m
}

// TestAMirrorWithoutCredentialsFailsWith401AsExplainWarns proves explain --authfile's warning with a real pull:
// the source holds the image and the node's pull secret has an entry for it; the mirror requires
// authentication. Without an entry for the mirror, the pull's attempt at the mirror fails with 401 and the
// source serves it, as explain warns; with one, the mirror serves it and explain warns no more.
func TestAMirrorWithoutCredentialsFailsWith401AsExplainWarns(t *testing.T) {
	mirror, source := startLoginMirror(t), startRegistry(t, nil)
	image, certDir := mirror.image, mirror.certDir
	plain := *mirror.push
	plain.DockerInsecureSkipTLSVerify = types.OptionalBoolTrue // only to push over plain HTTP
	image.Push(t, &plain, source.Host+"/team/app:v1")

	r := renderScenario(t, strings.NewReplacer("{{SOURCE}}", source.Host, "{{MIRROR}}", mirror.Host).Replace(`
apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    insecureRegistries:
    - {{SOURCE}}
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
spec:
  imageDigestMirrors:
  - source: {{SOURCE}}/team
    mirrors:
    - {{MIRROR}}/mirror/team
`))
	ref := source.Host + "/team/app@" + image.Digest.String()
	for _, tc := range []struct {
		name    string
		secret  string
		served  int
		warning bool
	}{
		{"only the source in the pull secret: 401 from the mirror, served by the source, warned", pullSecret(t, source.Host), 1, true},
		{"the mirror in the pull secret too: served by the mirror, no warning", pullSecret(t, source.Host, mirror.Host), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := explain.Explain(r.Config, ref, r.Provenance)
			if err != nil {
				t.Fatal(err)
			}
			if err := explain.ExplainCredentials(x, r.Config, tc.secret); err != nil {
				t.Fatal(err)
			}
			warned := len(x.Warnings) == 1 && strings.Contains(x.Warnings[0], fmt.Sprintf("none for mirror %q", mirror.Host+"/mirror/team"))
			if warned != tc.warning || len(x.Warnings) > 1 {
				t.Errorf("warnings %q, want a warning: %t", x.Warnings, tc.warning)
			}
			sys := *r.Config.SystemContext()
			sys.DockerCertPath = certDir
			sys.AuthFilePath = tc.secret // as CRI-O's global_auth_file
			res := pull(t, &sys, nil, ref)
			agree(t, x, res, tc.served)
			// containers/image's text for the registry's 401 UNAUTHORIZED error.
			if failure := res.Failed[x.Attempts[0].Reference]; tc.warning && !strings.HasSuffix(failure, "/mirror/team/app: authentication required") {
				t.Errorf("the mirror attempt failed with %q, want authentication required (401)", failure)
			}
		})
	}
}
