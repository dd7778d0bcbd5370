package render

import (
	"fmt"
	"slices"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// credentials renders the credential providers output (docs/semantics.md §10): Unmanaged while the feature gate
// CRIOCredentialProviderConfig is off or the kind is not watched, Removed without the object "cluster", Written
// with the provider file of the Infrastructure's platform otherwise. It returns the render of the object (nil
// unless Written) and the warnings: the entries skipped because a cloud provider's own entry covers them, and
// why the output is not managed when the object is given but cannot count.
func credentials(in *inputs.Inputs, pools []string) (outputRender, *credentialprovider.Result, []inputs.Problem, error) {
	out := outputRender{state: machineconfigs.OutputState{Output: machineconfigs.CredentialProviders}}
	cfg := in.CRIOCredentialProviderConfig
	var warnings []inputs.Problem
	on, gateWarning := in.FeatureGateEnabled(inputs.GateCRIOCredentialProviderConfig)
	if gateWarning != nil && cfg != nil {
		warnings = append(warnings, *gateWarning)
	}
	if !on {
		out.state.State, out.state.Why = machineconfigs.Unmanaged, fmt.Sprintf("the feature gate %s is off", inputs.GateCRIOCredentialProviderConfig)
		return out, nil, warnings, nil
	}
	if why, unwatched := in.Unwatched[inputs.KindCRIOCredentialProvider]; unwatched {
		out.state.State, out.state.Why = machineconfigs.Unmanaged, why
		warnings = append(warnings, inputs.Problem{
			At:      inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindCRIOCredentialProvider, Name: inputs.CRIOCredentialProviderConfigName}},
			Message: fmt.Sprintf("the feature gate %s is on, but %s; the %s MachineConfigs are left as they are", inputs.GateCRIOCredentialProviderConfig, why, machineconfigs.CredentialProviders),
			Fix:     "install the CRD of criocredentialproviderconfigs.config.openshift.io",
		})
		return out, nil, warnings, nil
	}
	if cfg == nil {
		out.state.State, out.state.Why = machineconfigs.Removed, fmt.Sprintf("there is no %s %q", inputs.KindCRIOCredentialProvider, inputs.CRIOCredentialProviderConfigName)
		return out, nil, warnings, nil
	}
	res, err := credentialprovider.RenderProviders(cfg, Platform(in))
	if err != nil {
		return out, nil, warnings, err
	}
	var owner *metav1.OwnerReference
	if cfg.UID != "" {
		owner = machineconfigs.CredentialProviders.Owner.Reference(cfg.Name, cfg.UID)
	}
	out = written(machineconfigs.CredentialProviders, pools, res.Files, owner)
	for _, skipped := range res.Skipped {
		warnings = append(warnings, inputs.Problem{
			At:      inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindCRIOCredentialProvider, Name: cfg.Name}, Field: matchImageField(cfg, skipped)},
			Value:   skipped,
			Message: fmt.Sprintf("overlaps an entry of the %s platform's own credential provider, which takes the image first; not rendered", Platform(in)),
			Fix:     "leave it out: images of the cloud registry get the cloud provider's credentials, never the namespace's",
		})
	}
	return out, res, warnings, nil
}

// matchImageField returns the field of the first spec.matchImages entry equal to image, e.g.
// "spec.matchImages[2]".
func matchImageField(cfg *configv1.CRIOCredentialProviderConfig, image string) string {
	if cfg.Spec == nil {
		return "spec.matchImages"
	}
	i := slices.Index(cfg.Spec.MatchImages, configv1.MatchImage(image))
	if i < 0 {
		return "spec.matchImages"
	}
	return fmt.Sprintf("spec.matchImages[%d]", i)
}

// Platform returns the cluster's platform, as the Infrastructure "cluster" says in status.platformStatus.type
// (status.platform on clusters old enough to lack it); "" without an Infrastructure, which renders as platform
// None does.
func Platform(in *inputs.Inputs) configv1.PlatformType {
	if in.Infrastructure == nil {
		return ""
	}
	if ps := in.Infrastructure.Status.PlatformStatus; ps != nil && ps.Type != "" {
		return ps.Type
	}
	//lint:ignore SA1019 the deprecated field is all a cluster installed before platformStatus existed has
	return in.Infrastructure.Status.Platform
}
