// Package pulls proves the rendered files with real pulls: a real registry (distribution v3's registry, built
// from the module pinned in hack/tools/registry; see framework.StartRegistry) on loopback serves as mirror,
// the configuration is rendered by the project from mirror objects, and containers/image's docker transport
// (what CRI-O uses) pulls through it. For every scenario, explain's answer is checked against what the pull
// actually did.
package pulls

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/containers/image/v5/types"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/framework"
)

// env is what every scenario shares: a TLS registry and a plain-HTTP registry holding the test image,
// a listener standing in for a source that must never be contacted, and a CA directory for clients.
type env struct {
	tls, http *framework.Registry
	never     *countingListener
	certDir   string
	image     *framework.LayoutImage
}

func newEnv(t *testing.T) *env {
	cert := newServerCert(t)
	e := &env{
		tls:     startRegistry(t, cert),
		http:    startRegistry(t, nil),
		never:   newCountingListener(t),
		certDir: t.TempDir(),
		image:   framework.NewLayoutImage(t, nil),
	}
	// containers/image reads every *.crt of DockerCertPath as a trusted CA.
	writeTestFile(t, filepath.Join(e.certDir, "ca.crt"), cert.certPEM)

	pushConf := filepath.Join(t.TempDir(), "registries.conf")
	writeTestFile(t, pushConf, nil) // empty: no mirrors, nothing blocked
	push := &types.SystemContext{
		SystemRegistriesConfPath:    pushConf,
		SystemRegistriesConfDirPath: filepath.Join(t.TempDir(), "none"),
		DockerCertPath:              e.certDir,
		AuthFilePath:                filepath.Join(t.TempDir(), "auth.json"),
	}
	for _, repo := range []string{"mirror/team/app", "mirror/tags/app", "blocked/app"} {
		e.image.Push(t, push, e.tls.Host+"/"+repo+":v1")
	}
	plain := *push
	plain.DockerInsecureSkipTLSVerify = types.OptionalBoolTrue // only to push over plain HTTP
	e.image.Push(t, &plain, e.http.Host+"/mirror/plain/app:v1")
	return e
}

// expand fills the placeholders of a scenario: {{TLS}} and {{HTTP}} (registry hosts), {{NEVER}} (the
// counting listener) and {{DIGEST}} (the test image's manifest digest).
func (e *env) expand(s string) string {
	return strings.NewReplacer("{{TLS}}", e.tls.Host, "{{HTTP}}", e.http.Host, "{{NEVER}}", e.never.Host, "{{DIGEST}}", e.image.Digest.String()).Replace(s)
}

// scenario is one pull under one configuration rendered from CR manifests.
type scenario struct {
	name      string
	manifests string
	ref       string
	// served is the index, in explain's attempts, of the attempt that must serve the pull; -1 when the
	// pull must fail.
	served int
	// errContains is part of the pull error, for a failing pull.
	errContains string
	// check adds scenario-specific assertions.
	check func(t *testing.T, e *env, x *explain.Explanation, res *pullResult)
}

const releaseImage = `
---
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata:
  name: version
spec:
  clusterID: 00000000-0000-0000-0000-000000000000
status:
  desired:
    image: quay.io/openshift-release-dev/ocp-release@sha256:8f3b4c29e2d1b0a7c6f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a098
`

const teamIDMS = `
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: team
spec:
  imageDigestMirrors:
  - source: source.invalid/team
    mirrors:
    - {{TLS}}/mirror/team
`

const plainIDMS = `
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: plain
spec:
  imageDigestMirrors:
  - source: source.invalid/plain
    mirrors:
    - {{HTTP}}/mirror/plain
`

