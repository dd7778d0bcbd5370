package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/controller"
	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	operatorName = "registries-controller"
	// testReleaseVersion is the RELEASE_VERSION the tests' controllers report.
	testReleaseVersion = "4.22.0-test"
)

// operatorConfig is the controller's configuration with a short grace period for the ClusterOperator.
func operatorConfig(grace time.Duration) controller.Config {
	return controller.Config{SettleDelay: fastSettle, ClusterOperator: controller.ClusterOperatorConfig{
		ReleaseVersion: testReleaseVersion, Namespace: controllerNamespace, GracePeriod: grace,
	}}
}

// deleteClusterOperator removes the ClusterOperator, so that the test's controller creates it.
func deleteClusterOperator(t *testing.T) {
	t.Helper()
	cp.RunKubectl(t, "delete", "clusteroperator", operatorName, "--ignore-not-found", "--wait=true")
}

// conditions says what the object says: "Available=True/AsExpected Progressing=False/AsExpected ...".
func conditions(co *configv1.ClusterOperator) string {
	if co == nil {
		return "no ClusterOperator"
	}
	var parts []string
	for _, ct := range []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable} {
		c := framework.OperatorCondition(co, ct)
		parts = append(parts, fmt.Sprintf("%s=%s/%s", ct, c.Status, c.Reason))
	}
	return strings.Join(parts, " ")
}

// settled is what the conditions say when nothing is wrong and nothing rolls out.
const settled = "Available=True/AsExpected Progressing=False/AsExpected Degraded=False/AsExpected Upgradeable=True/AsExpected"

// waitOperator waits until the ClusterOperator's conditions read want (see conditions) and check, when set, holds.
func waitOperator(t *testing.T, want string, check func(*configv1.ClusterOperator) bool) *configv1.ClusterOperator {
	t.Helper()
	var co *configv1.ClusterOperator
	framework.Eventually(t, 30*time.Second, "the ClusterOperator to say "+want, func() (bool, string) {
		co = cp.ClusterOperator(t, operatorName)
		got := conditions(co)
		if co == nil {
			return false, got
		}
		if got != want || (check != nil && !check(co)) {
			return false, got + fmt.Sprintf(" %+v", co.Status.Conditions)
		}
		return true, ""
	})
	return co
}

// manifestRelatedObjects returns the related objects the ClusterOperator manifest lists.
func manifestRelatedObjects(t *testing.T) []configv1.ObjectReference {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "manifests", "0000_80_registries-controller_06_clusteroperator.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	co := &configv1.ClusterOperator{}
	if err := yaml.UnmarshalStrict(data, co); err != nil {
		t.Fatal(err)
	}
	if len(co.Status.Versions) != 1 || co.Status.Versions[0] != (configv1.OperandVersion{Name: "operator", Version: "0.0.1-snapshot"}) {
		t.Errorf("the manifest's versions %+v, want operator 0.0.1-snapshot for the release tooling to replace", co.Status.Versions)
	}
	return co.Status.RelatedObjects
}

