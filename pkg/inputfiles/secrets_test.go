package inputfiles_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputfiles"
)

// kubectlList is what `kubectl get secret -n team-a -o yaml` prints for two secrets; the data is
// {"auths":{"mirror.example.com":{"auth":"dTpw"}}} and a service account token.
const kubectlList = `apiVersion: v1
items:
- apiVersion: v1
  data:
    .dockerconfigjson: eyJhdXRocyI6eyJtaXJyb3IuZXhhbXBsZS5jb20iOnsiYXV0aCI6ImRUcHcifX19
  kind: Secret
  metadata:
    name: mirror-pull
    namespace: team-a
  type: kubernetes.io/dockerconfigjson
- apiVersion: v1
  data:
    token: dG9rZW4=
  kind: Secret
  metadata:
    name: builder-token
    namespace: team-a
  type: kubernetes.io/service-account-token
kind: List
metadata:
  resourceVersion: ""
`

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadSecretsReadsListsDocumentsAndDirectoriesAndIgnoresOtherObjects(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a-list.yaml": kubectlList,
		"b-docs.yml": `apiVersion: v1
kind: Secret
metadata: {name: other, namespace: team-b}
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '{"auths":{}}'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-secret, namespace: team-a}
`,
		"c.json":    `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "json", "namespace": "team-a"}}`,
		"notes.txt": "not read",
	})
	secrets, err := inputfiles.ReadSecrets(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range secrets {
		got = append(got, s.Namespace+"/"+s.Name+" "+string(s.Type))
	}
	want := []string{
		"team-a/mirror-pull kubernetes.io/dockerconfigjson",
		"team-a/builder-token kubernetes.io/service-account-token",
		"team-b/other kubernetes.io/dockerconfigjson",
		"team-a/json ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if string(secrets[0].Data[".dockerconfigjson"]) != `{"auths":{"mirror.example.com":{"auth":"dTpw"}}}` {
		t.Errorf("data not decoded from base64: %q", secrets[0].Data[".dockerconfigjson"])
	}

	one, err := inputfiles.ReadSecrets(filepath.Join(dir, "a-list.yaml"))
	if err != nil || len(one) != 2 {
		t.Errorf("a single file: %d secrets, %v", len(one), err)
	}
}

func TestReadSecretsNamesTheDocumentAndNeverQuotesItsContent(t *testing.T) {
	for name, tc := range map[string]struct{ data, want string }{
		"not base64": {
			data: "apiVersion: v1\nkind: Secret\nmetadata: {name: bad, namespace: team-a}\ndata:\n  .dockerconfigjson: alice:s3cr3t-Pa55w0rd\n",
			want: `secrets.yaml (document 1): Secret "bad" does not decode as a v1 Secret (its data must be base64)`,
		},
		"not YAML": {
			data: "apiVersion: v1\nkind: Secret\n---\n{\"data\": {\"x\": \"alice:s3cr3t-Pa55w0rd\"\n",
			want: "secrets.yaml (document 2): not YAML or JSON",
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"secrets.yaml": tc.data})
			_, err := inputfiles.ReadSecrets(filepath.Join(dir, "secrets.yaml"))
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one ending %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "alice") || strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error quotes the content: %v", err)
			}
		})
	}
	if _, err := inputfiles.ReadSecrets(filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "reading secrets") {
		t.Errorf("a missing file: %v", err)
	}
}
