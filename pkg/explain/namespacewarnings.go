package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/containers/image/v5/docker/reference"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

// onPremiseNote names where the kubelet reads a provider file, for the warning of a platform where it does not.
const onPremiseNote = "MCO's kubelet unit is pointed at a provider file only on AWS, GCP and Azure (their own file) and, " +
	"through the drop-in " + credentialprovider.KubeletDropIn + ", on the on-premise platforms (BareMetal, OpenStack, VSphere, " +
	"Nutanix, oVirt) and in the arbiter pool"

// secretReaderRole is the name the suggested Role and RoleBinding get.
const secretReaderRole = "dockerconfigjson-reader"

// providerWarnings warns when the pool's kubelet never reads a provider file that has the plugin, and when a
// cloud provider runs for the image beside the plugin.
func (n *NamespaceCredentials) providerWarnings() []string {
	var out []string
	if n.HasPlugin && !n.KubeletReads {
		out = append(out, fmt.Sprintf("the kubelet of pool %s never reads %s on platform %s: %s; so no image is sent to %s, and the "+
			"secrets of namespace %s are never used for mirrors", n.Pool, n.ProviderFile, platformName(n.Platform), onPremiseNote,
			credentialprovider.PluginName, n.Namespace))
	}
	if cloud := n.cloudProviders(); n.Sent() && len(cloud) > 0 {
		out = append(out, fmt.Sprintf("%s also runs for %s and wins: it returns credentials, which the kubelet passes with the pull "+
			"(%s returns none), and they are used at the image's own host %s instead of any auth file; the namespace's keys serve only "+
			"the mirrors on other hosts; leave %q out of the CRIOCredentialProviderConfig if the cloud provider is meant to serve it",
			strings.Join(cloud, " and "), n.Image, credentialprovider.PluginName, reference.Domain(mustParse(n.Image)), n.PluginPattern))
	}
	return out
}

// accessWarnings warns when the service account may not list the namespace's secrets.
func (n *NamespaceCredentials) accessWarnings() []string {
	if !n.ServiceAccount.denied() {
		return nil
	}
	sa := n.ServiceAccount.Name
	return []string{fmt.Sprintf("service account %s/%s may not list secrets in namespace %s (SubjectAccessReview): %s lists the namespace's "+
		"kubernetes.io/dockerconfigjson secrets with the pod's service account token, is refused and writes no auth file, so the pull "+
		"uses the global pull secret alone; nothing grants it by default: kubectl create role %s -n %s --verb=list --resource=secrets && "+
		"kubectl create rolebinding %s -n %s --role=%s --serviceaccount=%s:%s",
		n.Namespace, sa, n.Namespace, credentialprovider.PluginName, secretReaderRole, n.Namespace, secretReaderRole, n.Namespace,
		secretReaderRole, n.Namespace, sa)}
}

// locationWarnings warns about each mirror the pull tries without credentials for the namespace's pods. Where the
// namespace's secrets are known and the plugin may list them, its file is what the pull uses at each mirror, so
// ExplainCredentials' warnings about the global pull secret's mirrors give way to these.
func (n *NamespaceCredentials) locationWarnings(e *Explanation) []string {
	var out []string
	for _, l := range n.Locations {
		a := e.Attempts[l.Attempt]
		if !l.Mirror || l.OnImageHost || !n.Secrets.Known() || n.ServiceAccount.denied() {
			continue
		}
		global := missingMirrorCredential(e, a)
		e.Warnings = slices.DeleteFunc(e.Warnings, func(w string) bool { return w == global })
		switch {
		case l.Secret != "" && l.Empty:
			out = append(out, fmt.Sprintf("mirror %q: key %q of secret %q holds no user name or password; %s copies it as it is, so "+
				"the attempt is anonymous and fails with 401 Unauthorized if the mirror requires authentication", a.Location, l.Key, l.Secret,
				credentialprovider.PluginName))
		case l.Key == "" && n.GlobalKnown:
			out = append(out, fmt.Sprintf("mirror %q: pods of namespace %s have no credentials for it: no key of the namespace's secrets "+
				"nor of the global pull secret serves %s; if the mirror requires authentication, the attempt fails with 401 Unauthorized "+
				"(\"authentication required\"); add a key %q, or a repository under it, to a kubernetes.io/dockerconfigjson secret of %s%s",
				a.Location, n.Namespace, l.Repository, reference.Domain(mustParse(l.Repository)), n.Namespace, n.prefixOnlyHint(a.Location)))
		}
	}
	return out
}

// prefixOnlyHint names the keys copied for location only because the plugin compares text: containers/image never
// uses them there.
func (n *NamespaceCredentials) prefixOnlyHint(location string) string {
	var keys []string
	for _, c := range n.Copy.Copied {
		if slices.Contains(c.Matches, location) {
			keys = append(keys, fmt.Sprintf("%q of secret %q", c.Key, c.Secret))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the plugin copies %s for it, a string prefix of %q, but containers/image looks keys up by repository and host "+
		"and does not use it there)", strings.Join(keys, " and "), location)
}

// platformName names a platform for people: "" is "None (no Infrastructure)".
func platformName(p configv1.PlatformType) string {
	if p == "" {
		return "None (no Infrastructure names one)"
	}
	return string(p)
}
