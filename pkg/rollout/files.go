package rollout

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/vincent-petithory/dataurl"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Managed reports whether the render may write a file at node path p: registries.conf, policy.json, the search
// drop-in, sigstore-registries.yaml and the namespace policies (docs/semantics.md §3.2, §9.6). Only these paths of a
// rendered config are compared with a render.
func Managed(p string) bool {
	switch p {
	case nodefiles.RegistriesConf, nodefiles.PolicyJSON, nodefiles.SearchRegistries, nodefiles.SigstoreRegistries:
		return true
	}
	_, ok := nodefiles.IsNamespacePolicy(p)
	return ok
}

// ignitionFiles is the part of an Ignition config (any 3.x version) that holds files. It is decoded with a minimal
// struct, so that rendered configs of any 3.x spec version, with units, users or compressed files of other
// MachineConfigs, can be read.
type ignitionFiles struct {
	Storage struct {
		Files []struct {
			Path     string `json:"path"`
			Contents struct {
				Source      *string `json:"source"`
				Compression *string `json:"compression"`
			} `json:"contents"`
		} `json:"files"`
	} `json:"storage"`
}

// ManagedFiles returns the files mc writes at managed paths (Managed), decoded, sorted by path; for a path
// written twice, the last entry, as Ignition's merge keeps. Other files are not decoded. A managed file that
// does not decode is an error naming it.
func ManagedFiles(mc *mcfgv1.MachineConfig) (nodefiles.Files, error) {
	return filesWhere(mc, Managed)
}

func filesWhere(mc *mcfgv1.MachineConfig, keep func(string) bool) (nodefiles.Files, error) {
	if len(mc.Spec.Config.Raw) == 0 {
		return nil, nil
	}
	var cfg ignitionFiles
	if err := json.Unmarshal(mc.Spec.Config.Raw, &cfg); err != nil {
		return nil, fmt.Errorf("MachineConfig %s: spec.config is not an Ignition config: %w", mc.Name, err)
	}
	byPath := map[string][]byte{}
	for _, f := range cfg.Storage.Files {
		if !keep(f.Path) {
			continue
		}
		var data []byte
		if f.Contents.Source != nil {
			u, err := dataurl.DecodeString(*f.Contents.Source)
			if err != nil {
				return nil, fmt.Errorf("MachineConfig %s: file %s: contents are not a data URL: %w", mc.Name, f.Path, err)
			}
			if data, err = decompress(u.Data, f.Contents.Compression); err != nil {
				return nil, fmt.Errorf("MachineConfig %s: file %s: %w", mc.Name, f.Path, err)
			}
		}
		byPath[f.Path] = data
	}
	out := make(nodefiles.Files, 0, len(byPath))
	for p, data := range byPath {
		out = append(out, nodefiles.File{Path: p, Data: data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// decompress undoes Ignition's contents.compression ("" or "gzip").
func decompress(data []byte, compression *string) ([]byte, error) {
	if compression == nil || *compression == "" {
		return data, nil
	}
	if *compression != "gzip" {
		return nil, fmt.Errorf("unknown compression %q", *compression)
	}
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip contents: %w", err)
	}
	return io.ReadAll(r)
}

// Difference returns the first path at which have (e.g. a rendered config's managed files) differs from want,
// with how ("/etc/containers/registries.conf differs", "... missing", "... present"); "" when they hold the same
// files with the same contents, in any order.
func Difference(have, want nodefiles.Files) string {
	seen := map[string]bool{}
	for _, w := range want {
		seen[w.Path] = true
		h, ok := have.Get(w.Path)
		switch {
		case !ok:
			return w.Path + " missing"
		case !bytes.Equal(h, w.Data):
			return w.Path + " differs"
		}
	}
	for _, h := range have {
		if !seen[h.Path] {
			return h.Path + " present"
		}
	}
	return ""
}
