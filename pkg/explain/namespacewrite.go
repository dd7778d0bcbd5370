package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

// write prints the namespace's credentials, e.g.:
//
//	credentials for pods of namespace team-a (CRI-O's crio-credential-provider):
//	  provider file: /etc/kubernetes/credential-providers/generic-credential-provider.yaml (platform BareMetal), read by the kubelet of pool worker
//	  sent to crio-credential-provider: registry.example.com/team-a/app matches its matchImages entry "registry.example.com"
//	  mirrors the plugin takes, all of entry "registry.example.com/team-a", whatever pull-from-mirror says:
//	    1. mirror.example.com/team-a
//	  secrets of team-a (kubernetes.io/dockerconfigjson, from secrets.yaml): mirror-pull
//	  service account team-a/default: not checked whether it may list secrets (offline: there is no API server to ask); …
//	  the plugin writes /etc/crio/auth/team-a-….json: the global pull secret's keys (not known: give --authfile), and over them:
//	    "mirror.example.com" of secret "mirror-pull" (written "https://mirror.example.com"), a string prefix of mirror.example.com/team-a
//	  credentials each place uses (CRI-O pulls with that file as its only auth file):
//	    1. mirror.example.com/team-a/app: key "mirror.example.com" of secret "mirror-pull"
//	    2. registry.example.com/team-a/app: no key of the namespace's; …
//
// A nil n prints nothing.
func (n *NamespaceCredentials) write(p *printer) {
	if n == nil {
		return
	}
	p.line("credentials for pods of namespace %s (CRI-O's %s):", n.Namespace, credentialprovider.PluginName)
	n.writeProvider(p)
	if !n.Sent() {
		p.line("  the namespace's secrets are not used: every place uses the global pull secret (CRI-O's global_auth_file)")
		return
	}
	if !n.writeMirrors(p) {
		return
	}
	n.writeSecrets(p)
	n.writeCopied(p)
	n.writeLocations(p)
}

// writeProvider says which provider file the kubelet reads and whether the image is sent to the plugin.
func (n *NamespaceCredentials) writeProvider(p *printer) {
	where := fmt.Sprintf("%s (platform %s)", n.ProviderFile, platformName(n.Platform))
	switch {
	case !n.HasProviderFile:
		p.line("  provider file: %s: not in the files of pool %s, so no image is sent to %s", where, n.Pool, credentialprovider.PluginName)
	case !n.KubeletReads:
		p.line("  provider file: %s: the kubelet of pool %s never reads it", where, n.Pool)
	default:
		p.line("  provider file: %s, read by the kubelet of pool %s", where, n.Pool)
	}
	switch {
	case !n.HasProviderFile:
	case n.PluginPattern != "" && n.KubeletReads:
		p.line("  sent to %s: %s matches its matchImages entry %q", credentialprovider.PluginName, n.Image, n.PluginPattern)
	case n.PluginPattern != "":
		p.line("  not sent to %s: %s matches its matchImages entry %q, but the kubelet never reads the file", credentialprovider.PluginName, n.Image, n.PluginPattern)
	case n.HasPlugin:
		p.line("  not sent to %s: no entry of its matchImages matches %s", credentialprovider.PluginName, n.Image)
	default:
		p.line("  not sent to %s: the file has no entry for it", credentialprovider.PluginName)
	}
	if cloud := n.cloudProviders(); len(cloud) > 0 {
		p.line("  also run for it: %s, whose credentials the kubelet passes with the pull", strings.Join(cloud, ", "))
	}
}

// writeMirrors lists the mirrors the plugin takes; false when there is none, so that it writes no file.
func (n *NamespaceCredentials) writeMirrors(p *printer) bool {
	switch {
	case n.Entry == "":
		p.line("  mirrors: none, no registries.conf entry governs %s: the plugin writes no auth file, and every place uses the global pull secret", n.Image)
		return false
	case len(n.Mirrors) == 0:
		p.line("  mirrors: none in entry %q: the plugin writes no auth file, and every place uses the global pull secret", n.Entry)
		return false
	}
	p.line("  mirrors the plugin takes, all of entry %q, whatever pull-from-mirror says:", n.Entry)
	for i, m := range n.Mirrors {
		tried := slices.ContainsFunc(n.Locations, func(l LocationCredentials) bool { return l.Mirror && l.Repository == m.Pull })
		note := ""
		if !tried {
			note = " (this pull does not try it)"
		}
		p.line("    %d. %s%s", i+1, m.Location, note)
	}
	return true
}

