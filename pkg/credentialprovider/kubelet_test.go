package credentialprovider_test

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

func TestTheKubeletReadsTheProviderFileOnCloudAndOnPremisePlatformsAndInTheArbiterPool(t *testing.T) {
	for _, tc := range []struct {
		platform configv1.PlatformType
		pool     string
		dropIn   bool
		want     bool
	}{
		{configv1.AWSPlatformType, "worker", false, true},
		{configv1.GCPPlatformType, "master", false, true},
		{configv1.AzurePlatformType, "infra", false, true},
		{configv1.BareMetalPlatformType, "worker", true, true},
		{configv1.OpenStackPlatformType, "master", true, true},
		{configv1.VSpherePlatformType, "infra", true, true},
		{configv1.NutanixPlatformType, "worker", true, true},
		{configv1.OvirtPlatformType, "worker", true, true},
		{configv1.BareMetalPlatformType, "worker", false, false}, // no drop-in: the variable is empty
		{configv1.NonePlatformType, "worker", true, false},
		{configv1.NonePlatformType, "master", true, false},
		{configv1.ExternalPlatformType, "worker", true, false},
		{configv1.PowerVSPlatformType, "worker", true, false},
		{configv1.KubevirtPlatformType, "worker", true, false},
		{configv1.LibvirtPlatformType, "worker", true, false},
		{configv1.IBMCloudPlatformType, "worker", true, false},
		{"", "worker", true, false},
		{"SomethingNew", "worker", true, false},
		{configv1.NonePlatformType, "arbiter", true, true},
		{configv1.NonePlatformType, "arbiter", false, false},
	} {
		if got := credentialprovider.KubeletReadsProviderFile(tc.platform, tc.pool, tc.dropIn); got != tc.want {
			t.Errorf("platform %q pool %s drop-in %t: %t, want %t", tc.platform, tc.pool, tc.dropIn, got, tc.want)
		}
	}
}

func TestThePluginAuthFileIsNamedByNamespaceAndTheSHA256OfTheImageName(t *testing.T) {
	// printf %s quay.io/team/app | sha256sum
	want := "/etc/crio/auth/team-a-3aec51a61d13d17bb49232c144638bcd4f6c5a35e648122f2e633dd5c634e76b.json"
	if got := credentialprovider.PluginAuthFile("team-a", "quay.io/team/app"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
