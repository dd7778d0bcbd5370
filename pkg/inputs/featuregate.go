package inputs

import (
	"fmt"
	"slices"

	configv1 "github.com/openshift/api/config/v1"
)

// FeatureGateEnabled reports whether the feature gate name is on, as the cluster's FeatureGate "cluster" says:
//
//   - no FeatureGate: on;
//   - the status.featureGates entry whose version is the ClusterVersion's status.desired.version: on when it
//     lists the gate enabled, off when it lists it disabled;
//   - otherwise (no entry for that version, or the gate in neither list of it) the first entry of
//     status.featureGates that names the gate, and failing that spec.featureSet: on for Default, OKD,
//     TechPreviewNoUpgrade and DevPreviewNoUpgrade; for CustomNoUpgrade, off only when
//     spec.customNoUpgrade.disabled lists it. Such a fallback is returned as a warning.
func (in *Inputs) FeatureGateEnabled(name configv1.FeatureGateName) (bool, *Problem) {
	fg := in.FeatureGate
	if fg == nil {
		return true, nil
	}
	version := ""
	if in.ClusterVersion != nil {
		version = in.ClusterVersion.Status.Desired.Version
	}
	at := FieldRef{Object: ObjectRef{Kind: KindFeatureGate, Name: fg.Name}, Field: "status.featureGates"}
	for _, d := range fg.Status.FeatureGates {
		if d.Version == version {
			if on, listed := lists(d, name); listed {
				return on, nil
			}
		}
	}
	for i, d := range fg.Status.FeatureGates {
		if on, listed := lists(d, name); listed {
			return on, &Problem{At: at.Child(fmt.Sprintf("[%d]", i)), Value: d.Version,
				Message: fmt.Sprintf("no entry for the current version %q names %s; used this entry's, which says %s", version, name, onOff(on)),
				Fix:     "this resolves itself once the cluster-config-operator reports the feature gates of the current version"}
		}
	}
	on := true
	if fg.Spec.FeatureSet == configv1.CustomNoUpgrade && fg.Spec.CustomNoUpgrade != nil {
		on = !slices.Contains(fg.Spec.CustomNoUpgrade.Disabled, name)
	}
	return on, &Problem{At: FieldRef{Object: at.Object, Field: "spec.featureSet"}, Value: string(fg.Spec.FeatureSet),
		Message: fmt.Sprintf("status.featureGates does not name %s; decided from the feature set: %s", name, onOff(on)),
		Fix:     "this resolves itself once the cluster-config-operator reports the feature gates"}
}

// lists returns whether the entry names the gate enabled, and whether it names it at all.
func lists(d configv1.FeatureGateDetails, name configv1.FeatureGateName) (on, listed bool) {
	named := func(as []configv1.FeatureGateAttributes) bool {
		return slices.ContainsFunc(as, func(a configv1.FeatureGateAttributes) bool { return a.Name == name })
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