// writeSecrets names the secrets read and says whether the service account may list them.
func (n *NamespaceCredentials) writeSecrets(p *printer) {
	s := n.Secrets
	if !s.Known() {
		p.line("  secrets of %s: not known: %s", n.Namespace, s.Unknown)
	} else {
		names := make([]string, len(s.Secrets))
		for i, sec := range s.Secrets {
			names[i] = sec.Secret
		}
		list := strings.Join(names, ", ")
		if len(names) == 0 {
			list = "none"
		}
		p.line("  secrets of %s (kubernetes.io/dockerconfigjson, from %s): %s", n.Namespace, s.From, list)
	}
	for _, l := range s.Left {
		p.line("    left out: %s", l)
	}
	sa := n.ServiceAccount
	switch {
	case sa.Checked && sa.CanList:
		p.line("  service account %s/%s: may list secrets (SubjectAccessReview), as the plugin needs", n.Namespace, sa.Name)
	case sa.Checked:
		p.line("  service account %s/%s: may not list secrets (SubjectAccessReview): the plugin's list is refused", n.Namespace, sa.Name)
	default:
		p.line("  service account %s/%s: not checked whether it may list secrets (%s); the plugin needs it, and nothing grants it by default",
			n.Namespace, sa.Name, sa.Why)
	}
}

// writeCopied lists the keys the plugin copies into its file, and those it leaves out.
func (n *NamespaceCredentials) writeCopied(p *printer) {
	global := "the global pull secret's keys"
	if !n.GlobalKnown {
		global += " (not known: give --authfile)"
	}
	if n.ServiceAccount.denied() {
		p.line("  keys the plugin would copy into %s, over %s, once the service account may list secrets:", n.AuthFile, global)
	} else {
		p.line("  the plugin writes %s: %s, and over them:", n.AuthFile, global)
	}
	switch {
	case !n.Secrets.Known():
		p.line("    the namespace's keys, which are not known")
	case len(n.Copy.Copied) == 0:
		p.line("    no key of the namespace's secrets")
	}
	for _, c := range n.Copy.Copied {
		p.line("    %s", n.describeCopied(c))
	}
	if len(n.NotCopied) > 0 {
		p.line("  not copied, since no mirror location nor the image starts with it: %s", strings.Join(n.NotCopied, ", "))
	}
	for _, r := range n.Replaced {
		p.line("  not copied: %s", r)
	}
}

// describeCopied says why the plugin copies c, and flags a key containers/image uses for no place of the pull.
func (n *NamespaceCredentials) describeCopied(c credentialprovider.CopiedKey) string {
	s := fmt.Sprintf("%q of secret %q", c.Key, c.Secret)
	if c.WrittenAs != c.Key {
		s += fmt.Sprintf(" (written %q)", c.WrittenAs)
	}
	if c.Empty {
		s += ", holding no user name or password"
	}
	s += ", a string prefix of " + strings.Join(c.Matches, " and ")
	used := slices.ContainsFunc(n.Locations, func(l LocationCredentials) bool { return slices.Contains(c.UsedBy, l.Repository) })
	switch {
	case len(c.UsedBy) == 0:
		s += ": a match of the plugin's plain string-prefix rule only; containers/image looks keys up by repository and host, and uses it for none of them"
	case !used:
		s += ": used only at mirrors this pull does not try"
	}
	return s
}

// writeLocations says which credential each place the pull tries uses.
func (n *NamespaceCredentials) writeLocations(p *printer) {
	if n.ServiceAccount.denied() {
		p.line("  credentials each place uses (the plugin writes no file: CRI-O uses the global pull secret):")
	} else {
		p.line("  credentials each place uses (CRI-O pulls with that file as its only auth file):")
	}
	for _, l := range n.Locations {
		p.line("    %d. %s: %s", l.Attempt+1, l.Repository, n.describeLocation(l))
	}
}

// describeLocation says which credential a place uses.
func (n *NamespaceCredentials) describeLocation(l LocationCredentials) string {
	var s string
	switch {
	case l.Secret != "" && l.Empty:
		s = fmt.Sprintf("key %q of secret %q, which holds no user name or password: anonymous", l.Key, l.Secret)
	case l.Secret != "":
		s = fmt.Sprintf("key %q of secret %q", l.Key, l.Secret)
	case l.Key != "":
		s = fmt.Sprintf("the global pull secret's key %q", l.Key)
	case !n.GlobalKnown:
		s = "the global pull secret's entry for it, if it has one (its keys are not known: give --authfile)"
	default:
		s = "none: anonymous"
	}
	if l.Secret == "" && !n.Secrets.Known() && !n.ServiceAccount.denied() {
		s = "a key of the namespace's secrets, if one serves it (they are not known); else " + s
	} else if l.Secret == "" && !n.ServiceAccount.denied() {
		s = "no key of the namespace's secrets; " + s
	}
	if l.OnImageHost {
		passed := "the pod's imagePullSecrets"
		if cloud := n.cloudProviders(); len(cloud) > 0 {
			passed = strings.Join(cloud, ", ") + "'s and " + passed
		}
		s += "; credentials passed with the pull (" + passed + ") win here"
	}
	return s
}
