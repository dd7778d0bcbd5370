package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// File modes in the layer: everything is owned by root and readable by anyone, so that any user the cluster
// assigns can run the binary and read the manifests, and nobody but root can change them.
const (
	dirMode    int64 = 0o755
	binaryMode int64 = 0o755
	fileMode   int64 = 0o644
	// tmpMode is /tmp's: writable by anyone, sticky.
	tmpMode int64 = 0o1777
)

// rootEntry is one file or directory of the layer.
type rootEntry struct {
	// name is the path without the leading slash, as in a layer's tar, e.g. "usr/bin/registries-controller".
	name string
	mode int64
	dir  bool
	// source is the file on disk whose content the entry has; empty for directories.
	source string
}

// rootEntries lists the layer's entries, parents before children and in byte order otherwise: the binary at
// binaryPath, every regular file under manifests at the same relative path under manifestsDir, and tmpDir.
func rootEntries(binary, manifests string) ([]rootEntry, error) {
	entries := []rootEntry{
		{name: strings.TrimPrefix(path.Dir(path.Dir(binaryPath)), "/"), mode: dirMode, dir: true},
		{name: strings.TrimPrefix(path.Dir(binaryPath), "/"), mode: dirMode, dir: true},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: binaryMode, source: binary},
		{name: strings.TrimPrefix(tmpDir, "/"), mode: tmpMode, dir: true},
	}
	root := strings.TrimPrefix(manifestsDir, "/")
	err := filepath.WalkDir(manifests, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(manifests, p)
		if err != nil {
			return err
		}
		name := path.Join(root, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			entries = append(entries, rootEntry{name: name, mode: dirMode, dir: true})
		case d.Type().IsRegular():
			entries = append(entries, rootEntry{name: name, mode: fileMode, source: p})
		default:
			return fmt.Errorf("%s: only regular files and directories can go into the image", p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the manifests: %w", err)
	}
	// Byte order puts every directory before what it holds ("usr" < "usr/bin").
	slices.SortFunc(entries, func(a, b rootEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// rootTar writes entries as an uncompressed tar, every entry owned by root (0:0) with modification time created.
func rootTar(entries []rootEntry, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, ModTime: created, Format: tar.FormatPAX}
		var data []byte
		if e.dir {
			hdr.Typeflag = tar.TypeDir
			hdr.Name += "/"
		} else {
			var err error
			if data, err = os.ReadFile(e.source); err != nil {
				return nil, err
			}
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newRootLayer returns the image's one layer: the binary, the manifests and /tmp (see rootEntries), as a
// gzip-compressed OCI layer.
func newRootLayer(binary, manifests string, created time.Time) (v1.Layer, error) {
	entries, err := rootEntries(binary, manifests)
	if err != nil {
		return nil, err
	}
	data, err := rootTar(entries, created)
	if err != nil {
		return nil, fmt.Errorf("writing the layer: %w", err)
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
}
