// Package rbac proves least privilege: it applies manifests/ to a real API server and asks it, with
// SubjectAccessReviews, about every verb on every resource it serves, for the controller's ServiceAccount.
package rbac

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/controller"
	"github.com/openshift/registries-controller/test/framework"
)

// cp is the package's one control plane.
var cp *framework.ControlPlane

func TestMain(m *testing.M) {
	framework.Run(m, func(c *framework.ControlPlane) error {
		cp = c
		return nil
	})
}

const (
	namespace      = "openshift-registries-controller"
	serviceAccount = "registries-controller"
)

// anyNamespace is the scope of a permission that holds in every namespace (or for a cluster-scoped resource).
const anyNamespace = "*"

// permission is one verb on one resource (RESOURCE or RESOURCE/SUBRESOURCE) of one API group, in one scope: a
// namespace, or anyNamespace.
type permission struct {
	verb, group, resource, scope string
}

func (p permission) String() string {
	group := p.group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s %s/%s in %s", p.verb, group, p.resource, p.scope)
}

// needed is what the controller uses, and so what manifests/ must grant: docs/reliability.md has the same table.
var needed = func() map[permission]bool {
	out := map[permission]bool{}
	add := func(group string, resources, verbs []string, scope string) {
		for _, r := range resources {
			for _, v := range verbs {
				out[permission{v, group, r, scope}] = true
			}
		}
	}
	listWatch := []string{"list", "watch"}
	add("config.openshift.io", []string{"imagedigestmirrorsets", "imagetagmirrorsets", "images", "clusterversions",
		"clusterimagepolicies", "imagepolicies", "featuregates", "infrastructures", "criocredentialproviderconfigs"}, listWatch, anyNamespace)
	add("operator.openshift.io", []string{"imagecontentsourcepolicies"}, listWatch, anyNamespace)
	add("machineconfiguration.openshift.io", []string{"machineconfigpools", "containerruntimeconfigs"}, listWatch, anyNamespace)
	add("machineconfiguration.openshift.io", []string{"containerruntimeconfigs"}, []string{"patch"}, anyNamespace)
	add("machineconfiguration.openshift.io", []string{"containerruntimeconfigs/status", "containerruntimeconfigs/finalizers"}, []string{"update"}, anyNamespace)
	add("machineconfiguration.openshift.io", []string{"machineconfigs"}, []string{"get", "list", "watch", "create", "update", "delete"}, anyNamespace)
	add("", []string{"events"}, []string{"create", "patch"}, anyNamespace)
	add("coordination.k8s.io", []string{"leases"}, []string{"get", "create", "update"}, namespace)
	add("config.openshift.io", []string{"clusterimagepolicies/status", "imagepolicies/status", "criocredentialproviderconfigs/status"}, []string{"update"}, anyNamespace)
	// Its ClusterOperator: create when missing (a create cannot be limited to a name); get and status updates are
	// granted for its name only (namedNeeded), so a question without a name is denied.
	add("config.openshift.io", []string{"clusteroperators"}, []string{"create"}, anyNamespace)
	// /metrics: the reviews of each scrape.
	add("authentication.k8s.io", []string{"tokenreviews"}, []string{"create"}, anyNamespace)
	add("authorization.k8s.io", []string{"subjectaccessreviews"}, []string{"create"}, anyNamespace)
	return out
}()

// operatorName is the controller's ClusterOperator.
const operatorName = "registries-controller"

// namedPermission is a permission granted for one object only (resourceNames): allowed for name, denied for other.
type namedPermission struct {
	permission
	name, other string
}

// namedNeeded are the permissions granted for one object only: the ClusterOperator (get, list and watch by name,
// status updates), and list and watch of the CRD of each kind the controller reads or writes (controller.CRDNames:
// a kind added there must be added to manifests/).
var namedNeeded = func() []namedPermission {
	out := []namedPermission{
		{permission{"get", "config.openshift.io", "clusteroperators", anyNamespace}, operatorName, "machine-config"},
		{permission{"list", "config.openshift.io", "clusteroperators", anyNamespace}, operatorName, "machine-config"},
		{permission{"watch", "config.openshift.io", "clusteroperators", anyNamespace}, operatorName, "machine-config"},
		{permission{"update", "config.openshift.io", "clusteroperators/status", anyNamespace}, operatorName, "machine-config"},
	}
	for _, crd := range controller.CRDNames() {
		for _, verb := range []string{"list", "watch"} {
			out = append(out, namedPermission{permission{verb, "apiextensions.k8s.io", "customresourcedefinitions", anyNamespace},
				crd, "machineconfigurations.operator.openshift.io"})
		}
	}
	return out
}()

// verbs are every verb the API server authorizes, the special ones included.
var verbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection",
	"escalate", "bind", "impersonate", "approve", "sign", "use"}

