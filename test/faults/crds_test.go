package faults

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// A controller started before one of its CRDs is installed says which kind is missing, once, in its log and in
// /readyz, stays alive (no crash loop, no stack trace), writes nothing, and proceeds once the CRD is installed. Past
// the grace period its ClusterOperator is Available=False, naming the kind.
func TestAControllerStartedWithoutACRDNamesItWaitsAndProceedsOnceItIsInstalled(t *testing.T) {
	for _, tc := range []struct {
		kind, file, resource string
	}{
		{"MachineConfig", "0000_80_machine-config_01_machineconfigs.crd.yaml", "machineconfigs.machineconfiguration.openshift.io"},
		{"ImageTagMirrorSet", "0000_10_config-operator_01_imagetagmirrorsets.crd.yaml", "imagetagmirrorsets.config.openshift.io"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			reset(t)
			crdDir, err := framework.CRDDir()
			if err != nil {
				t.Fatal(err)
			}
			crd := filepath.Join(crdDir, tc.file)
			kubectl(t, "delete", "crd", tc.resource, "--wait=true")
			installed := false
			t.Cleanup(func() {
				if !installed {
					kubectl(t, "apply", "-f", crd)
				}
			})
			base := idms("crds", "m.local")
			create(t, base)

			kubectl(t, "delete", "clusteroperator", "registries-controller", "--ignore-not-found")
			c := startController(t, "controller", cp.KubeconfigPath, lease(t), "--status-grace-period=2s")
			missing := fmt.Sprintf("%s (%s/v1)", tc.kind, tc.resource)
			eventually(t, 30*time.Second, "/readyz to name the missing kind", func() (bool, string) {
				code, body := c.Get("/readyz")
				return code == http.StatusServiceUnavailable && strings.Contains(body, missing), fmt.Sprint(code, " ", body)
			})
			time.Sleep(5 * time.Second) // the controller keeps waiting: no exit, no retries in the log
			select {
			case <-c.Exited():
				t.Fatalf("the controller exited: %v", c.Err())
			default:
			}
			if code, _ := c.Get("/healthz"); code != http.StatusOK {
				t.Errorf("/healthz answered %d while waiting for a CRD", code)
			}
			if got, _ := current(t); len(got) != 0 {
				t.Errorf("wrote %d MachineConfigs without knowing every input", len(got))
			}
			// Past the grace period, the ClusterOperator says the controller is not available, and why.
			eventually(t, 10*time.Second, "the ClusterOperator to be Available=False, naming the missing kind", func() (bool, string) {
				c := operatorCondition(t, configv1.OperatorAvailable)
				return c != nil && c.Status == configv1.ConditionFalse && c.Reason == "NotReady" && strings.Contains(c.Message, missing), fmt.Sprint(c)
			})

			kubectl(t, "apply", "-f", crd)
			installed = true
			appliedAt := time.Now()
			waitFor(t, time.Minute, "the controller to proceed", expected(t, base))
			t.Logf("/readyz said %q; the MachineConfigs were written %s after the CRD was applied",
				missing, time.Since(appliedAt).Round(10*time.Millisecond))
			waitReady(t, c, 10*time.Second)
			eventually(t, 10*time.Second, "the ClusterOperator to be Available again", func() (bool, string) {
				c := operatorCondition(t, configv1.OperatorAvailable)
				return c != nil && c.Status == configv1.ConditionTrue, fmt.Sprint(c)
			})

			log := c.Log()
			if n := strings.Count(log, "does not serve kinds"); n != 1 {
				t.Errorf("the missing kind was logged %d times, want once", n)
			}
			if !strings.Contains(log, tc.kind) || !strings.Contains(log, "Every kind the controller reads or writes is served") {
				t.Errorf("the log does not name %s and its arrival", tc.kind)
			}
			for _, noise := range []string{"goroutine ", "panic", "Failed to watch", "failed to list"} {
				if strings.Contains(log, noise) {
					t.Errorf("the log contains %q", noise)
				}
			}
		})
	}
}

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, err := cp.Kubectl(context.Background(), nil, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v: %s", strings.Join(args, " "), err, stderr)
	}
	return out
}

// operatorCondition returns the condition of the ClusterOperator registries-controller of type ct; nil when the
// object or the condition does not exist.
func operatorCondition(t *testing.T, ct configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	t.Helper()
	co, err := cp.Config.ConfigV1().ClusterOperators().Get(context.Background(), "registries-controller", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == ct {
			return &co.Status.Conditions[i]
		}
	}
	return nil
}
