package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// refNameAnnotation names the image in an OCI layout's index.json: `skopeo copy oci:DIR:TAG ...`.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// repository is the image's name in the `docker load` tarball, with --tag.
const repository = "registries-controller"

// tarballMode is the tarball's file mode: readable by anyone, as a build output.
const tarballMode = 0o644

// errUsage is wrapped by the errors of a command line that lacks a flag.
var errUsage = errors.New("usage")

// options are the command line.
type options struct {
	binary, manifests, version, arch, tag string
	created                               int64
	layoutDir, tarballPath                string
}

func parseOptions(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.StringVar(&o.binary, "binary", "", "the statically linked registries-controller binary (required)")
	fs.StringVar(&o.manifests, "manifests", "", "the directory of manifests copied to "+manifestsDir+" (required)")
	fs.StringVar(&o.version, "version", "", "the version the binary was built as, recorded in the "+versionLabel+" label (required)")
	fs.StringVar(&o.arch, "arch", "", "the GOARCH the binary was built for, e.g. amd64 (required)")
	fs.StringVar(&o.tag, "tag", "latest", "the tag in the OCI layout's index and the tarball ("+repository+":TAG)")
	fs.Int64Var(&o.created, "created", 0, "the creation time, in seconds since the epoch (e.g. the commit's, for reproducible digests)")
	fs.StringVar(&o.layoutDir, "layout", "", "the OCI image layout directory to write (replaced) (required)")
	fs.StringVar(&o.tarballPath, "tarball", "", "a `docker load` tarball to write too (optional)")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	for flagName, v := range map[string]string{"binary": o.binary, "manifests": o.manifests, "version": o.version, "arch": o.arch, "layout": o.layoutDir} {
		if v == "" {
			return nil, fmt.Errorf("%w: --%s is required", errUsage, flagName)
		}
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if err == nil {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
}

func run(o *options) error {
	created := time.Unix(o.created, 0).UTC()
	layer, err := newRootLayer(o.binary, o.manifests, created)
	if err != nil {
		return err
	}
	img, err := buildImage(imageSpec{arch: o.arch, version: o.version, created: created, layer: layer})
	if err != nil {
		return err
	}
	if err := writeLayout(o.layoutDir, o.tag, img); err != nil {
		return fmt.Errorf("writing the OCI layout %s: %w", o.layoutDir, err)
	}
	if o.tarballPath != "" {
		if err := writeTarball(o.tarballPath, o.tag, img); err != nil {
			return fmt.Errorf("writing the tarball %s: %w", o.tarballPath, err)
		}
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (oci:%s:%s), manifest %s\n", o.layoutDir, o.layoutDir, o.tag, digest)
	if o.tarballPath != "" {
		fmt.Printf("wrote %s (docker load: %s:%s)\n", o.tarballPath, repository, o.tag)
	}
	return nil
}

// writeLayout replaces dir with an OCI image layout holding img alone, named tag.
func writeLayout(dir, tag string, img v1.Image) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	return p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: tag}))
}

// writeTarball writes img as a `docker load` tarball named repository:tag, through a temporary file renamed
// into place.
func writeTarball(path, tag string, img v1.Image) error {
	ref, err := name.NewTag(repository + ":" + tag)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".image-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tarball.Write(ref, img, tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), tarballMode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