func scenarios() []scenario {
	return []scenario{
		{
			name:      "a digest pull of the source is served by the IDMS mirror while the source host does not exist",
			manifests: teamIDMS,
			ref:       "source.invalid/team/app@{{DIGEST}}",
			served:    0,
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if a := x.Attempts[0]; a.PullFromMirror != "digest-only" || len(a.Origins) != 1 || a.Origins[0] != `ImageDigestMirrorSet "team" spec.imageDigestMirrors[0].mirrors[0]` {
					t.Errorf("explain's mirror attempt: %+v", a)
				}
			},
		},
		{
			name: "a tag pull is served by the ITMS mirror",
			manifests: `
apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
metadata:
  name: tags
spec:
  imageTagMirrors:
  - source: source.invalid/tags
    mirrors:
    - {{TLS}}/mirror/tags
`,
			ref:    "source.invalid/tags/app:v1",
			served: 0,
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if a := x.Attempts[0]; a.PullFromMirror != "tag-only" || len(a.Origins) != 1 || a.Origins[0] != `ImageTagMirrorSet "tags" spec.imageTagMirrors[0].mirrors[0]` {
					t.Errorf("explain's mirror attempt: %+v", a)
				}
			},
		},
		{
			name:        "a tag pull with only an IDMS goes to the source, which does not exist",
			manifests:   teamIDMS,
			ref:         "source.invalid/team/app:v1",
			served:      -1,
			errContains: "source.invalid",
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if len(x.Attempts) != 1 || !x.Attempts[0].Primary || !x.SourceContacted() || len(x.Skipped) != 1 {
					t.Errorf("explain should list the source as the only attempt and the digest-only mirror as skipped: %+v", x)
				}
			},
		},
		{
			name: "with NeverContactSource and the image missing from the mirror, the pull fails and the source is never contacted",
			manifests: `
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: never
spec:
  imageDigestMirrors:
  - source: {{NEVER}}/never
    mirrorSourcePolicy: NeverContactSource
    mirrors:
    - {{TLS}}/mirror/never
`,
			ref:         "{{NEVER}}/never/app@{{DIGEST}}",
			served:      -1,
			errContains: "is blocked",
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if x.SourceContacted() {
					t.Error("explain says the source may be contacted")
				}
				if n := e.never.Connections(); n != 0 {
					t.Errorf("the source received %d connections, want 0", n)
				}
				if !strings.Contains(res.Failed[res.Tried[0]], "manifest unknown") {
					t.Errorf("the mirror attempt should fail because the image is missing there: %q", res.Failed[res.Tried[0]])
				}
			},
		},
		{
			name:      "a plain-HTTP mirror marked insecure serves the pull",
			manifests: plainIDMS + "---\napiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    insecureRegistries:\n    - {{HTTP}}\n",
			ref:       "source.invalid/plain/app@{{DIGEST}}",
			served:    0,
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if a := x.Attempts[0]; !a.Insecure || len(a.InsecureBy) != 1 {
					t.Errorf("explain should say the mirror attempt is insecure, and why: %+v", a)
				}
			},
		},
		{
			name:        "the same plain-HTTP mirror not marked insecure fails over TLS",
			manifests:   plainIDMS,
			ref:         "source.invalid/plain/app@{{DIGEST}}",
			served:      -1,
			errContains: "source.invalid",
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if x.Attempts[0].Insecure {
					t.Error("explain says the mirror attempt is insecure")
				}
				if msg := res.Failed[res.Tried[0]]; !strings.Contains(msg, "HTTP response to HTTPS client") {
					t.Errorf("the mirror attempt should fail on TLS: %q", msg)
				}
			},
		},
		{
			name:        "a blocked registry refuses the pull",
			manifests:   "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    blockedRegistries:\n    - {{TLS}}/blocked\n" + releaseImage,
			ref:         "{{TLS}}/blocked/app:v1",
			served:      -1,
			errContains: "is blocked",
			check: func(t *testing.T, e *env, x *explain.Explanation, res *pullResult) {
				if x.Entry == nil || !x.Entry.Blocked || len(x.Entry.BlockedBy) != 1 || x.SourceContacted() {
					t.Errorf("explain should say the entry is blocked by the Image, and the source never contacted: %+v", x.Entry)
				}
			},
		},
		{
			name:      "the same image pulls when its registry is not blocked",
			manifests: releaseImage,
			ref:       "{{TLS}}/blocked/app:v1",
			served:    0,
		},
	}
}

