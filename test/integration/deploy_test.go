package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containers/image/v5/pkg/sysregistriesv2"
	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	controllerNamespace = "openshift-registries-controller"
	serviceAccount      = "system:serviceaccount:openshift-registries-controller:registries-controller"
)

func TestManifestsApplyAndTheClusterRoleIsEnoughAndNoMore(t *testing.T) {
	cp.Reset(t)
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "apply", "-f", filepath.Join(root, "manifests"))
	deploy, err := cp.Kube.AppsV1().Deployments(controllerNamespace).Get(context.Background(), "registries-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := deploy.Spec.Template.Spec
	sc := pod.Containers[0].SecurityContext
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || pod.Containers[0].Resources.Requests.Memory().IsZero() ||
		pod.Containers[0].ReadinessProbe == nil || pod.Containers[0].LivenessProbe == nil {
		t.Errorf("the Deployment is not locked down as documented: %+v", pod)
	}
	checkServing(t, pod)

	// The ServiceAccount creates the ClusterOperator when it is missing, and keeps its status.
	cp.RunKubectl(t, "delete", "clusteroperator", operatorName, "--ignore-not-found")

	// The controller's own sync, run with the ServiceAccount's identity, does its whole job.
	sa := rest.CopyConfig(cp.RESTConfig)
	sa.Impersonate = rest.ImpersonationConfig{UserName: serviceAccount, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + controllerNamespace, "system:authenticated"}}
	// The Image "cluster" (always present in a cluster) owns the registries MachineConfigs: the controller
	// recognises its own by that controller reference, and deletes the arbiter pool's below by it.
	apply(t, fixtures.Image(), fixtures.ICSP("rbac", fixtures.Mirror("quay.io/rbac", "https://m.local/rbac")))
	startInProcess(t, sa, fastSettle, 0)
	framework.Eventually(t, 10*time.Second, "the invalid-input event, recorded as the ServiceAccount", func() (bool, string) {
		evs := events(t, "rbac", "InvalidMirrorConfiguration")
		return len(evs) == 1, fmt.Sprint(len(evs))
	})
	cp.RunKubectl(t, "patch", "imagecontentsourcepolicy", "rbac", "--type=json", "-p", `[{"op":"replace","path":"/spec/repositoryDigestMirrors/0/mirrors/0","value":"m.local/rbac"}]`)
	waitForEntry(t, "quay.io/rbac", "MachineConfigs written as the ServiceAccount", func(e *sysregistriesv2.Registry) bool { return e != nil })
	apply(t, fixtures.Pool("arbiter", true))
	framework.Eventually(t, 30*time.Second, "the ClusterOperator created and its status written as the ServiceAccount", func() (bool, string) {
		co := cp.ClusterOperator(t, operatorName)
		return co != nil && framework.OperatorCondition(co, configv1.OperatorAvailable).Status == configv1.ConditionTrue, conditions(co)
	})
	framework.Eventually(t, 10*time.Second, "a MachineConfig created and deleted as the ServiceAccount", func() (bool, string) {
		_, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), "99-arbiter-generated-registries", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	cp.RunKubectl(t, "delete", "machineconfigpool", "arbiter")
	framework.Eventually(t, 10*time.Second, "the arbiter MachineConfig deleted as the ServiceAccount", func() (bool, string) {
		_, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), "99-arbiter-generated-registries", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})

	// Leader election works with the namespaced Role; nothing else is granted.
	kube := kubernetes.NewForConfigOrDie(sa)
	for _, check := range []struct {
		verb, group, resource, namespace string
		allowed                          bool
	}{
		{"create", "coordination.k8s.io", "leases", controllerNamespace, true},
		{"update", "coordination.k8s.io", "leases", controllerNamespace, true},
		{"create", "coordination.k8s.io", "leases", "default", false},
		{"get", "", "secrets", controllerNamespace, false},
		{"list", "", "secrets", "", false},
		{"get", "", "configmaps", "", false},
		{"update", "config.openshift.io", "imagedigestmirrorsets", "", false},
		{"update", "config.openshift.io", "images", "", false},
		{"update", "config.openshift.io", "clusterimagepolicies", "", false},
		{"update", "config.openshift.io", "imagepolicies", "", false},
		{"delete", "machineconfiguration.openshift.io", "machineconfigpools", "", false},
		{"create", "config.openshift.io", "clusteroperators", "", true},
		{"update", "config.openshift.io", "clusteroperators", "", false},
		{"create", "authentication.k8s.io", "tokenreviews", "", true},
		{"create", "authorization.k8s.io", "subjectaccessreviews", "", true},
	} {
		allowed := canI(t, kube, check.verb, check.group, check.resource, check.namespace)
		if allowed != check.allowed {
			t.Errorf("ServiceAccount can %s %s/%s in %q: %v, want %v", check.verb, check.group, check.resource, check.namespace, allowed, check.allowed)
		}
	}
	// The Pending condition of the signature policies: their status subresource, and nothing else of them.
	for _, resource := range []string{"clusterimagepolicies.config.openshift.io", "imagepolicies.config.openshift.io"} {
		out, _, _ := cp.Kubectl(context.Background(), nil, "auth", "can-i", "update", resource, "--subresource=status", "--all-namespaces", "--as", serviceAccount)
		if strings.TrimSpace(out) != "yes" {
			t.Errorf("ServiceAccount cannot update the status of %s: %q", resource, out)
		}
	}
	// Its own ClusterOperator, and no other.
	for _, check := range []struct {
		verb, name, subresource string
		allowed                 bool
	}{
		{"get", operatorName, "", true},
		{"update", operatorName, "status", true},
		{"get", "machine-config", "", false},
		{"update", "machine-config", "status", false},
		{"update", operatorName, "", false},
	} {
		args := []string{"auth", "can-i", check.verb, "clusteroperators.config.openshift.io/" + check.name, "--as", serviceAccount}
		if check.subresource != "" {
			args = append(args, "--subresource="+check.subresource)
		}
		out, _, _ := cp.Kubectl(context.Background(), nil, args...)
		if allowed := strings.TrimSpace(out) == "yes"; allowed != check.allowed {
			t.Errorf("ServiceAccount can %s ClusterOperator %q %s: %v, want %v", check.verb, check.name, check.subresource, allowed, check.allowed)
		}
	}
	if _, err := kube.CoreV1().Secrets(controllerNamespace).List(context.Background(), metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets as the ServiceAccount: %v, want Forbidden", err)
	}
}

