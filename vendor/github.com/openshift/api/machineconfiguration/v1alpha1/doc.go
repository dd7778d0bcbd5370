// +k8s:deepcopy-gen=package,register
// +groupName=machineconfiguration.openshift.io
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.machineconfiguration.v1alpha1

// Package v1alpha1 is the v1alpha1 version of the API.
package v1alpha1
