// Package releasepayload reads what a release image names: the release-manifests/image-references file of its
// layers, an ImageStream whose tags are every image an upgrade to it, or a new node, pulls. It reads with
// containers/image's docker transport (the registries.conf, auth file and certificates of the SystemContext it
// is given, as a node would), from the release image's manifest to the one layer holding the file; nothing is
// written anywhere.
package releasepayload

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/manifest"
	"github.com/containers/image/v5/pkg/blobinfocache/none"
	"github.com/containers/image/v5/pkg/compression"
	"github.com/containers/image/v5/types"
)

// ImageReferencesPath is where a release image carries its image references.
const ImageReferencesPath = "release-manifests/image-references"

// Image is one image of a release payload.
type Image struct {
	// Name is the ImageStream tag's name, e.g. "cli".
	Name string `json:"name"`
	// Reference is its image, e.g. "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:…".
	Reference string `json:"reference"`
}

// imageStream is the part of the image-references ImageStream that is read.
type imageStream struct {
	Kind string `json:"kind"`
	Spec struct {
		Tags []struct {
			Name string `json:"name"`
			From struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
			} `json:"from"`
		} `json:"tags"`
	} `json:"spec"`
}

// ErrNoImageReferences is wrapped when a release image's layers hold no release-manifests/image-references.
var ErrNoImageReferences = errors.New("no " + ImageReferencesPath + " in the image's layers: not a release image")

// Read returns the images releaseImage's image-references names, in its order, read through sys. A manifest list
// is resolved for sys's platform (the running one by default).
func Read(ctx context.Context, sys *types.SystemContext, releaseImage string) ([]Image, error) {
	ref, err := docker.ParseReference("//" + releaseImage)
	if err != nil {
		return nil, fmt.Errorf("release image %q: %w", releaseImage, err)
	}
	src, err := ref.NewImageSource(ctx, sys)
	if err != nil {
		return nil, fmt.Errorf("reading release image %s: %w", releaseImage, err)
	}
	defer src.Close()
	m, err := singleManifest(ctx, src, sys)
	if err != nil {
		return nil, fmt.Errorf("reading release image %s: %w", releaseImage, err)
	}
	layers := m.LayerInfos()
	// The file is in one of the last layers (the release tooling adds it on top): read from the top down.
	for i := len(layers) - 1; i >= 0; i-- {
		data, err := fileInLayer(ctx, src, layers[i].BlobInfo, ImageReferencesPath)
		if err != nil {
			return nil, fmt.Errorf("reading release image %s, layer %s: %w", releaseImage, layers[i].Digest, err)
		}
		if data != nil {
			images, err := Parse(data)
			if err != nil {
				return nil, fmt.Errorf("release image %s: %s: %w", releaseImage, ImageReferencesPath, err)
			}
			return images, nil
		}
	}
	return nil, fmt.Errorf("release image %s: %w", releaseImage, ErrNoImageReferences)
}

// Parse reads an image-references ImageStream: each tag's from.name, for tags from a DockerImage.
func Parse(data []byte) ([]Image, error) {
	var is imageStream
	if err := json.Unmarshal(data, &is); err != nil {
		return nil, err
	}
	if is.Kind != "ImageStream" {
		return nil, fmt.Errorf("kind %q, want ImageStream", is.Kind)
	}
	var out []Image
	for i, t := range is.Spec.Tags {
		if t.From.Kind != "DockerImage" || t.From.Name == "" {
			return nil, fmt.Errorf("spec.tags[%d] (%q): from must be a DockerImage with a name, is %q %q", i, t.Name, t.From.Kind, t.From.Name)
		}
		out = append(out, Image{Name: t.Name, Reference: t.From.Name})
	}
	return out, nil
}

// singleManifest returns the image's manifest, the platform's instance of a manifest list.
func singleManifest(ctx context.Context, src types.ImageSource, sys *types.SystemContext) (manifest.Manifest, error) {
	blob, mime, err := src.GetManifest(ctx, nil)
	if err != nil {
		return nil, err
	}
	if manifest.MIMETypeIsMultiImage(mime) {
		list, err := manifest.ListFromBlob(blob, mime)
		if err != nil {
			return nil, err
		}
		d, err := list.ChooseInstance(sys)
		if err != nil {
			return nil, err
		}
		if blob, mime, err = src.GetManifest(ctx, &d); err != nil {
			return nil, err
		}
	}
	return manifest.FromBlob(blob, mime)
}

// maxFile bounds what is read of the file: image-references of a release are about 100 KiB.
const maxFile = 16 << 20

// fileInLayer returns the content of name in the layer, nil when the layer does not hold it.
func fileInLayer(ctx context.Context, src types.ImageSource, layer types.BlobInfo, name string) ([]byte, error) {
	blob, _, err := src.GetBlob(ctx, layer, none.NoCache)
	if err != nil {
		return nil, err
	}
	defer blob.Close()
	r, _, err := compression.AutoDecompress(blob)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if path.Clean("/"+h.Name) == "/"+name && h.Typeflag == tar.TypeReg {
			return io.ReadAll(io.LimitReader(tr, maxFile))
		}
	}
}

// References returns the references of images, without duplicates, in order.
func References(images []Image) []string {
	var out []string
	for _, img := range images {
		if !slices.Contains(out, img.Reference) {
			out = append(out, img.Reference)
		}
	}
	return out
}
