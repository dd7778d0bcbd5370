package consistency

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/framework"
)

// TestTheKindsTableTheClusterRoleAndTheCRDsAgree: every input kind (inputs.Kinds) is listed and watched by the
// ClusterRole of manifests/, its status is updatable when the controller writes it (inputs.Kind.Status), and its CRD
// is copied by hack/update-crds.sh into pkg/crds; a kind added to one of them and not the others fails here.
func TestTheKindsTableTheClusterRoleAndTheCRDsAgree(t *testing.T) {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "manifests", "0000_80_registries-controller_02_clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole
	if err := yaml.Unmarshal(data, &role); err != nil {
		t.Fatal(err)
	}
	grants := func(group, resource, verb string) bool {
		return slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
			return len(r.ResourceNames) == 0 && slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb)
		})
	}
	script, err := os.ReadFile(filepath.Join(root, "hack", "update-crds.sh"))
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`(?m)^\t\S+/zz_generated\.crd-manifests/(\S+\.crd\.yaml)$`).FindAllStringSubmatch(string(script), -1)
	var copied []string
	for _, m := range listed {
		copied = append(copied, m[1])
	}
	entries, err := os.ReadDir(filepath.Join(root, "pkg", "crds"))
	if err != nil {
		t.Fatal(err)
	}
	var inTestCRDs []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".crd.yaml") {
			inTestCRDs = append(inTestCRDs, e.Name())
		}
	}
	crdOf := func(files []string, resource string) bool {
		return slices.ContainsFunc(files, func(f string) bool {
			return strings.Contains(f, "_01_"+resource+".crd.yaml") || strings.Contains(f, "_01_"+resource+"-")
		})
	}
	for _, k := range inputs.Kinds {
		group, resource := k.GroupVersion.Group, k.Resource
		for _, verb := range []string{"list", "watch"} {
			if !grants(group, resource, verb) {
				t.Errorf("%s: the ClusterRole does not grant %s on %s.%s", k.Name, verb, resource, group)
			}
		}
		if (k.Status != nil || k.OwnStatus) && !grants(group, resource+"/status", "update") {
			t.Errorf("%s: the controller writes its status, the ClusterRole does not grant update on %s/status", k.Name, resource)
		}
		if k.Status == nil && !k.OwnStatus && grants(group, resource+"/status", "update") {
			t.Errorf("%s: the ClusterRole grants update on %s/status, which the controller never writes", k.Name, resource)
		}
		if !crdOf(copied, resource) {
			t.Errorf("%s: hack/update-crds.sh copies no CRD of %s", k.Name, resource)
		}
		if !crdOf(inTestCRDs, resource) {
			t.Errorf("%s: pkg/crds holds no CRD of %s", k.Name, resource)
		}
	}
	for _, f := range copied {
		if !slices.Contains(inTestCRDs, f) {
			t.Errorf("hack/update-crds.sh copies %s, which pkg/crds lacks: run hack/update-crds.sh", f)
		}
	}
}