func TestTheClusterOperatorIsCreatedAndReportsInvalidInputPastTheGracePeriodUntilItIsFixed(t *testing.T) {
	cp.Reset(t)
	deleteClusterOperator(t)
	apply(t, fixtures.Image())
	startSim(t)
	const grace = 4 * time.Second
	startInProcessWith(t, cp.RESTConfig, operatorConfig(grace), 0)

	co := waitOperator(t, settled, func(co *configv1.ClusterOperator) bool { return len(co.Status.RelatedObjects) > 0 })
	if len(co.Status.Versions) != 1 || co.Status.Versions[0] != (configv1.OperandVersion{Name: "operator", Version: testReleaseVersion}) {
		t.Errorf("versions %+v, want operator %s", co.Status.Versions, testReleaseVersion)
	}
	if got, want := fmt.Sprint(co.Status.RelatedObjects), fmt.Sprint(manifestRelatedObjects(t)); got != want {
		t.Errorf("related objects:\n%s\nthe manifest's (the CVO creates the object from it):\n%s", got, want)
	}
	if len(co.ManagedFields) == 0 || co.ManagedFields[0].Manager != controller.FieldManager {
		t.Errorf("managed fields %+v: not created by %s", co.ManagedFields, controller.FieldManager)
	}
	availableSince := framework.OperatorCondition(co, configv1.OperatorAvailable).LastTransitionTime

	apply(t, fixtures.ICSP("bad", fixtures.Mirror("quay.io/bad", "https://m.local/bad")))
	co = waitOperator(t, "Available=True/AsExpected Progressing=False/AsExpected Degraded=True/InvalidMirrorConfiguration Upgradeable=False/InvalidMirrorConfiguration", nil)
	degraded := framework.OperatorCondition(co, configv1.OperatorDegraded)
	for _, part := range []string{`ImageContentSourcePolicy "bad"`, `"https://m.local/bad": a mirror must not carry a scheme`, "`oc describe`"} {
		if !strings.Contains(degraded.Message, part) {
			t.Errorf("the Degraded message does not say %q: %s", part, degraded.Message)
		}
	}
	if up := framework.OperatorCondition(co, configv1.OperatorUpgradeable); !strings.HasSuffix(up.Message, degraded.Message) {
		t.Errorf("Upgradeable does not quote the problem: %s", up.Message)
	}
	// Reported only once the grace period was over: the event was recorded by the sync that found the problem.
	evs := events(t, "bad", reasons.InvalidMirrorConfiguration)
	if len(evs) != 1 {
		t.Fatalf("%d InvalidMirrorConfiguration events, want 1", len(evs))
	}
	if waited := degraded.LastTransitionTime.Sub(evs[0].FirstTimestamp.Time); waited < grace-time.Second {
		t.Errorf("Degraded %s after the invalid input was found, within the %s grace period", waited, grace)
	}
	t.Logf("Degraded: %s", degraded.Message)

	apply(t, fixtures.ICSP("bad", fixtures.Mirror("quay.io/bad", "m.local/bad")))
	co = waitOperator(t, settled, nil)
	if recovered := framework.OperatorCondition(co, configv1.OperatorDegraded).LastTransitionTime; !recovered.After(degraded.LastTransitionTime.Time) {
		t.Errorf("Degraded went back to False at %v, not after it went True at %v", recovered, degraded.LastTransitionTime)
	}
	if since := framework.OperatorCondition(co, configv1.OperatorAvailable).LastTransitionTime; !since.Equal(&availableSince) {
		t.Errorf("Available's lastTransitionTime moved from %v to %v though it never changed", availableSince, since)
	}
}

func TestTheClusterOperatorIsProgressingDuringARolloutAndDegradedWithAPoolThatFails(t *testing.T) {
	cp.Reset(t)
	deleteClusterOperator(t)
	apply(t, fixtures.Image())
	sim := startSim(t)
	ctrl := startInProcessWith(t, cp.RESTConfig, operatorConfig(time.Minute), 0)
	waitOperator(t, settled, nil)

	sim.Pause(framework.PoolWorker)
	apply(t, fixtures.IDMS("team-a", fixtures.Mirror("quay.io/team-a", "m.local/team-a")))
	co := waitOperator(t, "Available=True/AsExpected Progressing=True/RollingOut Degraded=False/AsExpected Upgradeable=True/AsExpected",
		func(co *configv1.ClusterOperator) bool {
			// master goes live; the paused worker pool does not.
			return strings.HasPrefix(framework.OperatorCondition(co, configv1.OperatorProgressing).Message, "Rolling out the mirror configuration to pool worker:")
		})
	t.Logf("Progressing: %s", framework.OperatorCondition(co, configv1.OperatorProgressing).Message)

	sim.Degrade(framework.PoolWorker, "", "disk full")
	sim.Resume(framework.PoolWorker)
	co = waitOperator(t, "Available=True/AsExpected Progressing=False/AsExpected Degraded=True/RolloutDegraded Upgradeable=False/RolloutDegraded", nil)
	want := `The mirror configuration cannot roll out to pool worker, which is degraded: NodeDegraded: Node worker-0 is reporting: "disk full". ` +
		"Fix the pool (`oc describe machineconfigpool worker`); its nodes keep their previous configuration until then."
	if got := framework.OperatorCondition(co, configv1.OperatorDegraded).Message; got != want {
		t.Errorf("Degraded message:\n%s\nwant:\n%s", got, want)
	}
	if g := ctrl.gauge(t, "registries_controller_rollout_degraded", framework.PoolWorker); g != 1 {
		t.Errorf("rollout_degraded{pool=worker} = %v, want 1", g)
	}

	sim.Heal(framework.PoolWorker)
	waitOperator(t, settled, nil)
	if g := ctrl.gauge(t, "registries_controller_rollout_degraded", framework.PoolWorker); g != 0 {
		t.Errorf("rollout_degraded{pool=worker} = %v after the rollout, want 0", g)
	}
}

