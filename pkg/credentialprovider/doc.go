// Package credentialprovider renders the kubelet credential provider configuration that a
// CRIOCredentialProviderConfig (config.openshift.io/v1, the singleton "cluster") asks for, byte for byte as the
// machine-config-operator does, and answers the questions `explain` asks about it: which images the kubelet
// sends to CRI-O's crio-credential-provider plugin, and which namespace secret's key each mirror of a pull
// then uses.
//
// Everything here is pure: no client, clock or file. The controller and the offline `render` call the same
// functions.
//
// The steps, each in its own file:
//
//	render.go          Render: the provider file per platform and the kubelet drop-in; MCO's overlap rule
//	templates.go       the AWS, GCP and Azure provider files MCO ships, verbatim
//	providerconfig.go  the kubelet's CredentialProviderConfig as MCO reads and serialises it
//	paths.go           node paths: ProviderDir, ProviderFile, KubeletDropIn
//	problems.go        Problems: what the CRD's validation refuses, for `render`, which has no API server
//	conditions.go      Condition, Conditions: MCO's Validated and MachineConfigRendered conditions
//	match.go           MatchImage, ProvidersFor: which providers the kubelet runs for an image
//	pluginauth.go      PluginAuthKeys: which secret's key the plugin copies for each mirror of a pull
//	kubelet.go         KubeletReadsProviderFile: whether a pool's kubelet reads the file; PluginAuthFile
//
// How a pull gets per-namespace mirror credentials: the kubelet runs every provider whose matchImages match
// the image (MatchImage), passing the pod's service account token to crio-credential-provider (its
// tokenAttributes). The plugin lists the namespace's dockerconfigjson secrets with that token, copies the keys
// that are a string prefix of one of the image's mirrors or of the image (PluginAuthKeys) over the node's
// global pull secret into /etc/crio/auth/<namespace>-<sha256 of the image name>.json, and returns no
// credentials. CRI-O then pulls with that file as its only auth file.
//
// For example, matchImages ["quay.io"] on platform None gives the generic provider file
//
//	apiVersion: kubelet.config.k8s.io/v1
//	kind: CredentialProviderConfig
//	providers:
//	- apiVersion: credentialprovider.kubelet.k8s.io/v1
//	  defaultCacheDuration: 1s
//	  matchImages:
//	  - quay.io
//	  name: crio-credential-provider
//	  tokenAttributes:
//	    cacheType: Token
//	    requireServiceAccount: false
//	    serviceAccountTokenAudience: https://kubernetes.default.svc
//
// and the kubelet drop-in KubeletDropIn that points the kubelet at it.
//
// Kubelet facts this package relies on, checked against the kubelet's own code (k8s.io/kubernetes v1.36.3,
// test/kubeletcreds): when several providers match an image the kubelet runs all of them in file order; the
// plugin's answer carries no credentials, so on overlap the cloud provider's credentials are what the kubelet
// passes with the pull, while the plugin still writes its auth file. The plugin's answer is cached per
// registry for the entry's defaultCacheDuration (1s): a second image of the same registry pulled within that
// second does not run the plugin again, so no auth file is written for it. The tokenAttributes need the
// kubelet feature KubeletServiceAccountTokenForCredentialProviders (on by default since Kubernetes 1.34);
// without it the kubelet refuses the whole file.
package credentialprovider
