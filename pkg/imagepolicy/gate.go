package imagepolicy

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// GateName is the feature gate that makes ClusterImagePolicies and ImagePolicies apply (docs/semantics.md §9.1).
const GateName configv1.FeatureGateName = "SigstoreImageVerification"

// Gate reports whether signature policies apply, as the cluster's FeatureGate "cluster" says
// (inputs.Inputs.FeatureGateEnabled): on without a FeatureGate.
func Gate(in *inputs.Inputs) (bool, *inputs.Problem) { return in.FeatureGateEnabled(GateName) }