// checkServing checks the Deployment's pod serves as documented: the probes in plain HTTP on the health port,
// /metrics over HTTPS with the service CA's certificate from the Service's secret, and the release version.
func checkServing(t *testing.T, pod corev1.PodSpec) {
	t.Helper()
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"--listen-address=:8080", "--metrics-listen-address=:8443", "--tls-cert-file=/etc/tls/private/tls.crt",
		"--tls-private-key-file=/etc/tls/private/tls.key"} {
		if !strings.Contains(args, want) {
			t.Errorf("the container's arguments %q lack %s", args, want)
		}
	}
	if strings.Contains(args, "insecure") {
		t.Errorf("the Deployment serves plain-HTTP metrics: %s", args)
	}
	for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Port.String() != "health" || probe.HTTPGet.Scheme == corev1.URISchemeHTTPS {
			t.Errorf("a probe is not plain HTTP on the health port: %+v", probe)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["health"] != 8080 || ports["metrics"] != 8443 {
		t.Errorf("container ports %v, want health 8080 and metrics 8443", ports)
	}
	release := ""
	for _, e := range c.Env {
		if e.Name == "RELEASE_VERSION" {
			release = e.Value
		}
	}
	if release != "0.0.1-snapshot" {
		t.Errorf("RELEASE_VERSION %q, want the placeholder the release tooling replaces", release)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if m.Name == v.Name && m.MountPath == "/etc/tls/private" && v.Secret != nil && v.Secret.SecretName == "registries-controller-tls" {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Error("the secret registries-controller-tls is not mounted at /etc/tls/private")
	}
	svc, err := cp.Kube.CoreV1().Services(controllerNamespace).Get(context.Background(), "registries-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"] != "registries-controller-tls" ||
		len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("the Service does not ask the service CA for the secret the Deployment mounts, or does not point at the metrics port: %+v", svc)
	}
}

