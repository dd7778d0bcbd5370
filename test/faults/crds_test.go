package faults

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

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
			c := framework.StartTestController(t, "controller", cp.KubeconfigPath, "--status-grace-period=2s")
			missing := fmt.Sprintf("%s (%s/v1)", tc.kind, tc.resource)
			framework.Eventually(t, 30*time.Second, "/readyz to name the missing kind", func() (bool, string) {
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
