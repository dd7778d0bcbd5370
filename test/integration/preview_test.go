package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// readRules are what preview and explain --kubeconfig read: every input kind, the MachineConfigs, and the
// cluster-wide objects that say how nodes take a change.
func readRules(machineConfigurations bool) []rbacv1.PolicyRule {
	byGroup := map[string][]string{
		"machineconfiguration.openshift.io": {"machineconfigs"},
		"config.openshift.io":               {"infrastructures"},
	}
	for _, k := range inputs.Kinds {
		byGroup[k.GroupVersion.Group] = append(byGroup[k.GroupVersion.Group], k.Resource)
	}
	if machineConfigurations {
		byGroup["operator.openshift.io"] = append(byGroup["operator.openshift.io"], "machineconfigurations")
	}
	var rules []rbacv1.PolicyRule
	for group, resources := range byGroup {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: []string{"get", "list", "watch"}})
	}
	return rules
}

// readOnlyKubeconfig returns a kubeconfig that acts as user, bound to a ClusterRole of get, list and watch on
// what preview reads (machineconfigurations.operator.openshift.io only when asked): the admin's credentials,
// impersonating the user, so every request is authorized as the user.
func readOnlyKubeconfig(t *testing.T, user string, machineConfigurations bool) string {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: readRules(machineConfigurations)}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}
	if _, err := cp.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Kube.RbacV1().ClusterRoleBindings().Delete(ctx, user, metav1.DeleteOptions{})
		_ = cp.Kube.RbacV1().ClusterRoles().Delete(ctx, user, metav1.DeleteOptions{})
	})
	cfg, err := clientcmd.LoadFromFile(cp.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = user
		a.ImpersonateGroups = []string{"system:authenticated"}
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// apiWrites counts, with watches, every create, update and delete of the resources preview could touch. It also
// keeps what the first lists held, to compare with what the API server holds later (changed): unlike the watches,
// that comparison needs no wait for events to arrive.
type apiWrites struct {
	client dynamic.Interface
	gvrs   []schema.GroupVersionResource
	listed map[schema.GroupVersionResource]map[string]string // namespace/name -> resourceVersion

	mu   sync.Mutex
	seen []string
}

func watchWrites(t *testing.T) *apiWrites {
	t.Helper()
	client, err := dynamic.NewForConfig(cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gvrs := []schema.GroupVersionResource{
		{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"},
		{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"},
		{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures"},
		{Version: "v1", Resource: "events"},
		{Group: "events.k8s.io", Version: "v1", Resource: "events"},
	}
	for _, k := range inputs.Kinds {
		gvrs = append(gvrs, k.GroupVersionResource())
	}
	w := &apiWrites{client: client, gvrs: gvrs, listed: map[schema.GroupVersionResource]map[string]string{}}
	for _, gvr := range gvrs {
		list, err := client.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w.listed[gvr] = versions(list)
		watcher, err := client.Resource(gvr).Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer watcher.Stop()
			for ev := range watcher.ResultChan() {
				if ev.Type == watch.Added || ev.Type == watch.Modified || ev.Type == watch.Deleted {
					w.mu.Lock()
					w.seen = append(w.seen, string(ev.Type)+" "+gvr.Resource)
					w.mu.Unlock()
				}
			}
		}()
	}
	return w
}

func (w *apiWrites) get() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// changed lists the resources again and returns every object created, changed or deleted since watchWrites
// listed them.
func (w *apiWrites) changed(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, gvr := range w.gvrs {
		list, err := w.client.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before, now := w.listed[gvr], versions(list)
		for name, rv := range now {
			switch old, ok := before[name]; {
			case !ok:
				out = append(out, "created "+gvr.Resource+" "+name)
			case old != rv:
				out = append(out, "changed "+gvr.Resource+" "+name)
			}
		}
		for name := range before {
			if _, ok := now[name]; !ok {
				out = append(out, "deleted "+gvr.Resource+" "+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// versions maps the objects of a list, by namespace/name, to their resourceVersions.
func versions(list *unstructured.UnstructuredList) map[string]string {
	out := map[string]string{}
	for _, o := range list.Items {
		out[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return out
}

// poolSection returns the lines printed for one pool, from its "== pool" line to the blank line that ends it.
func poolSection(stdout, pool string) string {
	start := strings.Index(stdout, "\n== pool "+pool+": ")
	if start < 0 {
		return ""
	}
	rest := stdout[start+1:]
	if end := strings.Index(rest, "\n\n"); end >= 0 {
		rest = rest[:end+1]
	}
	return rest
}

const teamAIDMS = `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: preview-a
spec:
  imageDigestMirrors:
  - source: quay.io/preview-a
    mirrors:
    - m.local/preview-a
`

// invalidICSP is refused by the controller, not by the CRD's schema (which refuses a scheme in an
// ImageDigestMirrorSet's mirror already).
const invalidICSP = `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: preview-bad
spec:
  repositoryDigestMirrors:
  - source: quay.io/preview-bad
    mirrors:
    - https://m.local/preview-bad
    - m.local/preview-bad:v1
`

// writeTemp writes data into a new file named name and returns its path.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// previewNames returns the objects preview says it applies and those it skips, as kubectl -o name prints them.
func previewNames(t *testing.T, stdout, stderr string) []string {
	t.Helper()
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  (\w+) "([^"]+)" (?:added|replaced), from `).FindAllStringSubmatch(stdout, -1) {
		k := inputs.KindNamed(m[1])
		if k == nil {
			t.Fatalf("preview names an unknown kind: %q", m[0])
		}
		names = append(names, strings.ToLower(k.Name)+"."+k.GroupVersion.Group+"/"+m[2])
	}
	for _, m := range regexp.MustCompile(`(?m)skipping v1 (\w+) "([^"]+)": not an input`).FindAllStringSubmatch(stderr, -1) {
		names = append(names, strings.ToLower(m[1])+"/"+m[2])
	}
	slices.Sort(names)
	return names
}

func TestPreviewOnlyReadsAndAReadOnlyUserMayRunIt(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(), fixtures.IDMS("preview-base", fixtures.Mirror("quay.io/preview-base", "m.local/preview-base")))
	reader := readOnlyKubeconfig(t, "preview-reader", true)
	blind := readOnlyKubeconfig(t, "preview-blind", false)
	change, bad := writeTemp(t, "a.yaml", teamAIDMS), writeTemp(t, "bad.yaml", invalidICSP)
	writes := watchWrites(t)

	t.Run("3 when a MachineConfig would be written, here created since no controller ran yet", func(t *testing.T) {
		stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", reader, "-f", change)
		if code != 3 {
			t.Fatalf("exit %d, want 3:\n%s%s", code, stdout, stderr)
		}
		for _, want := range []string{
			`node disruption policies: the machine-config daemon's defaults (there is no MachineConfiguration "cluster")`,
			"\n== pool worker: 99-worker-generated-registries would be created\nchanges:\n",
			`  + registries.conf [[registry]] "quay.io/preview-a" mirror "m.local/preview-a": digest-only`,
			"the controller would write 99-master-generated-registries (created), 99-worker-generated-registries (created)\n",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	})
	t.Run("1 when the result would be invalid, with every problem", func(t *testing.T) {
		stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", reader, "-f", bad)
		want := `  ImageContentSourcePolicy "preview-bad": Warning InvalidMirrorConfiguration: Not applied, every MachineConfig keeps its last good content: ` +
			`spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.local/preview-bad": a mirror must not carry a scheme`
		if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "\n    spec.repositoryDigestMirrors[0].mirrors[1]: \"m.local/preview-bad:v1\": a mirror must not carry a tag") {
			t.Errorf("exit %d, want 1 and both problems:\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("2 on an error, such as deleting what the cluster does not hold", func(t *testing.T) {
		_, stderr, code := runBinary(t, "preview", "--kubeconfig", reader, "--delete", "ImageTagMirrorSet/none")
		if code != 2 || !strings.Contains(stderr, `--delete ImageTagMirrorSet/none: the cluster holds no ImageTagMirrorSet "none"`) {
			t.Errorf("exit %d, want 2: %s", code, stderr)
		}
	})
	t.Run("a user who may not read the MachineConfiguration gets the defaults, and a note", func(t *testing.T) {
		stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", blind, "--delete", "ImageDigestMirrorSet/preview-base")
		want := `note: cannot read MachineConfiguration "cluster" (get machineconfigurations.operator.openshift.io is forbidden for this user): ` +
			"the actions below follow the daemon's default node disruption policies"
		if code != 3 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 3 and %q:\n%s%s", code, want, stdout, stderr)
		}
	})
	t.Run("a user who may read nothing gets an error naming what", func(t *testing.T) {
		nobody := readOnlyKubeconfig(t, "preview-nobody", false)
		if err := cp.Kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), "preview-nobody", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runBinary(t, "preview", "--kubeconfig", nobody, "-f", change)
		if code != 2 || !strings.Contains(stderr, "forbidden") {
			t.Errorf("exit %d, want 2: %s", code, stderr)
		}
	})

	// What the API server holds now is what it held before preview ran: no wait is needed to know that.
	if c := writes.changed(t); len(c) != 0 {
		t.Errorf("the API server holds objects written while only preview ran: %q", c)
	}
	// The watches do see a write: once kubectl's has arrived, every earlier event of its watch has too.
	cp.RunKubectl(t, "apply", "-f", change)
	framework.Eventually(t, 10*time.Second, "the watch to see kubectl's write", func() (bool, string) {
		w := writes.get()
		return slices.Contains(w, "ADDED imagedigestmirrorsets"), strings.Join(w, ", ")
	})
	// Those the watches delivered (kubectl's write aside) came while only preview ran.
	if w := slices.DeleteFunc(writes.get(), func(s string) bool { return s == "ADDED imagedigestmirrorsets" }); len(w) != 0 {
		t.Errorf("the API server saw writes while only preview ran: %q", w)
	}
}

// machineConfigYAML returns a generated MachineConfig as kubectl prints it, saved in a file.
func machineConfigYAML(t *testing.T, name string) string {
	t.Helper()
	return writeTemp(t, name+".yaml", cp.RunKubectl(t, "get", "machineconfig", name, "-o", "yaml"))
}

func TestPreviewPredictsWhatTheControllerThenWrites(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(), fixtures.ITMS("preview-tools", fixtures.Mirror("quay.io/preview-tools", "m.local/preview-tools")))
	startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	// A directory (a new mirror set, and a Namespace that is no input) and a file (a mirror set changed).
	dir := filepath.Dir(writeTemp(t, "a.yaml", teamAIDMS+"---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: preview-a\n"))
	tools := writeTemp(t, "tools.yml", `apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
metadata:
  name: preview-tools
spec:
  imageTagMirrors:
  - source: quay.io/preview-tools
    mirrors:
    - m.local/preview-tools
    - backup.local/preview-tools
`)

	stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", dir, "-f", tools)
	t.Logf("preview:\n%s%s", stdout, stderr)
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	kubectlNames := strings.Fields(cp.RunKubectl(t, "apply", "--dry-run=client", "-o", "name", "-f", dir, "-f", tools))
	slices.Sort(kubectlNames)
	if got := previewNames(t, stdout, stderr); !slices.Equal(got, kubectlNames) {
		t.Errorf("preview read %q, kubectl reads %q from the same paths", got, kubectlNames)
	}

	before := map[string]string{masterMC: machineConfigYAML(t, masterMC), workerMC: machineConfigYAML(t, workerMC)}
	cp.RunKubectl(t, "apply", "-f", dir, "-f", tools)
	waitForEntry(t, "quay.io/preview-a", "the new mirror set written", func(e *sysregistriesv2.Registry) bool {
		return slices.Equal(mirrorLocations(e), []string{"m.local/preview-a(digest-only)"})
	})
	waitForEntry(t, "quay.io/preview-tools", "the changed mirror set written", func(e *sysregistriesv2.Registry) bool { return e != nil && len(e.Mirrors) == 2 })

	// What preview said of each pool is what diff says of the MachineConfigs before and after the write.
	for pool, name := range map[string]string{"master": masterMC, "worker": workerMC} {
		diff, diffErr, diffCode := runBinary(t, "diff", before[name], machineConfigYAML(t, name))
		predicted := poolSection(stdout, pool)
		header := "== pool " + pool + ": " + name + " would be updated\n"
		if diffCode != 3 || !strings.HasPrefix(predicted, header) || strings.TrimPrefix(predicted, header) != diff {
			t.Errorf("pool %s: preview predicted\n%s\ndiff of the MachineConfigs (exit %d) says\n%s%s", pool, predicted, diffCode, diff, diffErr)
		}
	}
	stdout, _, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", dir, "-f", tools)
	if code != 0 || !strings.Contains(stdout, "== pool worker: 99-worker-generated-registries would stay as it is\nno change\n") ||
		!strings.Contains(stdout, "nothing would change: the controller would write no MachineConfig") {
		t.Errorf("once applied: exit %d, want 0:\n%s", code, stdout)
	}

	t.Run("--delete", func(t *testing.T) {
		stdout, _, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "--delete", "ImageDigestMirrorSet/preview-a")
		for _, want := range []string{
			"  ImageDigestMirrorSet \"preview-a\" deleted (--delete)\n",
			`  - registries.conf [[registry]] "quay.io/preview-a": prefix "", location "quay.io/preview-a", 1 mirror(s)`,
			"action: drain-and-reload-crio (drain the node and reload CRI-O)",
		} {
			if code != 3 || !strings.Contains(stdout, want) {
				t.Errorf("exit %d, want 3 and %q:\n%s", code, want, stdout)
			}
		}
		cp.RunKubectl(t, "delete", "imagedigestmirrorset", "preview-a")
		waitForEntry(t, "quay.io/preview-a", "the mirror set's entry gone", func(e *sysregistriesv2.Registry) bool { return e == nil })
		stdout, _, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "--delete", "ImageTagMirrorSet/preview-tools", "-f", tools)
		if code != 2 {
			t.Errorf("deleting what is also applied: exit %d, want 2:\n%s", code, stdout)
		}
	})

	t.Run("a CRIOCredentialProviderConfig: the pool's files and the kubelet's restart", func(t *testing.T) {
		creds := writeTemp(t, "creds.yaml", "apiVersion: config.openshift.io/v1\nkind: CRIOCredentialProviderConfig\nmetadata:\n  name: cluster\nspec:\n  matchImages: [registry.example.com]\n")
		stdout, _, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", creds)
		for _, want := range []string{
			"== pool worker: 99-worker-generated-registries would stay as it is; 97-worker-generated-credentialproviderconfig would be created\n",
			"/etc/kubernetes/credential-providers/generic-credential-provider.yaml: added",
			"/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf: added",
			"action: restart-kubelet-and-daemon-reload-and-restart-kubelet",
			"the controller would write 97-master-generated-credentialproviderconfig (created), 97-worker-generated-credentialproviderconfig (created)",
		} {
			if code != 3 || !strings.Contains(stdout, want) {
				t.Errorf("exit %d, want 3 and %q:\n%s", code, want, stdout)
			}
		}
		cp.RunKubectl(t, "apply", "-f", creds)
		defer cp.RunKubectl(t, "delete", "criocredentialproviderconfig", "cluster")
		waitForCredentialFiles(t, "the MachineConfigs preview announced", func(f map[string]string) bool { return len(f) == 2 })
		stdout, _, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", creds)
		if code != 0 || !strings.Contains(stdout, "97-worker-generated-credentialproviderconfig would stay as it is") {
			t.Errorf("once applied: exit %d, want 0:\n%s", code, stdout)
		}
	})

	t.Run("the problems are what the controller's events say once applied", func(t *testing.T) {
		bad := writeTemp(t, "bad.yaml", invalidICSP)
		stdout, _, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", bad)
		if code != 1 {
			t.Fatalf("exit %d, want 1:\n%s", code, stdout)
		}
		const prefix = `  ImageContentSourcePolicy "preview-bad": Warning InvalidMirrorConfiguration: `
		i := strings.Index(stdout, prefix)
		if i < 0 {
			t.Fatalf("no event line:\n%s", stdout)
		}
		predicted := strings.ReplaceAll(strings.TrimSuffix(stdout[i+len(prefix):], "\n"), "\n    ", "\n")
		cp.RunKubectl(t, "apply", "-f", bad)
		defer cp.RunKubectl(t, "delete", "imagecontentsourcepolicy", "preview-bad")
		framework.Eventually(t, 20*time.Second, "the controller's event", func() (bool, string) {
			evs := events(t, "preview-bad", "InvalidMirrorConfiguration")
			if len(evs) == 0 {
				return false, "no event"
			}
			return evs[0].Message == predicted, evs[0].Message
		})
	})
}

const machineConfigurationWithStatus = `apiVersion: operator.openshift.io/v1
kind: MachineConfiguration
metadata:
  name: cluster
spec:
  managementState: Managed
  nodeDisruptionPolicy:
    files:
    - path: /etc/containers/registries.conf
      actions:
      - type: Restart
        restart:
          serviceName: crio.service
`

func TestPreviewFollowsTheClustersNodeDisruptionPolicyTopologyAndRollout(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(), fixtures.ITMS("preview-tools", fixtures.Mirror("quay.io/preview-tools", "m.local/preview-tools")))
	sim := startSim(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	if _, _, code := runWait(t, "--kubeconfig", cp.KubeconfigPath, "--timeout", "60s"); code != 0 {
		t.Fatalf("wait: exit %d", code)
	}
	add := writeTemp(t, "a.yaml", teamAIDMS)
	action := func(args ...string) (string, string) {
		t.Helper()
		stdout, stderr, code := runBinary(t, append([]string{"preview", "--kubeconfig", cp.KubeconfigPath}, args...)...)
		if code != 3 {
			t.Fatalf("exit %d, want 3:\n%s%s", code, stdout, stderr)
		}
		worker := poolSection(stdout, "worker")
		m := regexp.MustCompile(`(?m)^action: (\S+) `).FindStringSubmatch(worker)
		if m == nil {
			t.Fatalf("no action for pool worker:\n%s", stdout)
		}
		return m[1], stdout
	}

	if got, _ := action("-f", add); got != "reload-crio" {
		t.Errorf("by the defaults: %s, want reload-crio", got)
	}
	kubectlApply(t, machineConfigurationWithStatus)
	defer cp.RunKubectl(t, "delete", "machineconfiguration", "cluster", "--ignore-not-found")
	if got, out := action("-f", add); got != "restart-crio" || !strings.Contains(out, `node disruption policies: MachineConfiguration "cluster" spec.nodeDisruptionPolicy over the defaults`) {
		t.Errorf("by the admin's spec (no operator filled the status): %s, want restart-crio:\n%s", got, out)
	}
	// The operator's status is what the daemon reads: here it says Drain, which wins over the spec.
	cp.RunKubectl(t, "patch", "machineconfiguration", "cluster", "--subresource=status", "--type=merge", "-p",
		`{"status":{"observedGeneration":1,"nodeDisruptionPolicyStatus":{"clusterPolicies":{"files":[{"path":"/etc/containers/registries.conf","actions":[{"type":"Drain"},{"type":"Reload","reload":{"serviceName":"crio.service"}}]}]}}}}`)
	if got, out := action("-f", add); got != "drain-and-reload-crio" || !strings.Contains(out, `node disruption policies: MachineConfiguration "cluster" status.nodeDisruptionPolicyStatus.clusterPolicies`) {
		t.Errorf("by the status: %s, want drain-and-reload-crio:\n%s", got, out)
	}
	cp.RunKubectl(t, "delete", "machineconfiguration", "cluster")

	t.Run("a single-node cluster never drains", func(t *testing.T) {
		if got, _ := action("--delete", "ImageTagMirrorSet/preview-tools"); got != "drain-and-reload-crio" {
			t.Errorf("a removed entry: %s, want drain-and-reload-crio", got)
		}
		kubectlApply(t, "apiVersion: config.openshift.io/v1\nkind: Infrastructure\nmetadata:\n  name: cluster\nspec: {}\n")
		defer cp.RunKubectl(t, "delete", "infrastructure", "cluster")
		cp.RunKubectl(t, "patch", "infrastructure", "cluster", "--subresource=status", "--type=merge", "-p",
			`{"status":{"controlPlaneTopology":"SingleReplica","infrastructureTopology":"SingleReplica"}}`)
		got, out := action("--delete", "ImageTagMirrorSet/preview-tools")
		if got != "reload-crio" || !strings.Contains(out, `single-node cluster (Infrastructure "cluster" status.controlPlaneTopology SingleReplica): nodes never drain`) {
			t.Errorf("on a single node: %s, want reload-crio:\n%s", got, out)
		}
	})

	t.Run("a rollout in progress is noted, with what the nodes not yet updated would do", func(t *testing.T) {
		sim.Pause("worker")
		defer sim.Resume("worker")
		cp.RunKubectl(t, "apply", "-f", add)
		defer cp.RunKubectl(t, "delete", "imagedigestmirrorset", "preview-a")
		waitForEntry(t, "quay.io/preview-a", "the mirror set written", func(e *sysregistriesv2.Registry) bool { return e != nil })
		_, out := action("--delete", "ImageTagMirrorSet/preview-tools")
		note := regexp.MustCompile(`(?m)^note: a rollout is in progress: .*; nodes not yet updated run (rendered-worker-[0-9a-f]{32}), which differs from ` +
			`99-worker-generated-registries \(/etc/containers/registries.conf differs\)\n  nodes still on rendered-worker-[0-9a-f]{32} would go straight to the new files: drain-and-reload-crio `)
		m := note.FindStringSubmatch(poolSection(out, "worker"))
		if m == nil || m[1] != statusConfig(t, "worker") {
			t.Errorf("no rollout note naming the pool's status.configuration %s:\n%s", statusConfig(t, "worker"), out)
		}
	})
}

const ctrcfgYAML = `apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata:
  name: preview-crc
spec:
  machineConfigPoolSelector:
    matchLabels:
      pools.operator.machineconfiguration.openshift.io/worker: ""
  containerRuntimeConfig:
    logLevel: debug
`

// Issue 21 §3: preview of a ContainerRuntimeConfig change shows its files and the node action (docs/semantics.md
// §11.6): the daemon drains and reboots, the minimal safe action drains and restarts CRI-O.
func TestPreviewOfAContainerRuntimeConfigShowsItsFilesAndTheNodeAction(t *testing.T) {
	cp.Reset(t)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	deleteContainerRuntimeConfigsOnCleanup(t)
	created := writeTemp(t, "crc.yaml", ctrcfgYAML)
	stdout, stderr, code := runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", created)
	t.Logf("preview:\n%s%s", stdout, stderr)
	for _, want := range []string{
		"99-worker-generated-containerruntime would be created",
		"changes:\n  + /etc/crio/crio.conf.d/01-ctrcfg-logLevel: 48 bytes\naction: reboot (drain and reboot the node)",
		"/etc/crio/crio.conf.d/01-ctrcfg-logLevel: added; no node disruption policy covers it, so the node reboots (container-runtime-file-changed: reboot)",
		"minimal safe action: drain-and-restart-crio (drain the node and restart CRI-O)",
		"the controller would write 99-worker-generated-containerruntime (created)\n",
	} {
		if code != 3 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 3 and %q", code, want)
		}
	}
	if strings.Contains(stdout, "99-master-generated-containerruntime") {
		t.Errorf("preview names a MachineConfig of master, which the object does not select")
	}

	cp.RunKubectl(t, "apply", "-f", created)
	framework.Eventually(t, 30*time.Second, "the MachineConfig preview announced", func() (bool, string) {
		files, _, err := crcMachineConfigFiles(t, "99-worker-generated-containerruntime")
		return err == nil && strings.Contains(files[containerruntime.LogLevelDropIn], `"debug"`), fmt.Sprint(err, files)
	})
	stdout, _, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", created)
	if code != 0 || !strings.Contains(stdout, "99-worker-generated-containerruntime would stay as it is") {
		t.Errorf("once applied: exit %d, want 0:\n%s", code, stdout)
	}

	// A change of the object: a file added and one changed, the same action.
	changed := writeTemp(t, "crc.yaml", strings.Replace(ctrcfgYAML, "logLevel: debug\n", "logLevel: info\n    pidsLimit: 4096\n", 1))
	stdout, stderr, code = runBinary(t, "preview", "--kubeconfig", cp.KubeconfigPath, "-f", changed)
	t.Logf("preview of the change:\n%s%s", stdout, stderr)
	for _, want := range []string{
		"99-worker-generated-containerruntime would be updated",
		"  ~ /etc/crio/crio.conf.d/01-ctrcfg-logLevel: line -     log_level = \"debug\"\n  ~ /etc/crio/crio.conf.d/01-ctrcfg-logLevel: line +     log_level = \"info\"\n  + /etc/crio/crio.conf.d/01-ctrcfg-pidsLimit: 46 bytes\naction: reboot (drain and reboot the node)",
		"/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit: added; no node disruption policy covers it, so the node reboots (container-runtime-file-changed: reboot)",
		"minimal safe action: drain-and-restart-crio (drain the node and restart CRI-O)",
		"the controller would write 99-worker-generated-containerruntime (updated)\n",
	} {
		if code != 3 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 3 and %q", code, want)
		}
	}
}