// identities are what impersonation names; discovery does not list them.
var identities = []resource{
	{group: "", name: "users"}, {group: "", name: "groups"}, {group: "", name: "serviceaccounts", namespaced: true},
	{group: "authentication.k8s.io", name: "userextras/scopes"}, {group: "authentication.k8s.io", name: "uids"},
}

type resource struct {
	group, name string
	namespaced  bool
}

func TestTheServiceAccountMayDoExactlyWhatTheControllerUsesAndNothingElse(t *testing.T) {
	ctx := context.Background()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	manifests := filepath.Join(root, "manifests")
	if _, stderr, err := cp.Kubectl(ctx, nil, "apply", "-f", manifests); err != nil {
		t.Fatalf("kubectl apply -f manifests: %v: %s", err, stderr)
	}
	// A ServiceAccount bound to nothing shows what every authenticated user may do (discovery, self reviews):
	// only what the controller's ServiceAccount may do beyond it comes from manifests/.
	unbound := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "unbound", Namespace: namespace}}
	if _, err := cp.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx, unbound, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	resources := discover(t)
	// The finalizers subresource is not discovered: the API server authorizes it only for owner references with
	// blockOwnerDeletion (the OwnerReferencesPermissionEnforcement admission plugin of OpenShift), which a
	// ContainerRuntimeConfig's MachineConfigs carry.
	resources = append(resources, resource{group: "machineconfiguration.openshift.io", name: "containerruntimeconfigs/finalizers"})
	scopes := namespacesOf(t, manifests)
	var questions []permission
	for _, r := range resources {
		for _, v := range verbs {
			questions = append(questions, permission{v, r.group, r.name, anyNamespace})
			if r.namespaced {
				for _, ns := range scopes {
					questions = append(questions, permission{v, r.group, r.name, ns})
				}
			}
		}
	}
	granted := grantedBeyondUnbound(t, questions)

	// What a grant in every namespace implies is not listed again per namespace.
	for p := range granted {
		if p.scope != anyNamespace && granted[permission{p.verb, p.group, p.resource, anyNamespace}] {
			delete(granted, p)
		}
	}
	var extra, missing []string
	for p := range granted {
		if _, ok := needed[p]; !ok {
			extra = append(extra, p.String())
		}
	}
	for p := range needed {
		if !granted[p] {
			missing = append(missing, p.String())
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	if len(extra) > 0 {
		t.Errorf("manifests/ grants the ServiceAccount more than the controller uses:\n  %s", strings.Join(extra, "\n  "))
	}
	if len(missing) > 0 {
		t.Errorf("manifests/ does not grant what the controller uses:\n  %s", strings.Join(missing, "\n  "))
	}
	t.Logf("%d questions on %d resources and %d scopes; granted beyond any authenticated user: %d", len(questions), len(resources),
		len(scopes)+1, len(granted))

	// Said plainly, whatever the table: no Secret anywhere, no Lease elsewhere, no privilege escalation.
	nss, err := cp.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var denied []permission
	for _, ns := range nss.Items {
		for _, v := range []string{"get", "list", "watch"} {
			denied = append(denied, permission{v, "", "secrets", ns.Name})
		}
		if ns.Name != namespace {
			denied = append(denied, permission{"update", "coordination.k8s.io", "leases", ns.Name})
		}
	}
	denied = append(denied, permission{"list", "", "secrets", anyNamespace},
		permission{"escalate", "rbac.authorization.k8s.io", "clusterroles", anyNamespace},
		permission{"bind", "rbac.authorization.k8s.io", "clusterroles", anyNamespace},
		permission{"impersonate", "", "users", anyNamespace},
		permission{"impersonate", "", "serviceaccounts", anyNamespace})
	for _, p := range denied {
		if allowed(t, serviceAccount, p) {
			t.Errorf("the ServiceAccount may %s", p)
		}
	}
	// The ClusterOperator and the CRDs by name: its own, and no other (nor every one, which the table above already
	// denies).
	for _, p := range namedNeeded {
		if !allowedNamed(t, serviceAccount, p.permission, p.name) {
			t.Errorf("the ServiceAccount may not %s named %s", p.permission, p.name)
		}
		if allowedNamed(t, serviceAccount, p.permission, p.other) {
			t.Errorf("the ServiceAccount may %s named %s", p.permission, p.other)
		}
	}
}

// The cluster's Prometheus may discover the controller's endpoints and get /metrics, which the controller asks the
// API server about for each scrape; another ServiceAccount of its namespace may not.
func TestPrometheusMayScrapeTheControllerAndNobodyElse(t *testing.T) {
	ctx := context.Background()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := cp.Kubectl(ctx, nil, "apply", "-f", filepath.Join(root, "manifests")); err != nil {
		t.Fatalf("kubectl apply -f manifests: %v: %s", err, stderr)
	}
	const monitoring = "openshift-monitoring"
	prometheus := subject{user: "system:serviceaccount:" + monitoring + ":prometheus-k8s", namespace: monitoring}
	other := subject{user: "system:serviceaccount:" + monitoring + ":alertmanager-main", namespace: monitoring}
	metrics := &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}
	if !review(t, prometheus, nil, metrics) {
		t.Error("prometheus-k8s may not get /metrics")
	}
	if review(t, other, nil, metrics) {
		t.Error("another ServiceAccount of openshift-monitoring may get /metrics")
	}
	for _, r := range []struct{ group, resource string }{{"", "services"}, {"", "endpoints"}, {"", "pods"}, {"discovery.k8s.io", "endpointslices"}} {
		for _, verb := range []string{"get", "list", "watch"} {
			attrs := &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Group: r.group, Resource: r.resource}
			if !review(t, prometheus, attrs, nil) {
				t.Errorf("prometheus-k8s may not %s %s in %s", verb, r.resource, namespace)
			}
			if review(t, other, attrs, nil) {
				t.Errorf("another ServiceAccount of openshift-monitoring may %s %s in %s", verb, r.resource, namespace)
			}
		}
	}
	if review(t, prometheus, &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: "get", Resource: "secrets"}, nil) {
		t.Errorf("prometheus-k8s may get secrets in %s", namespace)
	}
}

