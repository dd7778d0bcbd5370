package kubeletcreds

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/credentialprovider/plugin"
)

// The kubelet keeps its registered providers in package variables and refuses a name registered twice, so
// each provider file is loaded in a child process: the test binary run again with childEnv naming a plan.
const (
	childEnv    = "KUBELETCREDS_CHILD"
	recordEnv   = "KUBELETCREDS_RECORD"
	faithfulEnv = "KUBELETCREDS_FAITHFUL"
)

// The pod every pull is for.
const (
	podNamespace       = "team-a"
	podName            = "app-0"
	podUID             = "4c3a1f1e-0000-4000-8000-000000000001"
	serviceAccountName = "default"
)

// plan tells a child what to do.
type plan struct {
	// Config is the provider file, BinDir the plugin directory.
	Config, BinDir string
	// Record is the recorder's file; Result where the child writes its result.
	Record, Result string
	// Gates are kubelet feature gates to set before registering.
	Gates map[string]bool
	// Steps are the pulls, in order.
	Steps []step
}

type step struct {
	Image       string
	SleepBefore time.Duration
}

// result is what a child found.
type result struct {
	// RegisterError is the error of RegisterCredentialProviderPlugins, "" when it succeeded.
	RegisterError string
	Steps         []stepResult
}

type stepResult struct {
	Image string
	// Runs are the plugin runs of this pull, in order.
	Runs []run
	// Users are the user names of the credentials the keyring returned: whose credentials the kubelet offers
	// CRI-O with the pull.
	Users []string
	// Started and Ended bracket the lookup.
	Started, Ended time.Time
}

// run is one line of the recorder's file.
type run struct {
	Provider string
	Args     []string
	Request  struct {
		APIVersion                string            `json:"apiVersion"`
		Kind                      string            `json:"kind"`
		Image                     string            `json:"image"`
		ServiceAccountToken       string            `json:"serviceAccountToken"`
		ServiceAccountAnnotations map[string]string `json:"serviceAccountAnnotations"`
	}
}

func (r stepResult) providers() []string {
	var out []string
	for _, run := range r.Runs {
		out = append(out, run.Provider)
	}
	return out
}

func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		if err := child(path); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if pluginDir != "" {
		os.RemoveAll(pluginDir)
	}
	os.Exit(code)
}

// tokenFor is the token the fake token source mints: it names the service account and the audience, so the
// test sees both in the plugin's request.
func tokenFor(namespace, name string, audiences []string) string {
	return fmt.Sprintf("token:%s/%s:aud=%s", namespace, name, strings.Join(audiences, ","))
}

// child loads the plan's provider file with the kubelet's registration and runs its pulls through the
// kubelet's keyring, as the kubelet's image manager does for a pod.
func child(planPath string) error {
	data, err := os.ReadFile(planPath)
	if err != nil {
		return err
	}
	var p plan
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(p.Gates); err != nil {
		return err
	}
	getToken := func(namespace, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
		return &authenticationv1.TokenRequest{Status: authenticationv1.TokenRequestStatus{
			Token: tokenFor(namespace, name, tr.Spec.Audiences), ExpirationTimestamp: metav1.NewTime(time.Now().Add(time.Hour))}}, nil
	}
	getServiceAccount := func(namespace, name string) (*corev1.ServiceAccount, error) {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("sa-" + name)}}, nil
	}
	var res result
	if err := plugin.RegisterCredentialProviderPlugins(p.Config, p.BinDir, getToken, getServiceAccount); err != nil {
		res.RegisterError = err.Error()
		return writeJSON(p.Result, res)
	}
	for _, s := range p.Steps {
		time.Sleep(s.SleepBefore)
		if err := os.WriteFile(p.Record, nil, 0o600); err != nil {
			return err
		}
		keyring := plugin.NewExternalCredentialProviderDockerKeyring(podNamespace, podName, podUID, serviceAccountName)
		r := stepResult{Image: s.Image, Started: time.Now()}
		creds, _ := keyring.Lookup(s.Image)
		r.Ended = time.Now()
		for _, c := range creds {
			r.Users = append(r.Users, c.Username)
		}
		if r.Runs, err = readRuns(p.Record); err != nil {
			return err
		}
		res.Steps = append(res.Steps, r)
	}
	return writeJSON(p.Result, res)
}

func readRuns(path string) ([]run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var runs []run
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r run
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, line, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// runChild runs plan p in a child process and returns its result. extraEnv is added to the child's
// environment, which the plugins it runs inherit.
func runChild(t *testing.T, p plan, extraEnv ...string) result {
	t.Helper()
	dir := t.TempDir()
	p.Record = filepath.Join(dir, "record.jsonl")
	p.Result = filepath.Join(dir, "result.json")
	planPath := filepath.Join(dir, "plan.json")
	if err := writeJSON(planPath, p); err != nil {
		t.Fatal(err)
	}
	cmd := newCommand(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + planPath, recordEnv + "=" + p.Record}, extraEnv...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child for %s: %v\n%s", p.Config, err, out)
	}
	data, err := os.ReadFile(p.Result)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return res
}