func TestTheClusterOperatorIsDegradedWhileTheAPIServerRefusesTheWrites(t *testing.T) {
	cp.Reset(t)
	deleteClusterOperator(t)
	apply(t, fixtures.Image())
	startSim(t)
	ctx := context.Background()

	// The controller runs as a user whose ClusterRole is the manifest's without the MachineConfig writes.
	role := manifestClusterRole(t)
	role.Name = "registries-controller-without-writes"
	full := append([]rbacv1.PolicyRule(nil), role.Rules...)
	var readOnly []rbacv1.PolicyRule
	for _, r := range role.Rules {
		if len(r.Resources) == 1 && r.Resources[0] == "machineconfigs" {
			r.Verbs = []string{"get", "list", "watch"}
		}
		readOnly = append(readOnly, r)
	}
	role.Rules = readOnly
	const user = "registries-controller-without-writes"
	if _, err := cp.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	if _, err := cp.Kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Kube.RbacV1().ClusterRoleBindings().Delete(ctx, binding.Name, metav1.DeleteOptions{})
		_ = cp.Kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{})
	})
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	startInProcessWith(t, cfg, operatorConfig(2*time.Second), 0)

	co := waitOperator(t, "Available=True/AsExpected Progressing=False/AsExpected Degraded=True/SyncFailing Upgradeable=False/SyncFailing", nil)
	msg := framework.OperatorCondition(co, configv1.OperatorDegraded).Message
	for _, part := range []string{"MachineConfig 99-", "is forbidden", user, "Check the controller's permissions"} {
		if !strings.Contains(msg, part) {
			t.Errorf("the Degraded message does not say %q: %s", part, msg)
		}
	}
	t.Logf("Degraded: %s", msg)

	// Granted the writes, the controller writes and recovers.
	role.Rules = full
	if _, err := cp.Kube.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitOperator(t, settled, nil)
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(ctx, workerMC, metav1.GetOptions{}); err != nil {
		t.Errorf("the worker MachineConfig was not written once permitted: %v", err)
	}
}

// manifestClusterRole returns the controller's ClusterRole from manifests/.
func manifestClusterRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "manifests", "0000_80_registries-controller_02_clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatal(err)
	}
	role.ObjectMeta = metav1.ObjectMeta{}
	return role
}

func TestTheClusterOperatorIsNotWrittenOverAQuietMinute(t *testing.T) {
	cp.Reset(t)
	deleteClusterOperator(t)
	apply(t, fixtures.Image(), fixtures.IDMS("quiet", fixtures.Mirror("quay.io/quiet", "m.local/quiet")))
	startSim(t)
	// A resync every 2 s: the controller syncs and judges the rollouts all the time, and must still write nothing.
	ctrl := startInProcessWith(t, cp.RESTConfig, operatorConfig(2*time.Second), 2*time.Second)
	waitOperator(t, settled, func(co *configv1.ClusterOperator) bool { return len(co.Status.Versions) == 1 })
	time.Sleep(3 * time.Second) // settling, not a negative wait: the last write of the settling, if any, is over (the quiet minute below counts its syncs)
	co := cp.ClusterOperator(t, operatorName)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := cp.Config.ConfigV1().ClusterOperators().Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + operatorName, ResourceVersion: co.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	syncs := ctrl.counter(t, "registries_controller_syncs_total", nil)
	const quiet = time.Minute
	deadline := time.After(quiet)
	writes := 0
	for done := false; !done; {
		select {
		case ev := <-w.ResultChan():
			if ev.Type == watch.Modified || ev.Type == watch.Deleted {
				writes++
				t.Errorf("the ClusterOperator was written: %s %v", ev.Type, conditions(ev.Object.(*configv1.ClusterOperator)))
			}
		case <-deadline:
			done = true
		}
	}
	ran := ctrl.counter(t, "registries_controller_syncs_total", nil) - syncs
	if ran < 10 {
		t.Errorf("only %v syncs in the quiet minute: the test proves nothing", ran)
	}
	if after := cp.ClusterOperator(t, operatorName); after.ResourceVersion != co.ResourceVersion {
		t.Errorf("resourceVersion %s -> %s", co.ResourceVersion, after.ResourceVersion)
	}
	t.Logf("%d ClusterOperator writes over %s, during which the controller ran %v syncs", writes, quiet, ran)
}
