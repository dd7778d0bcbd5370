package registries

import (
	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
)

// ImageConfigName is the name of the one cluster-wide Image configuration object.
const ImageConfigName = "cluster"

// ClusterVersionName is the name of the one ClusterVersion object, whose status names the release payload.
const ClusterVersionName = "version"

// Inputs is everything the merge reads: the mirror objects as the API returns them, the registry
// settings of the cluster Image configuration, and the release payload that must stay pullable.
// The merge treats Inputs as read-only: objects from an informer cache can be passed as they are.
//
// The order of objects, and of entries inside them, does not change the result.
type Inputs struct {
	// ImageContentSourcePolicies are the legacy digest mirror objects (operator.openshift.io/v1alpha1).
	// Every entry counts as an ImageDigestMirrorSet entry with AllowContactingSource.
	ImageContentSourcePolicies []*operatorv1alpha1.ImageContentSourcePolicy
	// ImageDigestMirrorSets configure mirrors used for pulls by digest.
	ImageDigestMirrorSets []*configv1.ImageDigestMirrorSet
	// ImageTagMirrorSets configure mirrors used for pulls by tag.
	ImageTagMirrorSets []*configv1.ImageTagMirrorSet
	// RegistrySources is spec.registrySources of the Image named "cluster"; the zero value when that
	// object does not exist. Example: {InsecureRegistries: ["reg.lab:5000"], BlockedRegistries: ["docker.io"]}.
	RegistrySources configv1.RegistrySources
	// ReleaseImage is the release payload the cluster runs or is moving to (ClusterVersion
	// status.desired.image), e.g. "quay.io/openshift-release-dev/ocp-release@sha256:…". When it is empty
	// the payload rule cannot be checked, and blocked registries are not applied (fail closed).
	ReleaseImage string
	// ReleaseImageField says where ReleaseImage came from, for messages; it defaults to the
	// ClusterVersion "version" status.desired.image.
	ReleaseImageField *FieldRef
}

// FieldRef names a field of an object, for messages.
type FieldRef struct {
	Object ObjectRef
	Field  string
}

func (in *Inputs) releaseImageField() FieldRef {
	if in.ReleaseImageField != nil {
		return *in.ReleaseImageField
	}
	return FieldRef{Object: ObjectRef{Kind: KindClusterVersion, Name: ClusterVersionName}, Field: "status.desired.image"}
}

// imageRef is the object that holds registrySources.
var imageRef = ObjectRef{Kind: KindImage, Name: ImageConfigName}
