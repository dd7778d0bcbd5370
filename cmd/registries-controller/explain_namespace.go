package main

import (
	"context"
	"errors"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// defaultServiceAccount is the service account a pod runs as when it names none.
const defaultServiceAccount = "default"

// notCheckedOffline is why the service account's access is not checked without a cluster.
const notCheckedOffline = "offline: there is no API server to ask"

// namespaceFacts is what explain --namespace knows of the pods' namespace besides the node files: the pool and
// platform, the namespace's dockerconfigjson secrets (names and keys), the service account's access, and the keys
// of the node's global pull secret.
type namespaceFacts struct {
	pool        string
	platform    configv1.PlatformType
	secrets     explain.NamespaceSecrets
	access      explain.ServiceAccountAccess
	globalKnown bool
	globalKeys  []string
}

// input returns the input of explain.ExplainNamespaceCredentials for files, the pool's node files.
func (f *namespaceFacts) input(namespace string, files nodefiles.Files) explain.NamespaceInput {
	return explain.NamespaceInput{
		Namespace: namespace, Pool: f.pool, Platform: f.platform, Files: files,
		Secrets: f.secrets, ServiceAccount: f.access, GlobalKnown: f.globalKnown, GlobalKeys: f.globalKeys,
	}
}

// checkNamespaceFlags refuses the flags about a namespace's pods without --namespace.
func (o *explainOptions) checkNamespaceFlags(serviceAccountGiven bool) error {
	switch {
	case o.filename != "" && o.namespace == "":
		return errors.New("-f/--filename (the namespace's secrets) needs --namespace")
	case serviceAccountGiven && o.namespace == "":
		return errors.New("--service-account needs --namespace")
	}
	return nil
}

// offlineNamespace reads what is known of the namespace without a cluster: the secrets of -f, and the global pull
// secret's keys of --authfile.
func (o *explainOptions) offlineNamespace(pool string, platform configv1.PlatformType) (*namespaceFacts, error) {
	f := &namespaceFacts{pool: pool, platform: platform,
		access: explain.ServiceAccountAccess{Name: o.serviceAccount, Why: notCheckedOffline}}
	if o.filename == "" {
		f.secrets = explain.NamespaceSecrets{Unknown: "none given: pass them with -f (e.g. kubectl get secret -n " + o.namespace + " -o yaml > secrets.yaml)"}
	} else {
		secrets, err := inputfiles.ReadSecrets(o.filename)
		if err != nil {
			return nil, err
		}
		f.secrets = explain.SecretsOf(o.namespace, o.filename, secrets)
	}
	return f, o.readGlobalKeys(f)
}

// liveNamespace reads what is known of the namespace from the cluster: its dockerconfigjson secrets (unknown when
// the caller may not list them) and, with a SubjectAccessReview, whether the service account may list them.
func (o *explainOptions) liveNamespace(ctx context.Context, cfg *rest.Config, pool string, platform configv1.PlatformType) (*namespaceFacts, error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	f := &namespaceFacts{pool: pool, platform: platform}
	if f.secrets, err = explain.ListNamespaceSecrets(ctx, client, o.namespace); err != nil {
		return nil, err
	}
	if f.access, err = explain.CheckServiceAccount(ctx, client, o.namespace, o.serviceAccount); err != nil {
		return nil, err
	}
	return f, o.readGlobalKeys(f)
}

// readGlobalKeys reads the keys of --authfile, the node's global pull secret, when given.
func (o *explainOptions) readGlobalKeys(f *namespaceFacts) error {
	if o.authFile == "" {
		return nil
	}
	keys, err := explain.AuthFileKeys(o.authFile)
	if err != nil {
		return err
	}
	f.globalKnown, f.globalKeys = true, keys
	return nil
}
