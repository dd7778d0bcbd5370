package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
)

func TestConnectReadsTheInputsTheControllerReadsOrNamesWhatItCannotList(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(fixtures.Insecure("lab.local")), fixtures.ITMS("tools", fixtures.Mirror("quay.io/tools", "m.local/tools")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, stop, err := cluster.Connect(ctx, cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	in := r.Inputs()
	stop()
	if got := in.Summary(); got != "1 ClusterVersion, 1 Image, 1 ImageTagMirrorSet, 2 MachineConfigPool" {
		t.Errorf("read %s", got)
	}
	if in.Get(inputs.ObjectRef{Kind: inputs.KindImageTagMirrorSet, Name: "tools"}) == nil || r.Pool("worker") == nil {
		t.Errorf("the objects are not found by name")
	}

	nobody := rest.CopyConfig(cp.RESTConfig)
	nobody.Impersonate = rest.ImpersonationConfig{UserName: "nobody"}
	_, _, err = cluster.Connect(ctx, nobody)
	if err == nil || !strings.Contains(err.Error(), "listing machineconfigs.machineconfiguration.openshift.io: ") || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("Connect as a user without permissions: %v", err)
	}
}