// TestRealPulls renders each scenario's manifests with the project, pulls with containers/image through
// the rendered files, and checks that explain agrees with the pull.
func TestRealPulls(t *testing.T) {
	e := newEnv(t)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			r := renderScenario(t, e.expand(sc.manifests))
			ref := e.expand(sc.ref)
			x, err := explain.Explain(r.Config, ref, r.Provenance)
			if err != nil {
				t.Fatalf("explain: %v", err)
			}
			sys := *r.Config.SystemContext()
			sys.DockerCertPath = e.certDir
			sys.AuthFilePath = filepath.Join(t.TempDir(), "auth.json")
			// DockerInsecureSkipTLSVerify stays undefined, so that registries.conf decides.
			res := pull(t, &sys, policyJSON(r), ref)
			if t.Failed() {
				return
			}
			agree(t, x, res, sc.served)
			if sc.served < 0 && !strings.Contains(res.Err.Error(), sc.errContains) {
				t.Errorf("pull error %q does not mention %q", res.Err, sc.errContains)
			}
			if sc.check != nil && !t.Failed() {
				sc.check(t, e, x, res)
			}
			if t.Failed() {
				var b strings.Builder
				_ = x.WriteText(&b)
				t.Logf("explain:\n%s\npull: tried %q, failed %q, error %v", b.String(), res.Tried, res.Failed, res.Err)
			}
		})
	}
}

func renderScenario(t *testing.T, manifests string) *explain.Rendered {
	t.Helper()
	objs, err := inputfiles.Decode("scenario.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	r, err := explain.RenderPool(&objs.Inputs, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func policyJSON(r *explain.Rendered) []byte {
	for _, f := range r.Files {
		if f.Path == nodefiles.PolicyJSON {
			return f.Data
		}
	}
	return nil
}

// agree checks that the pull tried exactly the places explain listed, in order, up to the one that
// served it (or all of them when it failed), and that the attempts explain calls blocked were refused as
// blocked while the others were not.
func agree(t *testing.T, x *explain.Explanation, res *pullResult, served int) {
	t.Helper()
	var want []string
	for _, a := range x.Attempts {
		want = append(want, a.Reference)
	}
	if served >= 0 {
		if res.Err != nil {
			t.Fatalf("the pull failed: %v", res.Err)
		}
		if served >= len(want) {
			t.Fatalf("explain lists %d attempts, the scenario expects attempt %d to serve", len(want), served)
		}
		want = want[:served+1]
		if got := res.Served(); got != x.Attempts[served].Reference {
			t.Errorf("served by %q, explain's attempt %d is %q", got, served, x.Attempts[served].Reference)
		}
	} else if res.Err == nil {
		t.Fatalf("the pull succeeded (served by %q), want a failure", res.Served())
	}
	if !slices.Equal(res.Tried, want) {
		t.Errorf("the pull tried %q, explain says %q", res.Tried, want)
	}
	for i, ref := range res.Tried {
		if i >= len(x.Attempts) {
			break
		}
		refusal := strings.Contains(res.Failed[ref], "is blocked")
		if x.Attempts[i].Blocked != refusal {
			t.Errorf("attempt %d (%s): explain says blocked=%t, the pull's error was %q", i, ref, x.Attempts[i].Blocked, res.Failed[ref])
		}
	}
	if served < 0 && x.SourceContacted() {
		last := x.Attempts[len(x.Attempts)-1].Reference
		if _, failed := res.Failed[last]; !failed || strings.Contains(res.Failed[last], "is blocked") {
			t.Errorf("explain says the source is contacted, but the pull did not try %s: %q", last, res.Failed[last])
		}
	}
}
