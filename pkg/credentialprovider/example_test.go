package credentialprovider_test

import (
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

func ExampleRenderProviders() {
	cfg := &configv1.CRIOCredentialProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster", Generation: 2},
		Spec:       &configv1.CRIOCredentialProviderConfigSpec{MatchImages: []configv1.MatchImage{"quay.io", "gcr.io", "*.example.com"}},
	}
	res, err := credentialprovider.RenderProviders(cfg, configv1.GCPPlatformType)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Files.Paths(), res.MatchImages, res.Skipped)
	for _, c := range credentialprovider.Conditions(res, nil, cfg.Generation) {
		fmt.Println(c.Type, c.Status, c.Reason, c.Message)
	}
	// Output:
	// [/etc/kubernetes/credential-providers/gcr-credential-provider.yaml] [*.example.com quay.io] [gcr.io]
	// Validated False ConfigurationPartiallyApplied CRIOCredentialProviderConfig has one or multiple entries that overlap with the original credential provider config. Skip rendering entries: [gcr.io].
	// MachineConfigRendered True MachineConfigRenderingSucceeded Success
}

func ExampleRenderProviders_generic() {
	cfg := &configv1.CRIOCredentialProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       &configv1.CRIOCredentialProviderConfigSpec{MatchImages: []configv1.MatchImage{"quay.io"}},
	}
	res, err := credentialprovider.RenderProviders(cfg, configv1.BareMetalPlatformType)
	if err != nil {
		panic(err)
	}
	for _, f := range res.Files {
		fmt.Printf("%s:\n%s", f.Path, f.Data)
	}
	// Output:
	// /etc/kubernetes/credential-providers/generic-credential-provider.yaml:
	// apiVersion: kubelet.config.k8s.io/v1
	// kind: CredentialProviderConfig
	// providers:
	// - apiVersion: credentialprovider.kubelet.k8s.io/v1
	//   defaultCacheDuration: 1s
	//   matchImages:
	//   - quay.io
	//   name: crio-credential-provider
	//   tokenAttributes:
	//     cacheType: Token
	//     requireServiceAccount: false
	//     serviceAccountTokenAudience: https://kubernetes.default.svc
	// /etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf:
	// [Service]
	// # Prepends the credential provider flags to the existing Kubelet arguments
	// Environment="KUBELET_CRIO_IMAGE_CREDENTIAL_PROVIDER_FLAGS=--image-credential-provider-bin-dir=/usr/libexec/kubelet-image-credential-provider-plugins --image-credential-provider-config=/etc/kubernetes/credential-providers/generic-credential-provider.yaml"
}

func ExampleFixHint() {
	fmt.Println(credentialprovider.FixHint("spec.matchImages[0]", "Quay.io", "invalid matchImages value, must be a valid fully qualified domain name in lowercase with optional wildcard, port, and path"))
	fmt.Println(credentialprovider.FixHint("spec.matchImages[1]", "*", "global wildcard '*' is not allowed"))
	// Output:
	// write it as "quay.io"
	// name the registries, e.g. "*.example.com" or "k8s.*"; the kubelet would send every image to the plugin
}

func ExampleMatchImage() {
	fmt.Println(credentialprovider.MatchImage("*.azurecr.io", "myreg.azurecr.io/app"))
	fmt.Println(credentialprovider.MatchImage("*.azurecr.io", "a.myreg.azurecr.io/app"))
	fmt.Println(credentialprovider.MatchImage("gcr.io", "gcr.io:443/project/app"))
	fmt.Println(credentialprovider.MatchImage("registry.io:8080/path", "registry.io:8080/pathology/app"))
	// Output:
	// true
	// false
	// false
	// true
}

func ExampleProvidersFor() {
	cfg := &configv1.CRIOCredentialProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       &configv1.CRIOCredentialProviderConfigSpec{MatchImages: []configv1.MatchImage{"123456789012.dkr.ecr.us-east-1.amazonaws.com"}},
	}
	res, err := credentialprovider.RenderProviders(cfg, configv1.AWSPlatformType)
	if err != nil {
		panic(err)
	}
	file, _ := res.Files.Get(credentialprovider.ProviderFile(configv1.AWSPlatformType))
	providers, err := credentialprovider.Providers(file)
	if err != nil {
		panic(err)
	}
	image, err := credentialprovider.LookupName("123456789012.dkr.ecr.us-east-1.amazonaws.com/app:v1")
	if err != nil {
		panic(err)
	}
	// Both run; only ECR returns credentials, so those are what the kubelet passes with the pull.
	fmt.Println(credentialprovider.ProvidersFor(providers, image))
	// Output:
	// [ecr-credential-provider crio-credential-provider]
}

func ExamplePluginAuthKeys() {
	auth := credentialprovider.PluginAuthKeys(credentialprovider.PluginInput{
		Image: "quay.io/team/app",
		Mirrors: []credentialprovider.Mirror{
			{Location: "mirror.localhost:5000/team", Pull: "mirror.localhost:5000/team/app"},
			{Location: "backup.example.com/team", Pull: "backup.example.com/team/app"},
		},
		Secrets: []credentialprovider.SecretAuths{
			{Secret: "mirror-pull", Keys: []credentialprovider.AuthKey{{Key: "mirror.local"}, {Key: "https://backup.example.com"}}},
		},
		GlobalKeys: []string{"quay.io"},
	})
	for _, c := range auth.Copied {
		fmt.Printf("copied %s of secret %s for %v, used by %v\n", c.Key, c.Secret, c.Matches, c.UsedBy)
	}
	for _, p := range auth.Pulls {
		switch {
		case p.Key == "":
			fmt.Printf("%s: no credentials\n", p.Repository)
		case p.Secret == "":
			fmt.Printf("%s: key %s of the global pull secret\n", p.Repository, p.Key)
		default:
			fmt.Printf("%s: key %s of secret %s\n", p.Repository, p.Key, p.Secret)
		}
	}
	// Output:
	// copied backup.example.com of secret mirror-pull for [backup.example.com/team], used by [backup.example.com/team/app]
	// copied mirror.local of secret mirror-pull for [mirror.localhost:5000/team], used by []
	// mirror.localhost:5000/team/app: no credentials
	// backup.example.com/team/app: key backup.example.com of secret mirror-pull
	// quay.io/team/app: key quay.io of the global pull secret
}
