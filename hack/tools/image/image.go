// Command image assembles the registries-controller container image without a container engine or a base
// image: one layer holding the statically linked binary at /usr/bin/registries-controller, the manifests the
// CVO applies under /manifests and an empty /tmp, with the entrypoint, user and labels of the Dockerfile at the
// repository root. It writes the image as an OCI image layout directory and as a `docker load` tarball.
//
// make image runs it (see hack/image.sh):
//
//	image --binary _output/image/registries-controller --manifests manifests --version v0.1.0 \
//	    --arch amd64 --created 1767225600 --layout _output/image/oci --tarball _output/image/registries-controller.tar
//
// The result is reproducible: the same inputs give the same digests (timestamps come from --created).
package main

import (
	"fmt"
	"maps"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the Dockerfile says too; test/e2e/image checks that both agree.
const (
	// binaryPath is where the binary lives in the image, and the entrypoint.
	binaryPath = "/usr/bin/registries-controller"
	// manifestsDir holds the manifests the CVO applies (Dockerfile: COPY manifests /manifests).
	manifestsDir = "/manifests"
	// tmpDir is writable by anyone: containers/image loads each rendered registries.conf back from a file there
	// (the Deployment mounts an emptyDir over it).
	tmpDir = "/tmp"
	// imageUser is the numeric user the container runs as when the pod does not say: not root, so that the
	// Deployment's runAsNonRoot holds, and numeric, so that no /etc/passwd is needed.
	imageUser = "1001"
	// pathEnv is the PATH of the container's processes.
	pathEnv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	// versionLabel carries the version the binary was built as; `registries-controller --version` prints it too.
	versionLabel = "org.opencontainers.image.version"
)

// labels are the image's labels besides versionLabel. io.openshift.release.operator=true tells the release
// tooling that the image's /manifests are to be applied by the CVO.
var labels = map[string]string{
	"io.openshift.release.operator": "true",
	"io.k8s.display-name":           "registries-controller",
	"io.k8s.description":            "Renders the cluster's mirror configuration and signature policies into per-pool MachineConfigs.",
	"io.openshift.tags":             "openshift,registries-controller",
}

// imageSpec is what one image is made of.
type imageSpec struct {
	// arch is the GOARCH the binary was built for, e.g. "amd64".
	arch string
	// version is the version the binary was built as, e.g. "v0.1.0-12-gabcdef0".
	version string
	// created is the time recorded in the config, its history and the layer's files.
	created time.Time
	// layer is the root filesystem (see newRootLayer).
	layer v1.Layer
}

// buildImage returns the OCI image (OCI manifest and config media types) of spec.
func buildImage(spec imageSpec) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err := mutate.Append(img, mutate.Addendum{
		Layer:     spec.layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: spec.created},
			CreatedBy: fmt.Sprintf("hack/tools/image: %s and %s", binaryPath, manifestsDir),
			Comment:   "assembled without a base image by make image",
		},
	})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	cfg = cfg.DeepCopy()
	cfg.OS = "linux"
	cfg.Architecture = spec.arch
	cfg.Created = v1.Time{Time: spec.created}
	cfg.Config.Entrypoint = []string{binaryPath}
	cfg.Config.User = imageUser
	cfg.Config.Env = []string{pathEnv}
	cfg.Config.WorkingDir = "/"
	cfg.Config.Labels = maps.Clone(labels)
	cfg.Config.Labels[versionLabel] = spec.version
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("writing the config: %w", err)
	}
	return img, nil
}
