package credentialprovider

import (
	"fmt"
	"regexp"
	"strings"
)

// KindName is the kind as written in YAML and in problems: CRIOCredentialProviderConfig "cluster".
const KindName = "CRIOCredentialProviderConfig"

// SingletonName is the one name the API accepts for the object, and the only one MCO reads.
const SingletonName = "cluster"

// The messages of the CRD's CEL rules (config.openshift.io/v1, openshift/api
// types_crio_credential_provider_config.go), by which FixHint recognises them. The rules themselves are the
// API server's to apply (pkg/crdvalidation offline); this package never judges by them.
const (
	singletonMessage      = "criocredentialproviderconfig is a singleton, .metadata.name must be 'cluster'"
	globalWildcardMessage = "global wildcard '*' is not allowed"
	invalidPatternMessage = "invalid matchImages value, must be a valid fully qualified domain name in lowercase with optional wildcard, port, and path"
)

// matchImagePattern is the CRD's CEL pattern for a matchImages entry, used only to check that the form FixHint
// suggests is one the rule accepts.
var matchImagePattern = regexp.MustCompile(`^((\*|[a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.(\*|[a-z0-9]([a-z0-9-]*[a-z0-9])?))*)(:[0-9]+)?(/[-a-z0-9._/]*)?$`)

// patternForm says how a matchImages entry is written.
const patternForm = `write it as host[:port][/path] in lowercase, with "*" only as a whole host label, e.g. "*.example.com", "k8s.*" or "registry.example.com:5000/team"`

// FixHint returns the project's advice on a problem the API server reports by the CRD's rules on a
// CRIOCredentialProviderConfig (field is its path, value the refused value as the API server prints it, message
// the rule's message), "" when it has none. For the entry "Registry.COM" of spec.matchImages[0], refused by the
// pattern rule: `write it as "registry.com"`.
func FixHint(field, value, message string) string {
	switch {
	case strings.Contains(message, singletonMessage):
		return fmt.Sprintf("name the object %q: no other name is read", SingletonName)
	case strings.Contains(message, globalWildcardMessage):
		return `name the registries, e.g. "*.example.com" or "k8s.*"; the kubelet would send every image to the plugin`
	case strings.Contains(message, invalidPatternMessage):
		return patternFix(value)
	case strings.HasPrefix(field, "spec.matchImages[") && strings.Contains(message, "Duplicate value"):
		return "remove the repeated entry: the list is a set"
	}
	return ""
}

// patternFix suggests how to write a matchImages entry v that the CEL rule refuses: the entry without a scheme,
// trailing slashes or capitals when the rule accepts that, otherwise the form.
func patternFix(v string) string {
	fixed := v
	if i := strings.Index(fixed, "://"); i >= 0 {
		fixed = fixed[i+3:]
	}
	fixed = strings.ToLower(strings.TrimRight(fixed, "/"))
	if fixed != "" && matchImagePattern.MatchString(fixed) {
		return fmt.Sprintf("write it as %q", fixed)
	}
	return patternForm
}
