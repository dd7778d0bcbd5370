package cluster_test

import (
	"context"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	mcfgfake "github.com/openshift/client-go/machineconfiguration/clientset/versioned/fake"
	operatorfake "github.com/openshift/client-go/operator/clientset/versioned/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
)

// reader returns a Reader on fake clientsets holding objs, its caches filled.
func reader(t *testing.T, config, operator, mc []runtime.Object) *cluster.Reader {
	t.Helper()
	inf := cluster.InformersFor(configfake.NewClientset(config...), operatorfake.NewClientset(operator...), mcfgfake.NewClientset(mc...), 0)
	r, err := cluster.NewReader(inf)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); inf.Shutdown() })
	r.Start(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Fill(ctx, func(*inputs.Kind) bool { return true }); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTheReaderGathersEveryInputAndTheFilesAPoolRuns(t *testing.T) {
	conf := nodefiles.File{Path: nodefiles.RegistriesConf, Data: []byte("# conf\n")}
	raw, err := machineconfigs.Encode(nodefiles.Files{{Path: "/etc/other", Data: []byte("x")}, conf})
	if err != nil {
		t.Fatal(err)
	}
	rendered := &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "rendered-worker-1"}, Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: raw}}}
	worker := fixtures.Pool("worker", true)
	worker.Status.Configuration.Name = rendered.Name
	r := reader(t,
		[]runtime.Object{fixtures.IDMS("a"), fixtures.Image()},
		[]runtime.Object{fixtures.ICSP("b")},
		[]runtime.Object{worker, fixtures.Pool("master", true), rendered})

	if got := r.Inputs().Summary(); got != "1 Image, 1 ImageContentSourcePolicy, 1 ImageDigestMirrorSet, 2 MachineConfigPool" {
		t.Errorf("gathered %s", got)
	}
	name, files, err := r.Running(r.Pool("worker"))
	if err != nil || name != rendered.Name || len(files) != 1 || files[0].Path != conf.Path || string(files[0].Data) != "# conf\n" {
		t.Errorf("Running(worker) = %s %+v %v, want the managed file of %s", name, files, err, rendered.Name)
	}
	if _, _, err := r.Running(r.Pool("master")); err == nil {
		t.Errorf("a pool without a rendered config in its status: no error")
	}
	if r.Pool("infra") != nil {
		t.Errorf("a pool that does not exist was found")
	}
}

func TestEveryInputKindHasAnInformerFactory(t *testing.T) {
	inf := cluster.InformersFor(configfake.NewClientset(), operatorfake.NewClientset(), mcfgfake.NewClientset(), 0)
	for _, k := range inputs.Kinds {
		if _, err := inf.ForResource(k.GroupVersionResource()); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}
