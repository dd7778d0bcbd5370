package explain

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

// NamespaceSecrets are the kubernetes.io/dockerconfigjson secrets of a namespace as CRI-O's credential provider
// plugin reads them: their names and the keys of their "auths", never the credentials.
//
//	NamespaceSecrets{From: "secrets.yaml", Secrets: []credentialprovider.SecretAuths{{Secret: "mirror-pull",
//		Keys: []credentialprovider.AuthKey{{Key: "https://mirror.example.com"}}}}}
type NamespaceSecrets struct {
	// From says where they were read, e.g. "secrets.yaml" or "the API server".
	From string
	// Unknown says why they are not known, e.g. "you may not list secrets in namespace team-a (Forbidden)"; ""
	// when they are. Which keys the plugin copies then cannot be said.
	Unknown string
	// Secrets are the secrets the plugin reads, sorted by name, as the API lists them: a later secret's key
	// replaces an earlier one's.
	Secrets []credentialprovider.SecretAuths
	// Left are the secrets read but not counted, and why, e.g. `secret "old" (kubernetes.io/dockercfg): the
	// plugin lists only kubernetes.io/dockerconfigjson secrets`.
	Left []string
}

// Known reports whether the secrets were read.
func (s NamespaceSecrets) Known() bool { return s.Unknown == "" }

// SecretsOf reads secrets as the plugin does for a pod of namespace: only those of that namespace and of type
// kubernetes.io/dockerconfigjson count, sorted by name, each with the keys of its .dockerconfigjson
// (credentialprovider.ReadSecretAuths). A secret whose data the plugin cannot parse is left out, and so is one of
// type kubernetes.io/dockercfg, with a line in Left; other secrets are ignored. from says where they were read.
// No value of a secret is kept or put in a message.
func SecretsOf(namespace, from string, secrets []corev1.Secret) NamespaceSecrets {
	out := NamespaceSecrets{From: from}
	others := map[string]int{} // namespace -> secrets not counted
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b corev1.Secret) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range sorted {
		switch {
		case s.Namespace == "":
			out.Left = append(out.Left, fmt.Sprintf("secret %q: no metadata.namespace, so not counted for namespace %s", s.Name, namespace))
			continue
		case s.Namespace != namespace:
			others[s.Namespace]++
			continue
		case s.Type == corev1.SecretTypeDockercfg:
			out.Left = append(out.Left, fmt.Sprintf("secret %q (%s): the plugin lists only %s secrets", s.Name, s.Type, corev1.SecretTypeDockerConfigJson))
			continue
		case s.Type != corev1.SecretTypeDockerConfigJson:
			continue
		}
		data, ok := s.Data[corev1.DockerConfigJsonKey]
		if !ok {
			data = []byte(s.StringData[corev1.DockerConfigJsonKey])
		}
		auths, err := credentialprovider.ReadSecretAuths(s.Name, data)
		if err != nil {
			// The error of the JSON parser may quote a character of the value: say only what is wrong.
			out.Left = append(out.Left, fmt.Sprintf("secret %q: its %s is not a docker config JSON with \"auths\": the plugin skips it", s.Name, corev1.DockerConfigJsonKey))
			continue
		}
		out.Secrets = append(out.Secrets, auths)
	}
	for _, ns := range slices.Sorted(maps.Keys(others)) {
		what := "secrets"
		if others[ns] == 1 {
			what = "secret"
		}
		out.Left = append(out.Left, fmt.Sprintf("%d %s of namespace %s: not counted for namespace %s", others[ns], what, ns, namespace))
	}
	return out
}