// subject is a ServiceAccount as a SubjectAccessReview names it.
type subject struct{ user, namespace string }

// review asks the API server whether s may do what attrs or nonResource say.
func review(t *testing.T, s subject, attrs *authorizationv1.ResourceAttributes, nonResource *authorizationv1.NonResourceAttributes) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               s.user,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:" + s.namespace, "system:authenticated"},
		ResourceAttributes: attrs, NonResourceAttributes: nonResource,
	}}
	got, err := cp.Kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("SubjectAccessReview: %v", err)
	}
	return got.Status.Allowed
}

// allowedNamed asks whether the controller's ServiceAccount sa may do p to the object named name.
func allowedNamed(t *testing.T, sa string, p permission, name string) bool {
	t.Helper()
	resource, sub, _ := strings.Cut(p.resource, "/")
	return review(t, subject{user: "system:serviceaccount:" + namespace + ":" + sa, namespace: namespace},
		&authorizationv1.ResourceAttributes{Verb: p.verb, Group: p.group, Resource: resource, Subresource: sub, Name: name}, nil)
}

// discover returns every resource and subresource the API server serves, in every group version, and the
// identities impersonation names.
func discover(t *testing.T) []resource {
	t.Helper()
	_, lists, err := cp.Kube.Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[resource]bool{}
	out := append([]resource(nil), identities...)
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			res := resource{group: gv.Group, name: r.Name, namespaced: r.Namespaced}
			if !seen[res] {
				seen[res] = true
				out = append(out, res)
			}
		}
	}
	return out
}

// namespacesOf returns "default" and every namespace the manifests in dir name: a Role or RoleBinding there is
// the only way they can grant anything in one namespace and not in all.
func namespacesOf(t *testing.T, dir string) []string {
	t.Helper()
	set := map[string]bool{metav1.NamespaceDefault: true}
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var obj struct {
				Kind     string
				Metadata struct{ Name, Namespace string }
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if obj.Metadata.Namespace != "" {
				set[obj.Metadata.Namespace] = true
			}
			if obj.Kind == "Namespace" {
				set[obj.Metadata.Name] = true
			}
		}
	}
	var out []string
	for ns := range set {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// grantedBeyondUnbound asks every question for the controller's ServiceAccount, and for the unbound one where
// the answer is yes, with a few requests in flight.
func grantedBeyondUnbound(t *testing.T, questions []permission) map[permission]bool {
	t.Helper()
	granted := map[permission]bool{}
	var mu sync.Mutex
	work := make(chan permission)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if allowed(t, serviceAccount, p) && !allowed(t, "unbound", p) {
					mu.Lock()
					granted[p] = true
					mu.Unlock()
				}
			}
		}()
	}
	for _, q := range questions {
		work <- q
	}
	close(work)
	wg.Wait()
	return granted
}

// allowed asks the API server whether the ServiceAccount sa of the controller's namespace may do p.
func allowed(t *testing.T, sa string, p permission) bool {
	resource, sub, _ := strings.Cut(p.resource, "/")
	ns := p.scope
	if ns == anyNamespace {
		ns = ""
	}
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + namespace + ":" + sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Verb: p.verb, Group: p.group, Resource: resource, Subresource: sub,
		},
	}}
	got, err := cp.Kube.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), review, metav1.CreateOptions{})
	if err != nil {
		t.Errorf("SubjectAccessReview %s: %v", p, err)
		return false
	}
	return got.Status.Allowed
}
