package imagepolicy_test

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/imagepolicy"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
)

func featureGate(set configv1.FeatureSet, custom *configv1.CustomFeatureGates, details ...configv1.FeatureGateDetails) *configv1.FeatureGate {
	fg := &configv1.FeatureGate{}
	fg.Name = "cluster"
	fg.Spec.FeatureSet = set
	fg.Spec.CustomNoUpgrade = custom
	fg.Status.FeatureGates = details
	return fg
}

func gates(version string, enabled bool) configv1.FeatureGateDetails {
	d := configv1.FeatureGateDetails{Version: version}
	a := []configv1.FeatureGateAttributes{{Name: imagepolicy.GateName}}
	if enabled {
		d.Enabled = a
	} else {
		d.Disabled = a
	}
	return d
}

// TestGate pins how the SigstoreImageVerification gate is read (docs/semantics.md §9.1).
func TestGate(t *testing.T) {
	cv := fixtures.ClusterVersion(fixtures.ReleaseImage)
	cv.Status.Desired.Version = "4.20.1"
	custom := &configv1.CustomFeatureGates{Disabled: []configv1.FeatureGateName{imagepolicy.GateName}}
	for _, tc := range []struct {
		name    string
		fg      *configv1.FeatureGate
		want    bool
		warning bool
	}{
		{"no FeatureGate: on", nil, true, false},
		{"enabled for the current version", featureGate("", nil, gates("4.19.0", false), gates("4.20.1", true)), true, false},
		{"disabled for the current version", featureGate("", nil, gates("4.19.0", true), gates("4.20.1", false)), false, false},
		{"no entry for the current version: the first entry, with a warning", featureGate("", nil, gates("4.19.0", false)), false, true},
		{"no status: Default is on, with a warning", featureGate("", nil), true, true},
		{"no status: TechPreviewNoUpgrade is on", featureGate(configv1.TechPreviewNoUpgrade, nil), true, true},
		{"no status: CustomNoUpgrade that disables it is off", featureGate(configv1.CustomNoUpgrade, custom), false, true},
		{"no status: CustomNoUpgrade without it is on", featureGate(configv1.CustomNoUpgrade, &configv1.CustomFeatureGates{}), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			on, warning := imagepolicy.Gate(&inputs.Inputs{FeatureGate: tc.fg, ClusterVersion: cv})
			if on != tc.want || (warning != nil) != tc.warning {
				t.Errorf("Gate = %t, warning %v; want %t, warning %t", on, warning, tc.want, tc.warning)
			}
		})
	}
}
