package credentialprovider

import configv1 "github.com/openshift/api/config/v1"

// Node paths and names of the kubelet's image credential provider setup.
const (
	// ProviderDir holds the kubelet's credential provider configuration files. A change under it restarts the
	// kubelet (MCO's default node disruption policy), with no reboot and no CRI-O reload.
	ProviderDir = "/etc/kubernetes/credential-providers"

	// KubeletDropIn is the systemd drop-in that points the kubelet at the generic provider file. It is written
	// only on platforms without a cloud provider file (see ProviderFile); a change to it is a daemon-reload
	// followed by a kubelet restart.
	KubeletDropIn = "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf"

	// PluginBinDir is the kubelet's --image-credential-provider-bin-dir on OpenShift nodes: the kubelet runs
	// the provider named "crio-credential-provider" as PluginBinDir + "/crio-credential-provider".
	PluginBinDir = "/usr/libexec/kubelet-image-credential-provider-plugins"

	// PluginName is the name of CRI-O's credential provider, as a provider entry and as its binary.
	PluginName = "crio-credential-provider"
)

// Provider file names, one per platform family.
const (
	ecrProviderFile     = ProviderDir + "/ecr-credential-provider.yaml"
	gcrProviderFile     = ProviderDir + "/gcr-credential-provider.yaml"
	acrProviderFile     = ProviderDir + "/acr-credential-provider.yaml"
	genericProviderFile = ProviderDir + "/generic-credential-provider.yaml"
)

// ProviderFile returns the node path of the credential provider file the kubelet reads on platform: the
// cloud provider's own file on AWS, GCP and Azure, which the CRI-O provider is added to, and the generic file
// on every other platform, including None, External, an empty platform and names this version does not know.
//
//	ProviderFile(configv1.AWSPlatformType)       // "/etc/kubernetes/credential-providers/ecr-credential-provider.yaml"
//	ProviderFile(configv1.BareMetalPlatformType) // "/etc/kubernetes/credential-providers/generic-credential-provider.yaml"
func ProviderFile(platform configv1.PlatformType) string {
	switch platform {
	case configv1.AWSPlatformType:
		return ecrProviderFile
	case configv1.GCPPlatformType:
		return gcrProviderFile
	case configv1.AzurePlatformType:
		return acrProviderFile
	default:
		return genericProviderFile
	}
}

// HasCloudProvider reports whether platform has a cloud credential provider file of its own (AWS, GCP,
// Azure). On the others the generic file is written together with KubeletDropIn.
//
//	HasCloudProvider(configv1.AzurePlatformType) // true
//	HasCloudProvider(configv1.NonePlatformType)  // false: generic file and drop-in
//	HasCloudProvider("")                         // false
func HasCloudProvider(platform configv1.PlatformType) bool {
	return ProviderFile(platform) != genericProviderFile
}

// kubeletDropInContent is what KubeletDropIn holds, byte for byte as MCO writes it (340 bytes). The variable
// it sets is read only by the kubelet units of the on-premise platforms (BareMetal, OpenStack, vSphere,
// Nutanix, oVirt) and of the arbiter pool.
const kubeletDropInContent = `[Service]
# Prepends the credential provider flags to the existing Kubelet arguments
Environment="KUBELET_CRIO_IMAGE_CREDENTIAL_PROVIDER_FLAGS=--image-credential-provider-bin-dir=` + PluginBinDir +
	` --image-credential-provider-config=` + genericProviderFile + `"
`
