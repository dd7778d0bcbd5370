package credentialprovider

import (
	"fmt"
	"slices"

	configv1 "github.com/openshift/api/config/v1"
	refregistries "github.com/openshift/runtime-utils/pkg/registries"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Result is what Render produces for the nodes of one platform.
//
// For matchImages ["example.com"] on platform None:
//
//	Files:       /etc/kubernetes/credential-providers/generic-credential-provider.yaml, then KubeletDropIn
//	MatchImages: ["example.com"]
//	Skipped:     nil
type Result struct {
	// Files are the node files, in MCO's order: the platform's provider file (see ProviderFile), then, on
	// platforms without a cloud provider, KubeletDropIn. Empty when the object lists no matchImages, or when
	// every one of them was skipped: the node then keeps its base provider file, or has none.
	Files nodefiles.Files
	// MatchImages are the crio-credential-provider entry's matchImages as written: the spec's entries that
	// survive the overlap rule, deduplicated and sorted byte-wise ("*" before digits before letters), e.g.
	// ["*.example.io", "docker.io", "quay.io"]. Nil when no file is written.
	MatchImages []string
	// Skipped are the spec's entries left out because they overlap a matchImages entry of the platform's
	// cloud provider (see Overlaps), deduplicated and sorted byte-wise, e.g. ["*.gcr.io", "gcr.io"] on GCP.
	// The Validated condition names them.
	Skipped []string
}

// RenderProviders returns the node files MCO's container-runtime-config controller writes for cfg on platform
// (Infrastructure "cluster" status.platformStatus.type), byte for byte:
//
//   - a nil cfg, a nil spec or no matchImages: no file;
//   - on AWS, GCP and Azure: the cloud provider's file (see ProviderFile) with a crio-credential-provider
//     entry appended, after leaving out the entries that overlap the cloud provider's matchImages (Skipped);
//   - on every other platform: the generic file holding only the crio-credential-provider entry, then
//     KubeletDropIn pointing the kubelet at it;
//   - when every entry overlaps: no file at all, not even the cloud provider's own (MCO's behaviour; the node
//     then keeps the copy its base MachineConfig writes).
//
// Render does not validate cfg: Problems reports what the API server would refuse. It fails only on such
// input (an entry with a control character, which YAML cannot carry: MCO fails the same way), never on an
// object the API server accepts.
//
// For matchImages ["example.com"] on AWS the provider file is:
//
//	apiVersion: kubelet.config.k8s.io/v1
//	kind: CredentialProviderConfig
//	providers:
//	- apiVersion: credentialprovider.kubelet.k8s.io/v1
//	  defaultCacheDuration: 12h0m0s
//	  matchImages:
//	  - '*.dkr.ecr.*.amazonaws.com'
//	  ...
//	  name: ecr-credential-provider
//	- apiVersion: credentialprovider.kubelet.k8s.io/v1
//	  defaultCacheDuration: 1s
//	  matchImages:
//	  - example.com
//	  name: crio-credential-provider
//	  tokenAttributes:
//	    cacheType: Token
//	    requireServiceAccount: false
//	    serviceAccountTokenAudience: https://kubernetes.default.svc
func RenderProviders(cfg *configv1.CRIOCredentialProviderConfig, platform configv1.PlatformType) (*Result, error) {
	images := specImages(cfg)
	if len(images) == 0 {
		return &Result{}, nil
	}
	data, survivors, skipped, err := mergeMatchImages(platformTemplate(platform), images)
	if err != nil {
		return nil, fmt.Errorf("could not generate CRIOCredentialProvider config for platform %q: %w", platform, err)
	}
	res := &Result{Skipped: skipped}
	if data == nil {
		return res, nil
	}
	res.MatchImages = survivors
	res.Files = nodefiles.Files{{Path: ProviderFile(platform), Data: data}}
	if !HasCloudProvider(platform) {
		res.Files = append(res.Files, nodefiles.File{Path: KubeletDropIn, Data: []byte(kubeletDropInContent)})
	}
	return res, nil
}

// specImages returns cfg's matchImages as strings, nil for a nil object or spec.
func specImages(cfg *configv1.CRIOCredentialProviderConfig) []string {
	if cfg == nil || cfg.Spec == nil {
		return nil
	}
	images := make([]string, len(cfg.Spec.MatchImages))
	for i, m := range cfg.Spec.MatchImages {
		images[i] = string(m)
	}
	return images
}

// Overlaps reports whether a matchImages entry of the spec and one of a cloud provider overlap by MCO's rule:
// one is nested inside the other as registries.conf scopes are (runtime-utils ScopeIsNestedInsideScope), that
// is, they are equal, or one is the other followed by "/" and more, or one starts with "*." and the host of
// the other ends with the rest of it. Only a leading "*." is understood; a "*" further in compares literally.
//
//	Overlaps("*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com")                        // true
//	Overlaps("gcr.io/foo", "gcr.io")                                                 // true
//	Overlaps("123456789012.dkr.ecr.us-east-1.amazonaws.com", "*.dkr.ecr.*.amazonaws.com") // false, though the kubelet matches it
//	Overlaps("gcr.io:443", "gcr.io")                                                 // false
func Overlaps(image, existing string) bool {
	return refregistries.ScopeIsNestedInsideScope(image, existing) || refregistries.ScopeIsNestedInsideScope(existing, image)
}

// mergeMatchImages adds images to the provider file base (nil: none) as MCO's updateCredentialProviderConfig
// does. Every image that overlaps a matchImages entry of a provider other than crio-credential-provider is
// skipped. The others, deduplicated and sorted, replace the matchImages of an existing
// crio-credential-provider entry (keeping its other fields), or become a new entry appended after the others.
// It returns the serialised file, the survivors and the skipped images (both sorted); data is nil when every
// image was skipped.
func mergeMatchImages(base []byte, images []string) (data []byte, survivors, skipped []string, err error) {
	cfg, err := parseProviderConfig(base)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, img := range images {
		if overlapsProvider(cfg, img) {
			skipped = append(skipped, img)
		} else {
			survivors = append(survivors, img)
		}
	}
	skipped, survivors = sortedSet(skipped), sortedSet(survivors)
	if len(survivors) == 0 {
		return nil, nil, skipped, nil
	}
	if i := slices.IndexFunc(cfg.Providers, func(p providerEntry) bool { return p.Name == PluginName }); i >= 0 {
		cfg.Providers[i].MatchImages = survivors
	} else {
		cfg.Providers = append(cfg.Providers, pluginEntry(survivors))
	}
	data, err = cfg.marshal()
	if err != nil {
		return nil, nil, nil, err
	}
	return data, survivors, skipped, nil
}

// overlapsProvider reports whether img overlaps a matchImages entry of a provider of cfg other than
// crio-credential-provider.
func overlapsProvider(cfg *providerConfig, img string) bool {
	for _, p := range cfg.Providers {
		if p.Name == PluginName {
			continue
		}
		for _, existing := range p.MatchImages {
			if Overlaps(img, existing) {
				return true
			}
		}
	}
	return false
}

// sortedSet returns the distinct values of s in byte order, nil when s is empty.
func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}
