package explain

import (
	"fmt"
	"slices"

	"github.com/containers/image/v5/docker/reference"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// NamespaceInput is what ExplainNamespaceCredentials works from: the node files of one pool, the cluster's
// platform, and what is known of the namespace.
type NamespaceInput struct {
	// Namespace is the pod's namespace, e.g. "team-a".
	Namespace string
	// Pool is the pool whose files Files are, e.g. "worker": whether its kubelet reads the provider file depends
	// on it (credentialprovider.KubeletReadsProviderFile).
	Pool string
	// Platform is the cluster's platform, the Infrastructure's status.platformStatus.type ("" without one, as
	// None).
	Platform configv1.PlatformType
	// Files are the pool's node files, those of the credential providers output among them: the provider file
	// and the kubelet drop-in, as rendered or as the nodes run them.
	Files nodefiles.Files
	// Secrets are the namespace's dockerconfigjson secrets (SecretsOf), or why they are not known.
	Secrets NamespaceSecrets
	// GlobalKnown is true when GlobalKeys are the keys of the node's global pull secret (--authfile); the plugin
	// copies them all into its file, under the namespace's keys.
	GlobalKnown bool
	GlobalKeys  []string
	// ServiceAccount is the pods' service account and whether it may list secrets.
	ServiceAccount ServiceAccountAccess
}

// ServiceAccountAccess says whether a namespace's service account may list its secrets, which the plugin does
// with the pod's service account token. Nothing grants it by default.
//
//	ServiceAccountAccess{Name: "default", Checked: true, CanList: false}
//	ServiceAccountAccess{Name: "default", Why: "offline: there is no API server to ask"}
type ServiceAccountAccess struct {
	// Name is the service account's name, e.g. "default".
	Name string
	// Checked is true when a SubjectAccessReview answered; CanList is then its answer.
	Checked bool
	CanList bool
	// Why says why it was not checked, e.g. "you may not create SubjectAccessReviews (Forbidden)".
	Why string
}

// denied reports whether the service account is known to be refused the list.
func (a ServiceAccountAccess) denied() bool { return a.Checked && !a.CanList }

// NamespaceCredentials says which credentials a pull of the image by a pod of one namespace uses at each place
// it tries, through CRI-O's crio-credential-provider (docs/semantics.md §10.7). It names secrets and keys only.
type NamespaceCredentials struct {
	// Namespace and Pool are NamespaceInput's; Platform too.
	Namespace string
	Pool      string
	Platform  configv1.PlatformType
	// Image is what the kubelet matches against matchImages and sends to a provider: the reference's name
	// without tag or digest, e.g. "registry.example.com/team-a/app".
	Image string
	// ProviderFile is the provider file the platform's kubelet is pointed at, e.g.
	// "/etc/kubernetes/credential-providers/generic-credential-provider.yaml"; HasProviderFile says whether the
	// pool's files hold it.
	ProviderFile    string
	HasProviderFile bool
	// HasPlugin is true when that file has a crio-credential-provider entry.
	HasPlugin bool
	// KubeletReads is false when the pool's kubelet is never pointed at ProviderFile.
	KubeletReads bool
	// Providers are the providers of ProviderFile whose matchImages match Image, in file order: the kubelet runs
	// them all (credentialprovider.ProvidersFor).
	Providers []string
	// PluginPattern is the first crio-credential-provider matchImages entry that matches Image, "" when none does.
	PluginPattern string
	// Entry is the prefix of the registries.conf entry the plugin finds for Image, "" when none matches.
	Entry string
	// Mirrors are all the mirrors of that entry, in order: the plugin compares the secrets' keys with each,
	// whatever its pull-from-mirror says. Pull is the repository containers/image pulls there.
	Mirrors []credentialprovider.Mirror
	// Secrets and ServiceAccount are NamespaceInput's.
	Secrets        NamespaceSecrets
	ServiceAccount ServiceAccountAccess
	// GlobalKnown is true when the node's global pull secret's keys were given.
	GlobalKnown bool
	// AuthFile is the auth file the plugin writes for the pull, /etc/crio/auth/<namespace>-<sha256 of Image>.json.
	AuthFile string
	// Copy is the plugin's rule applied to the secrets: the keys it copies into AuthFile (nil when the plugin
	// does not run for the pull, or the entry has no mirror).
	Copy *credentialprovider.PluginAuth
	// NotCopied are the secrets' keys that neither a mirror location nor Image starts with, e.g.
	// `"quay.io" of secret "other"`; Replaced are keys a later one of the same name replaces.
	NotCopied []string
	Replaced  []string
	// Locations are the places the pull tries (the attempts that are not blocked), in order, with the credentials
	// each uses; empty when the plugin writes nothing for the pull (CRI-O then uses the global pull secret, as
	// ExplainCredentials says).
	Locations []LocationCredentials
}

// LocationCredentials is the credential one place of a pull uses when CRI-O pulls with the plugin's file.
type LocationCredentials struct {
	credentialprovider.PullAuth
	// Attempt is the place's index in Explanation.Attempts.
	Attempt int
	// OnImageHost is true for a place on the image's own registry host: there credentials the kubelet passes
	// with the pull (the pod's imagePullSecrets, a cloud provider's) win over any auth file; containers/image
	// never sends them to a mirror on another host.
	OnImageHost bool
}

// Sent reports whether the kubelet sends the image to crio-credential-provider: the pool's kubelet reads the
// provider file, and an entry of the plugin matches.
func (n *NamespaceCredentials) Sent() bool { return n.KubeletReads && n.PluginPattern != "" }

// replacesGlobal reports whether CRI-O pulls with the plugin's file instead of the global pull secret: the image is
// sent to the plugin, which finds mirrors and may list the secrets. A nil n does not.
func (n *NamespaceCredentials) replacesGlobal() bool {
	return n != nil && len(n.Locations) > 0 && !n.ServiceAccount.denied()
}

// ExplainNamespaceCredentials fills e.NamespaceCredentials: whether the kubelet sends the image to CRI-O's
// crio-credential-provider (the provider file of the platform in in.Files, with the kubelet's matching, and which
// other provider runs too), the mirrors the plugin takes (all of the registries.conf entry of cfg that governs
// the image), the keys of the namespace's secrets it copies (credentialprovider.PluginAuthKeys), and for each
// place the pull tries the key containers/image uses from the plugin's file. Call it after ExplainCredentials:
// its warning about a mirror without credentials in the global pull secret is dropped for a mirror a namespace
// key serves.
//
// It adds a warning when the pool's kubelet never reads the provider file, when a cloud provider runs for the
// image too, when the service account may not list secrets, and for each mirror without credentials.
func ExplainNamespaceCredentials(e *Explanation, cfg *registriesconf.Config, in NamespaceInput) error {
	image, err := credentialprovider.LookupName(e.Reference)
	if err != nil {
		return err
	}
	n := &NamespaceCredentials{
		Namespace: in.Namespace, Pool: in.Pool, Platform: in.Platform, Image: image,
		ProviderFile: credentialprovider.ProviderFile(in.Platform),
		Secrets:      in.Secrets, ServiceAccount: in.ServiceAccount, GlobalKnown: in.GlobalKnown,
		AuthFile: credentialprovider.PluginAuthFile(in.Namespace, image),
	}
	e.NamespaceCredentials = n
	if err := n.readProviderFile(in); err != nil {
		return err
	}
	if n.Entry, n.Mirrors, err = pluginMirrors(cfg, e.Reference, image); err != nil {
		return err
	}
	e.Warnings = append(e.Warnings, n.providerWarnings()...)
	if !n.Sent() || len(n.Mirrors) == 0 {
		return nil
	}
	copied := credentialprovider.PluginAuthKeys(credentialprovider.PluginInput{
		Image: image, Mirrors: n.Mirrors, Secrets: in.Secrets.Secrets, GlobalKeys: in.GlobalKeys,
	})
	n.Copy = &copied
	n.NotCopied, n.Replaced = leftOutKeys(in.Secrets.Secrets, copied)
	used := copied
	if in.ServiceAccount.denied() {
		// The plugin's list is refused: it writes no file, and CRI-O uses the global pull secret alone.
		used = credentialprovider.PluginAuthKeys(credentialprovider.PluginInput{Image: image, Mirrors: n.Mirrors, GlobalKeys: in.GlobalKeys})
	}
	if n.Locations, err = locations(e, image, used); err != nil {
		return err
	}
	e.Warnings = append(e.Warnings, n.accessWarnings()...)
	e.Warnings = append(e.Warnings, n.locationWarnings(e)...)
	return nil
}

// readProviderFile reads the platform's provider file from the pool's files: which providers the kubelet runs for
// the image, and whether it reads the file at all.
func (n *NamespaceCredentials) readProviderFile(in NamespaceInput) error {
	_, dropIn := in.Files.Get(credentialprovider.KubeletDropIn)
	n.KubeletReads = credentialprovider.KubeletReadsProviderFile(in.Platform, in.Pool, dropIn)
	data, ok := in.Files.Get(n.ProviderFile)
	if !ok {
		return nil
	}
	n.HasProviderFile = true
	providers, err := credentialprovider.Providers(data)
	if err != nil {
		return fmt.Errorf("%s: %w", n.ProviderFile, err)
	}
	n.Providers = credentialprovider.ProvidersFor(providers, n.Image)
	for _, p := range providers {
		if p.Name != credentialprovider.PluginName {
			continue
		}
		n.HasPlugin = true
		for _, m := range p.MatchImages {
			if n.PluginPattern == "" && credentialprovider.MatchImage(m, n.Image) {
				n.PluginPattern = m
			}
		}
	}
	return nil
}

// cloudProviders returns the providers other than the plugin that run for the image.
func (n *NamespaceCredentials) cloudProviders() []string {
	return slices.DeleteFunc(slices.Clone(n.Providers), func(p string) bool { return p == credentialprovider.PluginName })
}

// pluginMirrors returns the entry of cfg that governs image, as the plugin finds it (the longest prefix), and
// all its mirrors in order, each with the repository a pull of ref gets there: containers/image's rewrite,
// computed as if every mirror served every pull.
func pluginMirrors(cfg *registriesconf.Config, ref, image string) (string, []credentialprovider.Mirror, error) {
	reg, err := cfg.FindRegistry(image)
	if err != nil || reg == nil || len(reg.Mirrors) == 0 {
		if reg != nil {
			return reg.Prefix, nil, err
		}
		return "", nil, err
	}
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return "", nil, err
	}
	every := *reg
	every.MirrorByDigestOnly = false
	every.Mirrors = slices.Clone(reg.Mirrors)
	for i := range every.Mirrors {
		every.Mirrors[i].PullFromMirror = ""
	}
	sources, err := every.PullSourcesFromReference(named)
	if err != nil {
		return "", nil, fmt.Errorf("containers/image cannot compute the mirrors of %s: %w", image, err)
	}
	if len(sources) != len(reg.Mirrors)+1 {
		return "", nil, fmt.Errorf("containers/image gave %d pull sources for the %d mirrors of %q", len(sources), len(reg.Mirrors), reg.Prefix)
	}
	mirrors := make([]credentialprovider.Mirror, len(reg.Mirrors))
	for i, m := range reg.Mirrors {
		mirrors[i] = credentialprovider.Mirror{Location: m.Location, Pull: sources[i].Reference.Name()}
	}
	return reg.Prefix, mirrors, nil
}