func canI(t testing.TB, kube kubernetes.Interface, verb, group, resource, namespace string) bool {
	t.Helper()
	out, stderr, err := cp.Kubectl(context.Background(), nil, "auth", "can-i", verb, resource+"."+group, "-n", namespace, "--as", serviceAccount)
	if namespace == "" {
		out, stderr, err = cp.Kubectl(context.Background(), nil, "auth", "can-i", verb, resource+"."+group, "--all-namespaces", "--as", serviceAccount)
	}
	answer := strings.TrimSpace(out)
	if err != nil && answer != "no" {
		t.Fatalf("kubectl auth can-i: %v: %s", err, stderr)
	}
	return answer == "yes"
}

func TestRenderGivesTheBytesTheControllerWrites(t *testing.T) {
	cp.Reset(t)
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(root, "examples")
	cp.RunKubectl(t, "apply", "-f", examples)
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitForEntry(t, "docker.io", "the examples applied", func(e *sysregistriesv2.Registry) bool { return e != nil && e.Blocked })

	out := t.TempDir()
	cmd := exec.Command(controllerBinary(t), "render", "--manifests", examples, "--output", out, "--release-image", fixtures.ReleaseImage)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("render: %v: %s", err, b)
	}
	// The examples' ClusterImagePolicy adds sigstore-registries.yaml to the registries files; their
	// CRIOCredentialProviderConfig gives the generic provider file and the kubelet drop-in (no Infrastructure).
	files := map[string]int{masterMC: 4, workerMC: 4, masterCredsMC: 2, workerCredsMC: 2}
	framework.Eventually(t, 20*time.Second, "the credential providers MachineConfigs", func() (bool, string) {
		f := credentialFiles(t, workerCredsMC)
		return len(f) == 2, fmt.Sprint(slices.Sorted(maps.Keys(f)))
	})
	for name, n := range files {
		data, err := os.ReadFile(filepath.Join(out, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var rendered struct {
			Spec struct{ Config map[string]any }
		}
		if err := yaml.Unmarshal(data, &rendered); err != nil {
			t.Fatal(err)
		}
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := framework.MustNodeFiles(t, mc)
		got := sourcesOf(t, rendered.Spec.Config)
		if len(got) != n || len(want) != n {
			t.Fatalf("%s: files: render %d, controller %d; want %d", name, len(got), len(want), n)
		}
		for path, source := range got {
			if !strings.HasPrefix(source, "data:text/plain;charset=utf-8;base64,") {
				t.Errorf("%s %s: not MCO's data URL form", name, path)
			}
			ctrlSource := sourceOf(t, mc.Spec.Config.Raw, path)
			if source != ctrlSource {
				t.Errorf("%s %s: render and controller differ:\n%s\n%s", name, path, source, ctrlSource)
			}
		}
	}
}

func sourcesOf(t testing.TB, config map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	storage, _ := config["storage"].(map[string]any)
	files, _ := storage["files"].([]any)
	for _, f := range files {
		file := f.(map[string]any)
		out[file["path"].(string)] = file["contents"].(map[string]any)["source"].(string)
	}
	return out
}

func sourceOf(t testing.TB, raw []byte, path string) string {
	t.Helper()
	var config map[string]any
	if err := yaml.Unmarshal(raw, &config); err != nil {
		t.Fatal(err)
	}
	return sourcesOf(t, config)[path]
}

// process is a `registries-controller start` run as a separate process, as in a Deployment.
type process struct {
	cmd     *exec.Cmd
	metrics string
	exited  chan struct{} // closed when the process has exited
	err     error         // its exit status, once exited is closed
}

func startProcess(t testing.TB, name string) *process {
	t.Helper()
	port := framework.FreePort(t)
	log, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(controllerBinary(t), "start", "--kubeconfig", cp.KubeconfigPath,
		"--listen-address", "127.0.0.1:"+strconv.Itoa(port), "--insecure-loopback-metrics", "--settle-delay", "100ms",
		"--leader-elect-namespace", "default", "--leader-elect-name", "registries-controller-test",
		"--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("%s log:\n%s", name, b)
		}
	})
	return p
}

