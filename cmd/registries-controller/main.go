// Command registries-controller turns the cluster's mirror configuration (ImageContentSourcePolicy,
// ImageDigestMirrorSet, ImageTagMirrorSet, the Image config's registrySources), its signature policies
// (ClusterImagePolicy, ImagePolicy) and its CRIOCredentialProviderConfig into the node files CRI-O and the kubelet
// read (registries.conf, policy.json, the search-registries drop-in, registries.d, /etc/crio/policies, the kubelet's
// credential provider configuration), delivered as generated MachineConfigs per built-in pool. One binary:
// `start` runs the controller; `render` is the same output offline; `diff`, `explain`, `preview`, `wait` and
// `migrate-icsp` say what a change does to nodes, where a pull goes, and when it is live; `verify` asks the
// registries whether every pull of a set of images will work.
package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/initgc"
	"github.com/openshift/registries-controller/pkg/version"
)

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "registries-controller",
		Short: "Render mirror configuration into per-pool MachineConfigs, and explain what it does on nodes",
		Long: "Render mirror configuration into per-pool MachineConfigs, and explain what it does on nodes.\n\n" +
			exitStatusTable,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints "registries-controller version v0.1.0-12-gabcdef0" (set at link time by the Makefile).
		Version: version.Version,
	}
	root.AddCommand(newStartCommand())
	root.AddCommand(newRenderCommand())
	root.AddCommand(newDiffCommand(), newExplainCommand())
	root.AddCommand(newWaitCommand(), newMigrateCommand(), newPreviewCommand(), newVerifyCommand())
	return root
}

func main() {
	initgc.Restore()
	os.Exit(exitStatus(newRootCommand().Execute(), os.Stderr))
}
