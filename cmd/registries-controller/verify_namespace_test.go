package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyNamespaceFlagsAreRefusedWhereTheyMeanNothing: --namespace reads the namespace's secrets from a cluster
// (verify needs --kubeconfig; preview needs --verify), and --service-account needs --namespace.
func TestVerifyNamespaceFlagsAreRefusedWhereTheyMeanNothing(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, filepath.Join(dir, "registries.conf"), "")
	list := writeFile(t, filepath.Join(dir, "images.txt"), "quay.io/team/app:v1\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "-f", list, "--config", conf, "--namespace", "team-a"}, "--namespace needs --kubeconfig"},
		{[]string{"verify", "-f", list, "--config", conf, "--service-account", "builder"}, "--service-account needs --namespace"},
		{[]string{"preview", "-f", list, "--namespace", "team-a"}, "--namespace needs --verify"},
		{[]string{"preview", "-f", list, "--verify", "--service-account", "builder"}, "--service-account needs --namespace"},
	} {
		_, stderr, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want an error saying %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestReadAuthValuesDecodesAsThePluginCopies: each key's "auth" as user:password (NULs trimmed off the password),
// keys whose "auth" is not base64 left out, and an error that quotes nothing of the data.
func TestReadAuthValuesDecodesAsThePluginCopies(t *testing.T) {
	got, err := readAuthValues([]byte(`{"auths":{"https://mirror.local":{"auth":"dGVhbTpzM2NyM3QAAA=="},"bad":{"auth":"%%%"},"empty":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := got["https://mirror.local"]; v.username != "team" || v.password != "s3cr3t" {
		t.Errorf("https://mirror.local: got user %q and a password of %d bytes, want team and s3cr3t", v.username, len(v.password))
	}
	if _, ok := got["bad"]; ok {
		t.Errorf("a key whose auth is not base64 is kept")
	}
	if v, ok := got["empty"]; !ok || v != (authValue{}) {
		t.Errorf("a key without auth: %t, want kept with no credentials", ok)
	}
	if _, err := readAuthValues([]byte(`{"auths": "s3cr3t`)); err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %v: want one that quotes nothing of the data", err)
	}
}
