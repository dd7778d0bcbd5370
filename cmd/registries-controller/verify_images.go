package main

import (
	"context"
	"fmt"
	"os"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/releasepayload"
	"github.com/openshift/registries-controller/pkg/verify"
)

// images gathers the images to check: the release image and its payload, the file's, the running pods'.
func (o *verifyOptions) images(ctx context.Context, cfg *registriesconf.Config) ([]verify.Named, error) {
	var out []verify.Named
	if o.releaseImage != "" {
		payload, err := readPayload(ctx, cfg, o.checkFlags, o.releaseImage)
		if err != nil {
			return nil, err
		}
		out = append(out, payload...)
	}
	if o.filename != "" {
		data, err := os.ReadFile(o.filename)
		if err != nil {
			return nil, err
		}
		listed, err := verify.ParseImageList(o.filename, data)
		if err != nil {
			return nil, err
		}
		out = append(out, listed...)
	}
	if o.running {
		running, err := runningImages(ctx, o.kubeconfig)
		if err != nil {
			return nil, err
		}
		out = append(out, running...)
	}
	return out, nil
}

// readPayload reads the release image's image-references through cfg, as a node pulls it (its mirrors, the auth
// file, the certs.d CAs), and returns the release image and each image it names.
func readPayload(ctx context.Context, cfg *registriesconf.Config, c checkFlags, releaseImage string) ([]verify.Named, error) {
	sys := *cfg.SystemContext()
	sys.AuthFilePath = c.authFile
	if c.authFile == "" {
		// No credentials at all, rather than the invoking user's own auth files: an empty auth file.
		empty, err := emptyAuthFile()
		if err != nil {
			return nil, err
		}
		defer os.Remove(empty)
		sys.AuthFilePath = empty
	}
	sys.DockerPerHostCertDirPath = c.certsDir
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	payload, err := releasepayload.Read(ctx, &sys, releaseImage)
	if err != nil {
		return nil, err
	}
	out := []verify.Named{{Reference: releaseImage, From: "the release image"}}
	for _, img := range payload {
		out = append(out, verify.Named{Reference: img.Reference, From: fmt.Sprintf("release image-references %q", img.Name)})
	}
	return out, nil
}

// runningImages lists the images of every pod of the cluster, with the pods that run each (the first three).
func runningImages(ctx context.Context, kubeconfig string) ([]verify.Named, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, previewTimeout)
	defer cancel()
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the cluster's pods: %w", err)
	}
	var out []verify.Named
	for _, p := range pods.Items {
		for _, image := range podImages(&p.Spec) {
			out = append(out, verify.Named{Reference: image, From: fmt.Sprintf("pod %s/%s", p.Namespace, p.Name)})
		}
	}
	return out, nil
}

func podImages(spec *corev1.PodSpec) []string {
	var out []string
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		out = append(out, c.Image)
	}
	for _, c := range spec.EphemeralContainers {
		out = append(out, c.Image)
	}
	return out
}

// emptyAuthFile writes an auth file without credentials and returns its path.
func emptyAuthFile() (string, error) {
	f, err := os.CreateTemp("", "verify-auth-*.json")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(`{"auths": {}}`)
	return f.Name(), err
}