// leftOutKeys returns the secrets' keys the plugin does not copy, because no location starts with them, and
// those it copies but a later key of the same name replaces.
func leftOutKeys(secrets []credentialprovider.SecretAuths, copied credentialprovider.PluginAuth) (notCopied, replaced []string) {
	for _, s := range secrets {
		for _, k := range s.Keys {
			key := credentialprovider.PluginKey(k.Key)
			i := slices.IndexFunc(copied.Copied, func(c credentialprovider.CopiedKey) bool { return c.Key == key })
			switch {
			case i < 0:
				notCopied = append(notCopied, fmt.Sprintf("%q of secret %q", k.Key, s.Secret))
			case copied.Copied[i].Secret != s.Secret || copied.Copied[i].WrittenAs != k.Key:
				replaced = append(replaced, fmt.Sprintf("%q of secret %q, replaced by %q of secret %q", k.Key, s.Secret, copied.Copied[i].WrittenAs, copied.Copied[i].Secret))
			}
		}
	}
	return notCopied, replaced
}

// locations returns, for each attempt of e that is not blocked, the credential it uses from the plugin's file.
func locations(e *Explanation, image string, auth credentialprovider.PluginAuth) ([]LocationCredentials, error) {
	imageHost := reference.Domain(mustParse(image))
	var out []LocationCredentials
	for i, a := range e.Attempts {
		if a.Blocked {
			continue
		}
		named, err := reference.ParseNormalizedNamed(a.Reference)
		if err != nil {
			return nil, err
		}
		j := slices.IndexFunc(auth.Pulls, func(p credentialprovider.PullAuth) bool {
			return p.Mirror == !a.Primary && (a.Primary || p.Repository == named.Name())
		})
		if j < 0 {
			return nil, fmt.Errorf("explain: attempt %s is not among the plugin's locations", a.Reference)
		}
		out = append(out, LocationCredentials{PullAuth: auth.Pulls[j], Attempt: i, OnImageHost: reference.Domain(named) == imageHost})
	}
	return out, nil
}
