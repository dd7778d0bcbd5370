package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/verify"
)

func (o *previewOptions) addVerifyFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.verify, "verify", false, "also ask the registries whether every pull of the release payload (and --verify-images) works under the configuration the manifests would produce")
	cmd.Flags().StringVar(&o.releaseImage, "release-image", "", "with --verify: the release image to check (default: the one the cluster's ClusterVersion runs or moves to)")
	cmd.Flags().StringVar(&o.verifyImages, "verify-images", "", "with --verify: also check the images of this file (references one a line, or manifests whose pod specs name images)")
	o.checkFlags.addWithoutOutput(cmd)
	o.output = "text"
	// Flags that mean nothing without --verify are refused before anything is read.
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if o.namespace != "" && !o.verify {
			return errors.New("--namespace needs --verify: it names the credentials the pulls are checked with")
		}
		return o.checkNamespaceFlag(cmd)
	}
}

// verifyPulls runs verify's checks on the worker pool's configuration rendered from next, the inputs with the
// manifests applied. It returns exit status 1 when a pull would fail.
func (o *previewOptions) verifyPulls(ctx context.Context, stdout, stderr io.Writer, next *inputs.Inputs) error {
	checker := registriesconf.NewChecker()
	defer checker.Close()
	r, err := explain.RenderPool(next, render.Options{Checker: checker})
	if err != nil {
		return err
	}
	defer r.Config.Close()
	if o.namespace != "" {
		// The namespace's secrets as they are now, with the credential provider files the changes would give.
		restCfg, err := restConfig(o.kubeconfig)
		if err != nil {
			return err
		}
		if o.ns, err = o.readNamespaceCreds(ctx, restCfg, r.Pool, r.Platform, r.Files, stderr); err != nil {
			return err
		}
	}
	release := o.releaseImage
	if release == "" {
		release, _ = next.ReleaseImage()
	}
	var images []verify.Named
	if release != "" {
		payload, err := readPayload(ctx, r.Config, o.checkFlags, release)
		if err != nil {
			return err
		}
		images = append(images, payload...)
	}
	if o.verifyImages != "" {
		data, err := os.ReadFile(o.verifyImages)
		if err != nil {
			return err
		}
		listed, err := verify.ParseImageList(o.verifyImages, data)
		if err != nil {
			return err
		}
		images = append(images, listed...)
	}
	if len(images) == 0 {
		return errors.New("--verify: no images to check: the cluster names no release image; give --release-image or --verify-images")
	}
	fmt.Fprintf(stdout, "\n== verify: the pulls under pool %s's configuration with these changes\n", r.Pool)
	return o.check(ctx, stdout, stderr, r.Config, r.Provenance, images)
}
