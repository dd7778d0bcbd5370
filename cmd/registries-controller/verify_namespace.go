package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registryprobe"
)

// namespaceCreds are the credentials of verify --namespace: what explain --namespace computes for the pods of the
// namespace (which key of which secret, or of the global pull secret, serves each place), and, in memory only, the
// values of those keys, for the prober. The values are never printed, logged or written.
type namespaceCreds struct {
	namespace string
	facts     *namespaceFacts
	// files are the pool's node files: the registries configuration and the kubelet's credential provider files.
	files nodefiles.Files
	// secrets are the values of the namespace's dockerconfigjson secrets: secret name -> key as written -> value.
	secrets map[string]map[string]authValue
	// global are the values of the global pull secret (--authfile), per key.
	global map[string]authValue
}

// authValue is one "auths" entry's credentials, decoded as crio-credential-provider copies it: its "auth" as
// user:password.
type authValue struct{ username, password string }

// readNamespaceCreds lists the namespace's dockerconfigjson secrets as the plugin does (a list with the field
// selector type=kubernetes.io/dockerconfigjson), asks whether the pods' service account may list them, and reads
// the global pull secret of authFile. Unlike explain, verify cannot answer without the secrets: a caller who may
// not list them gets an error.
func (c *checkFlags) readNamespaceCreds(ctx context.Context, cfg *rest.Config, pool string, platform configv1.PlatformType,
	files nodefiles.Files, stderr io.Writer) (*namespaceCreds, error) {
	namespace, serviceAccount, authFile := c.namespace, c.serviceAccount, c.authFile
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	list, err := client.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("type", string(corev1.SecretTypeDockerConfigJson)).String(),
	})
	switch {
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("--namespace %s: you may not list secrets in namespace %s (Forbidden): verify needs the credentials the plugin would copy", namespace, namespace)
	case err != nil:
		return nil, fmt.Errorf("listing the secrets of namespace %s: %w", namespace, err)
	}
	n := &namespaceCreds{namespace: namespace, files: files, secrets: map[string]map[string]authValue{}}
	n.facts = &namespaceFacts{pool: pool, platform: platform, secrets: explain.SecretsOf(namespace, explain.FromAPIServer, list.Items)}
	for _, s := range list.Items {
		if s.Namespace != namespace || s.Type != corev1.SecretTypeDockerConfigJson {
			continue
		}
		if values, err := readAuthValues(s.Data[corev1.DockerConfigJsonKey]); err == nil {
			n.secrets[s.Name] = values
		}
	}
	if n.facts.access, err = explain.CheckServiceAccount(ctx, client, namespace, serviceAccount); err != nil {
		return nil, err
	}
	if authFile != "" {
		data, err := os.ReadFile(authFile)
		if err != nil {
			return nil, err
		}
		if n.global, err = readAuthValues(data); err != nil {
			return nil, fmt.Errorf("%s: not a docker config JSON with \"auths\"", authFile)
		}
		if n.facts.globalKeys, err = explain.AuthFileKeys(authFile); err != nil {
			return nil, err
		}
		n.facts.globalKnown = true
	}
	var names []string
	for _, s := range n.facts.secrets.Secrets {
		names = append(names, s.Secret)
	}
	access := "not checked whether it may list secrets (" + n.facts.access.Why + ")"
	if n.facts.access.Checked && n.facts.access.CanList {
		access = "may list secrets (SubjectAccessReview)"
	} else if n.facts.access.Checked {
		access = "may not list secrets (SubjectAccessReview): the plugin's list is refused, the global pull secret serves"
	}
	fmt.Fprintf(stderr, "namespace %s: dockerconfigjson secrets %s; service account %s %s\n", namespace, orNone(names), serviceAccount, access)
	for _, l := range n.facts.secrets.Left {
		fmt.Fprintf(stderr, "namespace %s: left out: %s\n", namespace, l)
	}
	return n, nil
}

// checkNamespaceFlag refuses --service-account without --namespace.
func (c *checkFlags) checkNamespaceFlag(cmd *cobra.Command) error {
	if cmd.Flags().Changed("service-account") && c.namespace == "" {
		return errors.New("--service-account needs --namespace")
	}
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// readAuthValues reads the "auths" of a docker config JSON as the plugin does: each key's "auth" decoded to
// user:password (keys whose "auth" is not base64 are left out, as the plugin skips them). The error says nothing
// of the data.
func readAuthValues(data []byte) (map[string]authValue, error) {
	var cfg struct {
		Auths map[string]struct {
			Auth string `json:"auth"`
		} `json:"auths"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("not a docker config JSON")
	}
	out := map[string]authValue{}
	for key, e := range cfg.Auths {
		decoded, err := base64.StdEncoding.DecodeString(e.Auth)
		if err != nil {
			continue
		}
		user, password, _ := strings.Cut(string(decoded), ":")
		out[key] = authValue{username: user, password: strings.Trim(password, "\x00")}
	}
	return out, nil
}

// credentialAt returns the credentials the pull of e uses at attempt i for a pod of the namespace, and whether the
// plugin's file decides them; when it does not (the image is not sent to the plugin, or its entry has no mirror),
// CRI-O uses the global pull secret and the caller looks there.
func (n *namespaceCreds) credentialAt(e *explain.Explanation, i int) (registryprobe.Credential, bool) {
	if n == nil {
		return registryprobe.Credential{}, false
	}
	nc := e.NamespaceCredentials
	if nc == nil || len(nc.Locations) == 0 {
		return registryprobe.Credential{}, false
	}
	for _, l := range nc.Locations {
		if l.Attempt != i {
			continue
		}
		switch {
		case l.Key == "":
			return registryprobe.Credential{}, true
		case l.Secret == "":
			v := n.global[l.Key]
			return registryprobe.Credential{Username: v.username, Password: v.password,
				From: fmt.Sprintf("the global pull secret's key %q, in the plugin's file for namespace %s", l.Key, n.namespace)}, true
		}
		written := l.Key
		if nc.Copy != nil {
			for _, c := range nc.Copy.Copied {
				if c.Key == l.Key && c.Secret == l.Secret {
					written = c.WrittenAs
				}
			}
		}
		v := n.secrets[l.Secret][written]
		return registryprobe.Credential{Username: v.username, Password: v.password,
			From: fmt.Sprintf("key %q of secret %q of namespace %s", l.Key, l.Secret, n.namespace)}, true
	}
	return registryprobe.Credential{}, true
}
