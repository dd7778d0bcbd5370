package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/openshift/registries-controller/test/framework"
)

// layerFile is a regular file of a layer.
type layerFile struct {
	mode     int64
	uid, gid int
	data     []byte
}

// layerContents is what a layer holds, by path without the leading slash ("usr/bin/registries-controller").
type layerContents struct {
	// diffID is the digest of the uncompressed tar, which the config's rootfs.diff_ids must name.
	diffID digest.Digest
	files  map[string]layerFile
	// dirs maps each directory to its mode.
	dirs map[string]int64
	// others are entries of any other type (links, devices): the image has none.
	others []string
}

// readLayer gunzips and untars a layer blob.
func readLayer(t *testing.T, blob []byte) *layerContents {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		t.Fatalf("the layer is not gzip: %v", err)
	}
	raw, err := io.ReadAll(gz)
	if err != nil {
		t.Fatalf("gunzipping the layer: %v", err)
	}
	l := &layerContents{diffID: digest.FromBytes(raw), files: map[string]layerFile{}, dirs: map[string]int64{}}
	tr := tar.NewReader(bytes.NewReader(raw))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the layer's tar: %v", err)
		}
		name := strings.Trim(path.Clean("/"+hdr.Name), "/")
		switch hdr.Typeflag {
		case tar.TypeDir:
			l.dirs[name] = hdr.Mode
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("reading %s from the layer: %v", name, err)
			}
			l.files[name] = layerFile{mode: hdr.Mode, uid: hdr.Uid, gid: hdr.Gid, data: data}
		default:
			l.others = append(l.others, name)
		}
	}
	return l
}

// checkLayerFiles checks that the layer holds exactly the binary, every file of the repository's manifests/
// (same bytes) under manifests/, their directories and tmp/, owned by root and readable by anyone.
func checkLayerFiles(t *testing.T, l *layerContents) {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(root, "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, e := range entries {
		want["manifests/"+e.Name()] = readFile(t, filepath.Join(root, "manifests", e.Name()))
	}
	if _, ok := want["manifests/image-references"]; !ok || len(want) < 2 {
		t.Fatalf("manifests/ of the repository holds %d files, without image-references", len(want))
	}
	binary := strings.TrimPrefix(wantEntrypoint, "/")
	var names []string
	for name, f := range l.files {
		names = append(names, name)
		if f.uid != 0 || f.gid != 0 {
			t.Errorf("%s is owned by %d:%d, want root (0:0)", name, f.uid, f.gid)
		}
		switch {
		case name == binary:
			if f.mode != 0o755 || len(f.data) == 0 {
				t.Errorf("%s: mode %o, %d bytes; want 755 and a binary", name, f.mode, len(f.data))
			}
		case want[name] != nil:
			if f.mode != 0o644 {
				t.Errorf("%s: mode %o, want 644", name, f.mode)
			}
			if !bytes.Equal(f.data, want[name]) {
				t.Errorf("%s differs from the repository's", name)
			}
		default:
			t.Errorf("unexpected file %s in the layer", name)
		}
	}
	for name := range want {
		if _, ok := l.files[name]; !ok {
			t.Errorf("%s is missing from the layer", name)
		}
	}
	if _, ok := l.files[binary]; !ok {
		t.Fatalf("%s is missing from the layer; it holds %q", wantEntrypoint, names)
	}
	wantDirs := map[string]int64{"usr": 0o755, "usr/bin": 0o755, "manifests": 0o755, "tmp": 0o1777}
	if !maps.Equal(l.dirs, wantDirs) {
		t.Errorf("directories and modes %s, want %s", octalModes(l.dirs), octalModes(wantDirs))
	}
	if len(l.others) > 0 {
		slices.Sort(l.others)
		t.Errorf("entries that are neither files nor directories: %q", l.others)
	}
}

// octalModes formats directory modes for a message, e.g. "[tmp:1777 usr:755]".
func octalModes(modes map[string]int64) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(modes)) {
		parts = append(parts, fmt.Sprintf("%s:%o", name, modes[name]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
