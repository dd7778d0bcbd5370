package rollout

import (
	"bytes"
	"sort"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// ManagedFiles returns the files mc writes at paths keep accepts, decoded with dec (which keeps what it decoded
// per resourceVersion; nil decodes every time), sorted by path; for a path written twice, the last entry, as
// Ignition's merge keeps. A file that does not decode is an error naming it.
func ManagedFiles(dec *machineconfigs.Decoder, mc *mcfgv1.MachineConfig, keep func(string) bool) (nodefiles.Files, error) {
	cfg, err := dec.Decode(mc)
	if err != nil {
		return nil, err
	}
	for p, err := range cfg.Errors {
		if keep(p) {
			return nil, err
		}
	}
	byPath := map[string][]byte{}
	for _, f := range cfg.Files {
		if keep(f.Path) {
			byPath[f.Path] = f.Data
		}
	}
	out := make(nodefiles.Files, 0, len(byPath))
	for p, data := range byPath {
		out = append(out, nodefiles.File{Path: p, Data: data})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
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
