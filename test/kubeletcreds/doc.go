// Package kubeletcreds proves pkg/credentialprovider with the kubelet's own code, from the pinned
// k8s.io/kubernetes module (v1.36.3, the version hack/tools/k8s builds the test control plane from). It is a
// module of its own, so that the main module does not depend on k8s.io/kubernetes.
//
// Its tests load every provider file of pkg/credentialprovider/testdata/golden with the kubelet's credential
// provider registration (config reader, validation, plugin setup), run pulls through the kubelet's keyring
// with a recording plugin binary (recorder/) installed under each provider's name, and check which providers
// the kubelet runs for each image, what it sends them and whose credentials it keeps; and they compare
// MatchImage and LookupName with the kubelet's URLsMatchStr and ParseImageName.
//
// Run it with `make test-kubelet` (part of `make test`), or `go test ./...` in this directory.
package kubeletcreds
