package explain_test

import (
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
)

const signedManifests = `
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: myorg
spec:
  imageDigestMirrors:
  - source: quay.io/myorg
    mirrors:
    - mirror.local/myorg
---
apiVersion: config.openshift.io/v1
kind: ClusterImagePolicy
metadata:
  name: a
spec:
  scopes:
  - quay.io/myorg
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KSwotLS0tLUVORCBQVUJMSUMgS0VZLS0tLS0K
---
apiVersion: config.openshift.io/v1
kind: ImagePolicy
metadata:
  name: own
  namespace: team-a
spec:
  scopes:
  - other.io/team
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KSwotLS0tLUVORCBQVUJMSUMgS0VZLS0tLS0K
`

func TestExplainSignatures(t *testing.T) {
	objs, err := inputfiles.Decode("signed.yaml", []byte(signedManifests))
	if err != nil {
		t.Fatal(err)
	}
	r, err := explain.RenderPool(&objs.Inputs, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	digest := "@sha256:" + strings.Repeat("a", 64)
	for _, tc := range []struct {
		name, ref, ns string
		want          string
	}{
		{"a mirrored scope: signatures are read from the mirror, then the source", "quay.io/myorg/app" + digest, "", `signatures: /etc/containers/policy.json, scope "quay.io/myorg"
  from ClusterImagePolicy "a" spec.scopes[0]
  requires sigstoreSigned: public key sha256:e813e8452016b6ba2a0fa760a52ec4aaaecb46517e13f26610b3915b6cab76fd, signed identity matchRepoDigestOrExact
  looked for at:
    1. mirror.local/myorg/app` + digest + ` sigstore attachments on (registries.d key "mirror.local/myorg")
    2. quay.io/myorg/app` + digest + ` sigstore attachments on (registries.d key "quay.io/myorg")
`},
		{"a namespace's own scope, in its file", "other.io/team/app:v1", "team-a", `signatures: /etc/crio/policies/team-a.json, scope "other.io/team"
  from ImagePolicy "team-a/own" spec.scopes[0]
  requires sigstoreSigned: public key sha256:e813e8452016b6ba2a0fa760a52ec4aaaecb46517e13f26610b3915b6cab76fd, signed identity matchRepoDigestOrExact
  looked for at:
    1. other.io/team/app:v1 sigstore attachments on (registries.d key "other.io/team")
`},
		{"the same reference elsewhere: the cluster's default", "other.io/team/app:v1", "team-b", `signatures: /etc/containers/policy.json, no scope matches, the default applies
  requires insecureAcceptAnything
  looked for at:
    1. other.io/team/app:v1 sigstore attachments on (registries.d key "other.io/team")
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := explain.Explain(r.Config, tc.ref, r.Provenance)
			if err != nil {
				t.Fatal(err)
			}
			if err := explain.ExplainSignatures(x, r.Files, tc.ns, r.Provenance); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := x.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			got := b.String()[strings.Index(b.String(), "signatures:"):]
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
