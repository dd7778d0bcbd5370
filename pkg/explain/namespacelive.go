package explain

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// FromAPIServer is NamespaceSecrets.From for secrets listed from the cluster.
const FromAPIServer = "the API server"

// ListNamespaceSecrets lists the kubernetes.io/dockerconfigjson secrets of namespace as the plugin does (a list
// with the field selector type=kubernetes.io/dockerconfigjson) and reads their keys (SecretsOf). When the caller
// may not list them (Forbidden), the secrets are Unknown and say so; other errors are returned. The values are
// read into memory to find the keys, and dropped.
func ListNamespaceSecrets(ctx context.Context, client kubernetes.Interface, namespace string) (NamespaceSecrets, error) {
	list, err := client.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("type", string(corev1.SecretTypeDockerConfigJson)).String(),
	})
	switch {
	case apierrors.IsForbidden(err):
		return NamespaceSecrets{From: FromAPIServer, Unknown: fmt.Sprintf("you may not list secrets in namespace %s (Forbidden), so which "+
			"keys the plugin copies cannot be said; the rest of the answer stands", namespace)}, nil
	case err != nil:
		return NamespaceSecrets{}, fmt.Errorf("listing the secrets of namespace %s: %w", namespace, err)
	}
	return SecretsOf(namespace, FromAPIServer, list.Items), nil
}

// serviceAccountUser returns the user name and groups a pod's service account token authenticates as.
func serviceAccountUser(namespace, name string) (string, []string) {
	return "system:serviceaccount:" + namespace + ":" + name,
		[]string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
}

// CheckServiceAccount asks the API server, with a SubjectAccessReview, whether the service account name of
// namespace may list secrets there, as the plugin does with the pod's token. Creating the review changes nothing
// in the cluster. When the caller may not create reviews (Forbidden), the access is not Checked and says why;
// other errors are returned.
func CheckServiceAccount(ctx context.Context, client kubernetes.Interface, namespace, name string) (ServiceAccountAccess, error) {
	user, groups := serviceAccountUser(namespace, name)
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   user,
		Groups: groups,
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "list", Resource: "secrets",
		},
	}}
	got, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	switch {
	case apierrors.IsForbidden(err):
		return ServiceAccountAccess{Name: name, Why: "you may not create SubjectAccessReviews (Forbidden)"}, nil
	case err != nil:
		return ServiceAccountAccess{}, fmt.Errorf("asking whether service account %s/%s may list secrets: %w", namespace, name, err)
	}
	return ServiceAccountAccess{Name: name, Checked: true, CanList: got.Status.Allowed}, nil
}
