package credentialprovider

import (
	"crypto/sha256"
	"encoding/hex"

	configv1 "github.com/openshift/api/config/v1"
)

// ArbiterPool is the built-in pool whose kubelet unit reads the drop-in's flags on every platform.
const ArbiterPool = "arbiter"

// onPremisePlatforms are the platforms whose master and worker kubelet units MCO renders from its on-premise
// template, the only ones besides the arbiter's that pass on the drop-in's KUBELET_CRIO_IMAGE_CREDENTIAL_PROVIDER_FLAGS.
var onPremisePlatforms = map[configv1.PlatformType]bool{
	configv1.BareMetalPlatformType: true,
	configv1.OpenStackPlatformType: true,
	configv1.VSpherePlatformType:   true,
	configv1.NutanixPlatformType:   true,
	configv1.OvirtPlatformType:     true,
}

// KubeletReadsProviderFile reports whether the kubelet of pool's nodes on platform is pointed at
// ProviderFile(platform), so that the images it lists are sent to their providers at all. On AWS, GCP and Azure
// it always is: MCO's kubelet unit names the cloud provider's own file. Elsewhere only through KubeletDropIn
// (dropIn: the node has it), whose variable only the kubelet units of the on-premise platforms (BareMetal,
// OpenStack, VSphere, Nutanix, oVirt) and of the arbiter pool use. On None, External, PowerVS, KubeVirt, Libvirt,
// IBMCloud, AlibabaCloud, EquinixMetal, an empty or an unknown platform, the master and worker kubelets (and
// those of custom pools, which are worker nodes) never read the generic file: a gap of MCO's templates
// (docs/semantics.md §10.3).
//
//	KubeletReadsProviderFile(configv1.AWSPlatformType, "worker", false)      // true
//	KubeletReadsProviderFile(configv1.BareMetalPlatformType, "worker", true) // true
//	KubeletReadsProviderFile(configv1.NonePlatformType, "worker", true)      // false
//	KubeletReadsProviderFile(configv1.NonePlatformType, "arbiter", true)     // true
func KubeletReadsProviderFile(platform configv1.PlatformType, pool string, dropIn bool) bool {
	if HasCloudProvider(platform) {
		return true
	}
	return dropIn && (onPremisePlatforms[platform] || pool == ArbiterPool)
}

// PluginAuthDir is where the plugin writes the per-pull auth files, and where CRI-O (namespaced_auth_dir) looks
// for them.
const PluginAuthDir = "/etc/crio/auth"

// PluginAuthFile returns the node path of the auth file the plugin writes for a pull of image (a LookupName) by a
// pod of namespace: PluginAuthDir/<namespace>-<hex sha256 of image>.json. CRI-O computes the same path, moves
// the file aside, pulls with it as its only auth file and deletes it.
//
//	PluginAuthFile("team-a", "quay.io/team/app") // "/etc/crio/auth/team-a-<64 hex digits>.json"
func PluginAuthFile(namespace, image string) string {
	sum := sha256.Sum256([]byte(image))
	return PluginAuthDir + "/" + namespace + "-" + hex.EncodeToString(sum[:]) + ".json"
}
