package credentialprovider

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Values of the kubelet's credential provider configuration API that Render writes.
const (
	configAPIVersion   = "kubelet.config.k8s.io/v1"
	configKind         = "CredentialProviderConfig"
	providerAPIVersion = "credentialprovider.kubelet.k8s.io/v1"

	// pluginTokenAudience is the audience of the pod service account token the kubelet passes to the plugin,
	// which the plugin uses to list the pod namespace's pull secrets.
	pluginTokenAudience = "https://kubernetes.default.svc"
	// pluginTokenCacheType makes the kubelet key its cache of the plugin's answers by the token too.
	pluginTokenCacheType = "Token"
)

// pluginCacheDuration is the crio-credential-provider entry's defaultCacheDuration (written "1s"). The plugin
// returns no credentials and no cache duration, so the kubelet remembers for this long, per registry, that it
// ran the plugin, and does not run it again for another image of that registry in that second.
const pluginCacheDuration = time.Second

// providerConfig is a kubelet CredentialProviderConfig (kubelet.config.k8s.io/v1) with the fields MCO keeps
// when it rewrites a provider file. Keys it does not know (env among them) are dropped when a file is read.
type providerConfig struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Providers  []providerEntry `json:"providers"`
}

// providerEntry is one provider of a providerConfig: the plugin binary named Name runs for images matching
// one of MatchImages.
type providerEntry struct {
	Name                 string           `json:"name"`
	MatchImages          []string         `json:"matchImages"`
	DefaultCacheDuration *metav1.Duration `json:"defaultCacheDuration,omitempty"`
	APIVersion           string           `json:"apiVersion"`
	Args                 []string         `json:"args,omitempty"`
	TokenAttributes      *tokenAttributes `json:"tokenAttributes,omitempty"`
}

// tokenAttributes asks the kubelet to pass the pod's service account token to the plugin.
type tokenAttributes struct {
	ServiceAccountTokenAudience          string   `json:"serviceAccountTokenAudience"`
	CacheType                            string   `json:"cacheType"`
	RequireServiceAccount                *bool    `json:"requireServiceAccount,omitempty"`
	RequiredServiceAccountAnnotationKeys []string `json:"requiredServiceAccountAnnotationKeys,omitempty"`
	OptionalServiceAccountAnnotationKeys []string `json:"optionalServiceAccountAnnotationKeys,omitempty"`
}

// parseProviderConfig reads a provider file as MCO does: apiVersion and kind default to the kubelet's v1
// values, the YAML is converted to JSON and decoded leniently. Nil data gives the defaults with no provider.
func parseProviderConfig(data []byte) (*providerConfig, error) {
	cfg := &providerConfig{APIVersion: configAPIVersion, Kind: configKind}
	if data == nil {
		return cfg, nil
	}
	if err := yaml.Unmarshal(data, cfg); err != nil {
		return nil, fmt.Errorf("error unmarshalling credential provider config: %w", err)
	}
	return cfg, nil
}

// marshal serialises cfg as MCO does (struct to JSON to YAML): keys sorted at every level, sequences not
// indented below their key, durations normalised ("12h0m0s"), strings quoted only where YAML would read them
// as something else.
func (cfg *providerConfig) marshal() ([]byte, error) {
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("could not marshal credential provider config: %w", err)
	}
	return data, nil
}

// pluginEntry returns the provider entry for CRI-O's plugin serving images.
func pluginEntry(images []string) providerEntry {
	requireServiceAccount := false
	return providerEntry{
		Name:                 PluginName,
		MatchImages:          images,
		DefaultCacheDuration: &metav1.Duration{Duration: pluginCacheDuration},
		APIVersion:           providerAPIVersion,
		TokenAttributes: &tokenAttributes{
			ServiceAccountTokenAudience: pluginTokenAudience,
			CacheType:                   pluginTokenCacheType,
			RequireServiceAccount:       &requireServiceAccount,
		},
	}
}
