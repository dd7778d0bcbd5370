package integration

import (
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// apiserverProfileWindow is how long the API server's CPU profile runs: about as long as the ten changes take.
const apiserverProfileWindow = 40 * time.Second

// BenchmarkOneChangeAtScaleInProcess is BenchmarkScaleBurst's one-object change at 5,000 objects with the controller
// in the benchmark's own process (startInProcess, wired as `start` wires it, default settle delay), so that its CPU
// profile can be taken over the changes alone: with REGISTRIES_BENCH_PROFILE_DIR set, the profile of the ten changes
// (and of nothing before them) is written to $REGISTRIES_BENCH_PROFILE_DIR/one-change-at-5000.cpu.pb.gz, for
// `go tool pprof -top -focus pkg/controller`, and the API server's over the same window (apiserverProfileWindow) to
// one-change-at-5000.kube-apiserver.cpu.pb.gz. It reports change-minus-settle-ms as BenchmarkScaleBurst does; the
// figure differs from the binary's only by the process it runs in (the benchmark's watch shares its CPU).
func BenchmarkOneChangeAtScaleInProcess(b *testing.B) {
	const n = 5000
	cp.Reset(b)
	kubectlApply(b, "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec: {}\n")
	set := fixtures.OCMirror(n)
	cp.RunKubectl(b, "apply", "-f", writeManifests(b, set.Objects()))
	startInProcess(b, cp.RESTConfig, scaleSettleDelay, 0)
	final := expectFinal(set)
	waitWorkerFinal(b, final)
	time.Sleep(scaleQuiet)

	if dir := os.Getenv(envProfileDir); dir != "" {
		f, err := os.Create(filepath.Join(dir, "one-change-at-5000.cpu.pb.gz"))
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				b.Error(err)
			}
			b.Logf("CPU profile of the changes: %s", f.Name())
		}()
		// The API server's side of the same changes (its own /debug/pprof, which kube-apiserver serves to an admin).
		server := make(chan error, 1)
		go func() {
			data, err := cp.Kube.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
				Param("seconds", strconv.Itoa(int(apiserverProfileWindow.Seconds()))).Timeout(2 * apiserverProfileWindow).DoRaw(context.Background())
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "one-change-at-5000.kube-apiserver.cpu.pb.gz"), data, 0o644)
			}
			server <- err
		}()
		defer func() {
			if err := <-server; err != nil {
				b.Errorf("the API server's CPU profile: %v", err)
			}
		}()
	}
	reportChangeLatency(b, n, changeOneObject(b, set), ", controller in process")
}

// waitWorkerFinal waits, for five minutes at most, until the worker MachineConfig's registries.conf satisfies final.
func waitWorkerFinal(b testing.TB, final func(string) (bool, string)) {
	b.Helper()
	framework.Eventually(b, 5*time.Minute, "the worker MachineConfig with every object", func() (bool, string) {
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return final(registriesConfOf(b, mc))
	})
}