// syncs reads the number of syncs the process ran from its /metrics; -1 when not serving.
func (p *process) syncs() int {
	resp, err := http.Get(p.metrics)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	total := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "registries_controller_syncs_total{") {
			n, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			total += int(n)
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return total
}

// pokedSync is cp.PokedSync of p, the leader.
func (p *process) pokedSync(t testing.TB) framework.Witness {
	return cp.PokedSync(t, "the leader", func() float64 { return float64(p.syncs()) })
}

func TestOneOfTwoProcessesLeadsAndTheOtherTakesOver(t *testing.T) {
	cp.Reset(t)
	cp.RunKubectl(t, "delete", "lease", "-n", "default", "registries-controller-test", "--ignore-not-found")
	a := startProcess(t, "a")
	b := startProcess(t, "b")
	election := func(mirror string) runtime.Object {
		return fixtures.IDMS("election", fixtures.Mirror("quay.io/election", mirror))
	}
	apply(t, election("m1.local/election"))
	waitForEntry(t, "quay.io/election", "the leader's write", func(e *sysregistriesv2.Registry) bool { return len(mirrorLocations(e)) == 1 })

	var leader, follower *process
	framework.Eventually(t, 10*time.Second, "exactly one process syncing", func() (bool, string) {
		sa, sb := a.syncs(), b.syncs()
		switch {
		case sa > 0 && sb == 0:
			leader, follower = a, b
		case sb > 0 && sa == 0:
			leader, follower = b, a
		default:
			return false, fmt.Sprintf("syncs a=%d b=%d", sa, sb)
		}
		return true, ""
	})
	// The follower tries to take the lease every 500ms; had it led, it would have synced as the leader did.
	framework.Quiet(t, 2*time.Second, "a sync of the follower", leader.pokedSync(t), func() (bool, string) {
		n := follower.syncs()
		return n > 0, fmt.Sprint(n, " syncs")
	})
	if n := follower.syncs(); n != 0 {
		t.Fatalf("the follower ran %d syncs", n)
	}

	// The leader dies without releasing the lease; the follower takes over once it expires.
	if err := leader.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-leader.exited
	killed := time.Now()
	writes := countWrites(t)
	framework.Eventually(t, 15*time.Second, "the follower to take over", func() (bool, string) {
		n := follower.syncs()
		return n > 0, fmt.Sprint(n)
	})
	t.Logf("the follower led %s after the leader was killed (lease duration 4s)", time.Since(killed).Round(100*time.Millisecond))
	framework.Quiet(t, time.Second, "a write by the new leader", follower.pokedSync(t), func() (bool, string) {
		n := writes.get(masterMC) + writes.get(workerMC)
		return n != 0, fmt.Sprint(n, " writes")
	})
	if n := writes.get(masterMC) + writes.get(workerMC); n != 0 {
		t.Errorf("taking over with nothing changed wrote %d MachineConfigs, want 0", n)
	}
	apply(t, election("m2.local/election"))
	waitForEntry(t, "quay.io/election", "the follower to converge", func(e *sysregistriesv2.Registry) bool {
		ms := mirrorLocations(e)
		return len(ms) == 1 && ms[0] == "m2.local/election(digest-only)"
	})

	// On SIGTERM the new leader releases the lease: a fresh process takes over without waiting it out.
	c := startProcess(t, "c")
	if err := follower.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-follower.exited:
		if follower.err != nil {
			t.Fatalf("graceful shutdown: %v", follower.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit 15s after SIGTERM")
	}
	released := time.Now()
	framework.Eventually(t, 3*time.Second, "the third process to lead before the 4s lease would expire", func() (bool, string) {
		n := c.syncs()
		return n > 0, fmt.Sprint(n)
	})
	t.Logf("a new process led %s after the leader's graceful exit (the 4s lease was released, not waited out)", time.Since(released).Round(100*time.Millisecond))
}
