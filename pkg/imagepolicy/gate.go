package imagepolicy

import (
	"fmt"
	"slices"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// GateName is the feature gate that makes ClusterImagePolicies and ImagePolicies apply (docs/semantics.md §9.1).
const GateName configv1.FeatureGateName = "SigstoreImageVerification"

// Gate reports whether signature policies apply, as the cluster's FeatureGate "cluster" says:
//
//   - no FeatureGate: on;
//   - the status.featureGates entry whose version is the ClusterVersion's status.desired.version: on when it
//     lists the gate enabled, off when it lists it disabled;
//   - otherwise (no entry for that version, or the gate in neither list of it) the first entry of
//     status.featureGates that names the gate, and failing that spec.featureSet: on for Default, OKD,
//     TechPreviewNoUpgrade and DevPreviewNoUpgrade; for CustomNoUpgrade, off only when
//     spec.customNoUpgrade.disabled lists it. Such a fallback is returned as a warning.
func Gate(in *inputs.Inputs) (bool, *inputs.Problem) {
	fg := in.FeatureGate
	if fg == nil {
		return true, nil
	}
	version := ""
	if in.ClusterVersion != nil {
		version = in.ClusterVersion.Status.Desired.Version
	}
	at := inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindFeatureGate, Name: fg.Name}, Field: "status.featureGates"}
	for _, d := range fg.Status.FeatureGates {
		if d.Version == version {
			if on, listed := lists(d); listed {
				return on, nil
			}
		}
	}
	for i, d := range fg.Status.FeatureGates {
		if on, listed := lists(d); listed {
			return on, &inputs.Problem{At: at.Child(fmt.Sprintf("[%d]", i)), Value: d.Version,
				Message: fmt.Sprintf("no entry for the current version %q names %s; used this entry's, which says %s", version, GateName, onOff(on)),
				Fix:     "this resolves itself once the cluster-config-operator reports the feature gates of the current version"}
		}
	}
	on := true
	if fg.Spec.FeatureSet == configv1.CustomNoUpgrade && fg.Spec.CustomNoUpgrade != nil {
		on = !slices.Contains(fg.Spec.CustomNoUpgrade.Disabled, GateName)
	}
	return on, &inputs.Problem{At: inputs.FieldRef{Object: at.Object, Field: "spec.featureSet"}, Value: string(fg.Spec.FeatureSet),
		Message: fmt.Sprintf("status.featureGates does not name %s; decided from the feature set: %s", GateName, onOff(on)),
		Fix:     "this resolves itself once the cluster-config-operator reports the feature gates"}
}

// lists returns whether the entry names the gate enabled, and whether it names it at all.
func lists(d configv1.FeatureGateDetails) (on, listed bool) {
	named := func(as []configv1.FeatureGateAttributes) bool {
		return slices.ContainsFunc(as, func(a configv1.FeatureGateAttributes) bool { return a.Name == GateName })
	}
	switch {
	case named(d.Enabled):
		return true, true
	case named(d.Disabled):
		return false, true
	}
	return false, false
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
