package cluster

import (
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/registries-controller/test/fixtures"
)

func TestTheCachesKeepOnlyWhatIsRead(t *testing.T) {
	applied := map[string]string{lastAppliedAnnotation: `{"spec":"as large as the object"}`, "kept": "yes"}
	fields := []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply"}}

	idms := fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a"))
	idms.Annotations, idms.ManagedFields = map[string]string{lastAppliedAnnotation: "{}", "kept": "yes"}, fields
	if _, err := dropUnread(idms); err != nil {
		t.Fatal(err)
	}
	if len(idms.ManagedFields) != 0 || len(idms.Annotations) != 1 || idms.Annotations["kept"] != "yes" || len(idms.Spec.ImageDigestMirrors) != 1 {
		t.Errorf("an input object keeps %+v, %v", idms.ManagedFields, idms.Annotations)
	}

	mc := &mcfgv1.MachineConfig{ObjectMeta: metav1.ObjectMeta{Name: "99-worker-generated-registries", Annotations: applied, ManagedFields: fields}}
	if _, err := dropLastAppliedMachineConfigs(mc); err != nil {
		t.Fatal(err)
	}
	if len(mc.ManagedFields) != 1 || len(mc.Annotations) != 1 {
		t.Errorf("a MachineConfig keeps its managed fields (the other writer's name), not the last-applied copy: %+v, %v", mc.ManagedFields, mc.Annotations)
	}
	pool := fixtures.Pool("worker", true)
	pool.ManagedFields = fields
	if _, err := dropLastAppliedMachineConfigs(pool); err != nil || len(pool.ManagedFields) != 0 {
		t.Errorf("a pool, an input, keeps its managed fields: %v", err)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: "a", Obj: idms}
	if got, err := dropUnread(tomb); err != nil || got != tomb {
		t.Errorf("a tombstone is passed on as it is: %v, %v", got, err)
	}
}
