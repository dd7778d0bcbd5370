package credentialprovider

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"

	"github.com/distribution/reference"
)

// LookupName returns the name the kubelet matches against matchImages and sends to a credential provider for
// a pod's image: the normalised repository, without tag or digest. Docker Hub images get their full name. It
// parses with the kubelet's library (github.com/distribution/reference), not containers/image's older copy,
// which differs: "UPPER/app" is a repository on the host "UPPER" here, an error there.
//
//	LookupName("nginx")                             // "docker.io/library/nginx"
//	LookupName("quay.io/team/app:v1")               // "quay.io/team/app"
//	LookupName("mirror.local:5000/app@sha256:...")  // "mirror.local:5000/app"
func LookupName(image string) (string, error) {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return "", fmt.Errorf("couldn't parse image name %q: %w", image, err)
	}
	return named.Name(), nil
}

// MatchImage reports whether the kubelet runs a credential provider with the matchImages entry pattern for
// image (a LookupName), with the kubelet's own rules (k8s.io/kubernetes pkg/credentialprovider URLsMatch):
//
//   - the hosts have the same number of "."-separated labels, and each label of pattern matches the label of
//     image as a glob: "*" is one whole label, also as the top-level domain ("k8s.*" matches "k8s.io");
//   - the ports are equal: a pattern without a port does not match an image with one, and the reverse;
//   - the path of pattern is a string prefix of the path of image: "registry.io/team" matches
//     "registry.io/team/app" but also "registry.io/teammates/app".
//
// Anything Go's URL parser refuses matches nothing, as in the kubelet.
//
//	MatchImage("*.azurecr.io", "myreg.azurecr.io/app")        // true
//	MatchImage("*.azurecr.io", "a.myreg.azurecr.io/app")      // false: 4 labels, not 3
//	MatchImage("gcr.io", "gcr.io:443/project/app")            // false: the port differs
//	MatchImage("registry.io:8080/path", "registry.io:8080/pathology/app") // true
func MatchImage(pattern, image string) bool {
	glob, err := parseSchemeless(pattern)
	if err != nil {
		return false
	}
	target, err := parseSchemeless(image)
	if err != nil {
		return false
	}
	globLabels, globPort := splitHost(glob)
	targetLabels, targetPort := splitHost(target)
	if globPort != targetPort || len(globLabels) != len(targetLabels) || !strings.HasPrefix(target.Path, glob.Path) {
		return false
	}
	for i, label := range globLabels {
		if matched, err := path.Match(label, targetLabels[i]); err != nil || !matched {
			return false
		}
	}
	return true
}

// parseSchemeless parses s as an https URL, as the kubelet parses matchImages and images.
func parseSchemeless(s string) (*url.URL, error) {
	return url.Parse("https://" + s)
}

// splitHost returns the labels of u's host and its port ("" without one).
func splitHost(u *url.URL) (labels []string, port string) {
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, port = u.Host, ""
	}
	return strings.Split(host, "."), port
}

// Provider is one entry of a kubelet credential provider file: the kubelet runs the plugin binary Name for
// each image matching one of MatchImages.
//
//	Provider{Name: "ecr-credential-provider", MatchImages: []string{"*.dkr.ecr.*.amazonaws.com", ...}}
type Provider struct {
	// Name is the provider's name, which is also its binary in the kubelet's plugin directory, e.g.
	// "crio-credential-provider" (PluginName).
	Name string
	// MatchImages are its patterns, as MatchImage reads them, in file order.
	MatchImages []string
}

// Providers reads a kubelet credential provider file, as Render writes it or as found on a node, and returns
// its providers in file order. Keys it does not model are ignored.
//
//	Providers(ecrFileWithPlugin) // [{ecr-credential-provider [*.dkr.ecr.*.amazonaws.com ...]} {crio-credential-provider [quay.io]}]
func Providers(file []byte) ([]Provider, error) {
	cfg, err := parseProviderConfig(file)
	if err != nil {
		return nil, err
	}
	out := make([]Provider, len(cfg.Providers))
	for i, p := range cfg.Providers {
		out[i] = Provider{Name: p.Name, MatchImages: p.MatchImages}
	}
	return out, nil
}

// ProvidersFor returns the names of the providers the kubelet runs for image (a LookupName), in file order:
// every provider with a matchImages entry that matches (MatchImage), not only the first.
//
// The kubelet runs all of them, one after the other, and offers CRI-O every credential they return. CRI-O's
// plugin returns none (it writes the per-pull auth file instead), so when a cloud provider matches too, the
// cloud provider's credentials are the ones the kubelet passes with the pull; that is the API's "built-in
// providers take precedence". The plugin still runs and still writes its auth file.
//
//	ProvidersFor(aws, "123456789012.dkr.ecr.us-east-1.amazonaws.com/app") // ["ecr-credential-provider", "crio-credential-provider"] when the spec lists that registry
func ProvidersFor(providers []Provider, image string) []string {
	var out []string
	for _, p := range providers {
		for _, m := range p.MatchImages {
			if MatchImage(m, image) {
				out = append(out, p.Name)
				break
			}
		}
	}
	return out
}
