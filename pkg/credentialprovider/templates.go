package credentialprovider

import configv1 "github.com/openshift/api/config/v1"

// The cloud credential provider files MCO ships for every role (templates/common/<platform>/files), verbatim.
// Render starts from the platform's file and re-serialises it, so neither their quoting nor their key order
// reaches the node; the order of each provider's matchImages does.
const (
	// awsTemplate is the ECR provider file, at ecrProviderFile on AWS nodes.
	awsTemplate = `apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: ecr-credential-provider
    matchImages:
      - "*.dkr.ecr.*.amazonaws.com"
      - "*.dkr.ecr.*.amazonaws.com.cn"
      - "*.dkr.ecr-fips.*.amazonaws.com"
      - "*.dkr.ecr.us-iso-east-1.c2s.ic.gov"
      - "*.dkr.ecr.us-isob-east-1.sc2s.sgov.gov"
    defaultCacheDuration: "12h"
    apiVersion: credentialprovider.kubelet.k8s.io/v1
`

	// gcpTemplate is the GCR provider file, at gcrProviderFile on GCP nodes.
	gcpTemplate = `apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: gcr-credential-provider
    apiVersion: credentialprovider.kubelet.k8s.io/v1
    matchImages:
      - "gcr.io"
      - "*.gcr.io"
      - "*.pkg.dev"
      - "container.cloud.google.com"
    defaultCacheDuration: "1m"
    args:
      - get-credentials
      - --v=3
`

	// azureTemplate is the ACR provider file, at acrProviderFile on Azure nodes. It ends with a blank line.
	azureTemplate = `apiVersion: kubelet.config.k8s.io/v1
kind: CredentialProviderConfig
providers:
  - name: acr-credential-provider
    apiVersion: credentialprovider.kubelet.k8s.io/v1
    defaultCacheDuration: "10m"
    matchImages:
      - "*.azurecr.io"
      - "*.azurecr.cn"
      - "*.azurecr.de"
      - "*.azurecr.us"
    args:
      - /etc/kubernetes/cloud.conf

`
)

// platformTemplate returns the provider file a platform's nodes have before the CRI-O provider is added, or
// nil on platforms without one (the generic file starts empty).
func platformTemplate(platform configv1.PlatformType) []byte {
	switch platform {
	case configv1.AWSPlatformType:
		return []byte(awsTemplate)
	case configv1.GCPPlatformType:
		return []byte(gcpTemplate)
	case configv1.AzurePlatformType:
		return []byte(azureTemplate)
	default:
		return nil
	}
}
