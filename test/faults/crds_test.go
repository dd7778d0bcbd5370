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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/framework"
)

// operatorName is the name of the controller's ClusterOperator.
const operatorName = "registries-controller"

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
			cp.Reset(t)
			crdDir, err := framework.CRDDir()
			if err != nil {
				t.Fatal(err)
			}
			crd := filepath.Join(crdDir, tc.file)
			cp.RunKubectl(t, "delete", "crd", tc.resource, "--wait=true")
			installed := false
			t.Cleanup(func() {
				if !installed {
					cp.RunKubectl(t, "apply", "-f", crd)
				}
			})
			base := idms("crds", "m.local")
			create(t, base)

			cp.RunKubectl(t, "delete", "clusteroperator", operatorName, "--ignore-not-found")
			// No leader election: a Lease left by this test's controller of an earlier run (-count) would keep this
			// one from acting, and from reporting on its ClusterOperator, until the Lease expired.
			c := framework.StartTestController(t, "controller", cp.KubeconfigPath, "--status-grace-period=2s", "--leader-elect=false")
			missing := fmt.Sprintf("%s (%s/v1)", tc.kind, tc.resource)
			// The controller keeps waiting: no exit, no write. It works meanwhile: past the grace period, which began
			// with it, its ClusterOperator says that it is not available, naming the kind (checked again below).
			reported := framework.Witness{What: "ClusterOperator reports naming the missing kind", Need: 1, Count: func() float64 {
				co, err := cp.Config.ConfigV1().ClusterOperators().Get(context.Background(), operatorName, metav1.GetOptions{})
				if err != nil {
					return 0
				}
				c := framework.OperatorCondition(co, configv1.OperatorAvailable)
				if c.Status == configv1.ConditionFalse && strings.Contains(c.Message, missing) {
					return 1
				}
				return 0
			}}
			framework.Quiet(t, 5*time.Second, "an exit or a MachineConfig written while a CRD is missing", reported, func() (bool, string) {
				select {
				case <-c.Exited():
					return true, fmt.Sprintf("exited: %v", c.Err())
				default:
				}
				got, _ := current(t)
				return len(got) != 0, fmt.Sprint(len(got), " MachineConfigs")
			})
			framework.Eventually(t, 30*time.Second, "/readyz to name the missing kind", func() (bool, string) {
				code, body := c.Get("/readyz")
				return code == http.StatusServiceUnavailable && strings.Contains(body, missing), fmt.Sprint(code, " ", body)
			})
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
			framework.Eventually(t, 10*time.Second, "the ClusterOperator to be Available=False, naming the missing kind", func() (bool, string) {
				c := framework.OperatorCondition(cp.ClusterOperator(t, operatorName), configv1.OperatorAvailable)
				return c.Status == configv1.ConditionFalse && c.Reason == "NotReady" && strings.Contains(c.Message, missing), fmt.Sprint(c)
			})

			cp.RunKubectl(t, "apply", "-f", crd)
			installed = true
			appliedAt := time.Now()
			waitForFiles(t, time.Minute, "the controller to proceed", expected(t, base))
			t.Logf("/readyz said %q; the MachineConfigs were written %s after the CRD was applied",
				missing, time.Since(appliedAt).Round(10*time.Millisecond))
			waitReady(t, c, 10*time.Second)
			framework.Eventually(t, 10*time.Second, "the ClusterOperator to be Available again", func() (bool, string) {
				c := framework.OperatorCondition(cp.ClusterOperator(t, operatorName), configv1.OperatorAvailable)
				return c.Status == configv1.ConditionTrue, fmt.Sprint(c)
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
