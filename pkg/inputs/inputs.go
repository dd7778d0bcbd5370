// Package inputs is the one model of what a render reads: the cluster objects, as the API returns them, and
// the names used to point into them (ObjectRef, FieldRef) and to report what is wrong with them (Problem).
//
// Two readers fill an Inputs: the controller from its informer caches, and the manifest reader
// (pkg/inputfiles) from files. Both go through the table of kinds in kinds.go, so adding an input kind is one
// entry there, plus what the render does with it.
//
//	in := &inputs.Inputs{}
//	in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, idms)
//	in.Image = image // the Image named "cluster", or nil
//	out, err := render.Render(in, render.Options{...})
package inputs

import (
	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
)

// Names of the singleton objects the render reads; objects of those kinds with other names are ignored.
const (
	// ImageConfigName is the name of the one cluster-wide Image configuration object.
	ImageConfigName = "cluster"
	// ClusterVersionName is the name of the one ClusterVersion object, whose status names the release payload.
	ClusterVersionName = "version"
	// FeatureGateName is the name of the one FeatureGate object, whose status says which features are on.
	FeatureGateName = "cluster"
	// InfrastructureName is the name of the one Infrastructure object, whose status names the platform.
	InfrastructureName = "cluster"
	// CRIOCredentialProviderConfigName is the name of the one CRIOCredentialProviderConfig that counts (the API
	// allows no other).
	CRIOCredentialProviderConfigName = "cluster"
)

// Inputs is everything a render reads. Objects may come straight from an informer cache: nothing that reads
// Inputs modifies them, and the order of objects (or of entries inside them) never changes a result.
type Inputs struct {
	// ImageContentSourcePolicies are the legacy digest mirror objects (operator.openshift.io/v1alpha1). Every
	// entry counts as an ImageDigestMirrorSet entry with AllowContactingSource.
	ImageContentSourcePolicies []*operatorv1alpha1.ImageContentSourcePolicy
	// ImageDigestMirrorSets configure mirrors used for pulls by digest.
	ImageDigestMirrorSets []*configv1.ImageDigestMirrorSet
	// ImageTagMirrorSets configure mirrors used for pulls by tag.
	ImageTagMirrorSets []*configv1.ImageTagMirrorSet
	// ClusterImagePolicies require signatures for images under their scopes, on every node, for every pod.
	ClusterImagePolicies []*configv1.ClusterImagePolicy
	// ImagePolicies require signatures for images under their scopes, for the pods of their namespace.
	ImagePolicies []*configv1.ImagePolicy
	// Image is the Image named "cluster", or nil. Its spec.registrySources adds insecure, blocked, allowed and
	// search registries; the generated MachineConfigs are owned by it.
	Image *configv1.Image
	// ClusterVersion is the ClusterVersion named "version", or nil. Its status.desired.image is the release
	// payload, which blocking must leave pullable.
	ClusterVersion *configv1.ClusterVersion
	// FeatureGate is the FeatureGate named "cluster", or nil. It says whether signature policies apply.
	FeatureGate *configv1.FeatureGate
	// Pools are the MachineConfigPools; only those labelled as built in get a generated MachineConfig.
	Pools []*mcfgv1.MachineConfigPool
	// Infrastructure is the Infrastructure named "cluster", or nil. Its status.platformStatus.type decides which
	// credential provider file the nodes' kubelet reads.
	Infrastructure *configv1.Infrastructure
	// CRIOCredentialProviderConfig is the CRIOCredentialProviderConfig named "cluster", or nil: the images whose
	// pulls get the pod namespace's credentials for their mirrors.
	CRIOCredentialProviderConfig *configv1.CRIOCredentialProviderConfig
	// ContainerRuntimeConfigs are the CRI-O and container storage settings, each for the pools its
	// machineConfigPoolSelector matches: one MachineConfig per object and pool.
	ContainerRuntimeConfigs []*mcfgv1.ContainerRuntimeConfig
	// Unwatched maps each optional kind (Kind.Optional) the objects above do not say anything about to why: the
	// API server does not serve it (its CRD is missing), or its feature gate is off so it is not watched. nil from
	// files: a kind without objects there has none.
	Unwatched map[string]string
	// ReleaseImageFlag, when not empty, is the release payload given on the command line (render
	// --release-image); it takes the place of the ClusterVersion's.
	ReleaseImageFlag string
}

// ReleaseImage returns the release payload the cluster runs or is moving to, e.g.
// "quay.io/openshift-release-dev/ocp-release@sha256:…", and where it came from; "" when unknown.
func (in *Inputs) ReleaseImage() (string, FieldRef) {
	if in.ReleaseImageFlag != "" {
		return in.ReleaseImageFlag, FieldRef{Object: ObjectRef{Kind: "flag", Name: "release-image"}, Field: "--release-image"}
	}
	at := FieldRef{Object: ObjectRef{Kind: KindClusterVersion, Name: ClusterVersionName}, Field: "status.desired.image"}
	if in.ClusterVersion == nil {
		return "", at
	}
	return in.ClusterVersion.Status.Desired.Image, at
}

// RegistrySources returns spec.registrySources of the Image "cluster", the zero value when there is none.
func (in *Inputs) RegistrySources() *configv1.RegistrySources {
	if in.Image == nil {
		return &configv1.RegistrySources{}
	}
	return &in.Image.Spec.RegistrySources
}

// ImageRef names the Image "cluster", which holds registrySources.
var ImageRef = ObjectRef{Kind: KindImage, Name: ImageConfigName}
