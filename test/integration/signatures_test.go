package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

const (
	sigstoreYAML = "/etc/containers/registries.d/sigstore-registries.yaml"
	policyJSON   = "/etc/containers/policy.json"
	teamAPolicy  = "/etc/crio/policies/team-a.json"
)

const publicKeyPEM = "-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n"

// workerFiles returns the worker MachineConfig's files and resourceVersion; nil files when it does not exist.
func workerFiles(t *testing.T) (map[string]string, string) {
	t.Helper()
	mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
	if err != nil {
		return nil, ""
	}
	return framework.MustNodeFiles(t, mc), mc.ResourceVersion
}

// pendingCondition returns the Pending condition of an ImagePolicy ("" namespace: a ClusterImagePolicy).
func pendingCondition(t *testing.T, namespace, name string) *metav1.Condition {
	t.Helper()
	var conds []metav1.Condition
	if namespace == "" {
		o, err := cp.Config.ConfigV1().ClusterImagePolicies().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conds = o.Status.Conditions
	} else {
		o, err := cp.Config.ConfigV1().ImagePolicies(namespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conds = o.Status.Conditions
	}
	for i := range conds {
		if conds[i].Type == "Pending" {
			return &conds[i]
		}
	}
	return nil
}

// TestSignaturePoliciesThroughTheAPIServer applies ClusterImagePolicies and ImagePolicies with kubectl and
// follows the MachineConfigs and the objects' status (docs/semantics.md §9): files added and removed, the
// Pending condition set and cleared, an invalid policy reported without touching the MachineConfigs.
func TestSignaturePoliciesThroughTheAPIServer(t *testing.T) {
	cp.Reset(t)
	if _, _, err := cp.Kubectl(context.Background(), nil, "create", "namespace", "team-a"); err != nil {
		t.Logf("namespace team-a: %v", err) // left by an earlier run
	}
	ctrl := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	key := fixtures.PublicKey([]byte(publicKeyPEM))

	apply(t, fixtures.CIP("signed", key, "quay.io/signed"))
	framework.Eventually(t, 20*time.Second, "policy.json and sigstore-registries.yaml with the CIP scope", func() (bool, string) {
		files, _ := workerFiles(t)
		return strings.Contains(files[policyJSON], `"quay.io/signed"`) && strings.Contains(files[sigstoreYAML], "quay.io/signed:"), fmt.Sprint(files)
	})

	apply(t, fixtures.IP("team-a", "nested", key, "quay.io/signed/app", "other.io/team"))
	framework.Eventually(t, 20*time.Second, "Pending=True ConflictScopes on the nested ImagePolicy, and its namespace file", func() (bool, string) {
		c := pendingCondition(t, "team-a", "nested")
		files, _ := workerFiles(t)
		ok := c != nil && c.Status == metav1.ConditionTrue && c.Reason == "ConflictScopes" && strings.Contains(files[teamAPolicy], `"other.io/team"`)
		return ok, fmt.Sprintf("%+v", c)
	})
	if out := cp.RunKubectl(t, "describe", "imagepolicy", "nested", "-n", "team-a"); !strings.Contains(out, "ConflictScopes") || !strings.Contains(out, "MirrorConfigurationNotApplied") {
		t.Errorf("kubectl describe does not show the condition and the event:\n%s", out)
	}

	// An invalid policy the CRD accepts: its scope collides with a registries.d file RHEL ships (D9).
	_, before := workerFiles(t)
	invalidBefore := ctrl.counter(t, "registries_controller_syncs_total", map[string]string{"result": "invalid"})
	apply(t, fixtures.CIP("redhat", key, "registry.redhat.io"))
	framework.Eventually(t, 20*time.Second, "a Warning event and Pending=True Invalid on the invalid ClusterImagePolicy", func() (bool, string) {
		c := pendingCondition(t, "", "redhat")
		evs := events(t, "redhat", "InvalidMirrorConfiguration")
		return c != nil && c.Reason == "Invalid" && len(evs) == 1, fmt.Sprintf("%+v, %d events", c, len(evs))
	})
	if ctrl.counter(t, "registries_controller_syncs_total", map[string]string{"result": "invalid"}) <= invalidBefore {
		t.Error("no invalid sync was counted")
	}
	framework.Eventually(t, 5*time.Second, "invalid_objects to count the policy", func() (bool, string) {
		n := ctrl.counter(t, "registries_controller_invalid_objects", nil)
		return n == 1, fmt.Sprint(n)
	})
	if _, after := workerFiles(t); after != before {
		t.Errorf("the worker MachineConfig changed (resourceVersion %s -> %s) while the input was invalid", before, after)
	}
	cp.RunKubectl(t, "delete", "clusterimagepolicy", "redhat")

	// Without the CIP the ImagePolicy's scope applies: the condition goes.
	cp.RunKubectl(t, "delete", "clusterimagepolicy", "signed")
	framework.Eventually(t, 20*time.Second, "the Pending condition cleared", func() (bool, string) {
		c := pendingCondition(t, "team-a", "nested")
		files, _ := workerFiles(t)
		return c == nil && strings.Contains(files[teamAPolicy], `"quay.io/signed/app"`), fmt.Sprintf("%+v", c)
	})

	// Deleting the last policy removes every signature file.
	cp.RunKubectl(t, "delete", "imagepolicy", "nested", "-n", "team-a")
	framework.Eventually(t, 20*time.Second, "no signature file left", func() (bool, string) {
		files, _ := workerFiles(t)
		_, p := files[policyJSON]
		_, s := files[sigstoreYAML]
		_, n := files[teamAPolicy]
		return files != nil && !p && !s && !n, fmt.Sprint(len(files), " files")
	})
}
