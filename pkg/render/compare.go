package render

import (
	"bytes"
	"fmt"
	"reflect"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Differences compares an existing MachineConfig with the desired one by meaning, not by bytes: decoded
// file contents, file modes and flags, the labels, annotations and owner references the desired one sets.
// Labels and annotations other owners added are not differences. It returns one line per difference, and
// nothing when writing desired would change nothing a node or a person cares about.
func Differences(existing, desired *mcfgv1.MachineConfig) []string {
	var diffs []string
	for k, v := range desired.Labels {
		if got, ok := existing.Labels[k]; !ok || got != v {
			diffs = append(diffs, fmt.Sprintf("label %s: have %q, want %q", k, got, v))
		}
	}
	for k, v := range desired.Annotations {
		if got, ok := existing.Annotations[k]; !ok || got != v {
			diffs = append(diffs, fmt.Sprintf("annotation %s: have %q, want %q", k, got, v))
		}
	}
	for _, want := range desired.OwnerReferences {
		if !hasOwner(existing.OwnerReferences, want) {
			diffs = append(diffs, fmt.Sprintf("owner reference to %s %s (uid %s) missing", want.Kind, want.Name, want.UID))
		}
	}
	diffs = append(diffs, specDifferences(existing, desired)...)
	return diffs
}

func hasOwner(refs []metav1.OwnerReference, want metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.APIVersion == want.APIVersion && r.Kind == want.Kind && r.Name == want.Name && r.UID == want.UID {
			return true
		}
	}
	return false
}

func specDifferences(existing, desired *mcfgv1.MachineConfig) []string {
	var diffs []string
	e, d := existing.Spec, desired.Spec
	e.Config, d.Config = desired.Spec.Config, desired.Spec.Config
	if !reflect.DeepEqual(normalizeSpec(e), normalizeSpec(d)) {
		diffs = append(diffs, "spec fields other than config differ (osImageURL, kernelArguments, extensions, fips, kernelType)")
	}
	have, err := parseIgnition(existing)
	if err != nil {
		return append(diffs, err.Error())
	}
	want, err := parseIgnition(desired)
	if err != nil {
		return append(diffs, err.Error())
	}
	if have.Ignition.Version != want.Ignition.Version {
		diffs = append(diffs, fmt.Sprintf("Ignition version: have %q, want %q", have.Ignition.Version, want.Ignition.Version))
	}
	haveFiles, wantFiles := have.Storage.Files, want.Storage.Files
	have.Storage.Files, want.Storage.Files = nil, nil
	have.Ignition.Version = want.Ignition.Version
	if !reflect.DeepEqual(have, want) {
		diffs = append(diffs, "the Ignition config holds more than the generated files")
	}
	return append(diffs, fileDifferences(haveFiles, wantFiles)...)
}

// normalizeSpec treats nil and empty lists alike, as the API server does on a round trip.
func normalizeSpec(s mcfgv1.MachineConfigSpec) mcfgv1.MachineConfigSpec {
	if len(s.KernelArguments) == 0 {
		s.KernelArguments = nil
	}
	if len(s.Extensions) == 0 {
		s.Extensions = nil
	}
	return s
}

func fileDifferences(have, want []ign3types.File) []string {
	var diffs []string
	byPath := make(map[string]ign3types.File, len(have))
	for _, f := range have {
		byPath[f.Path] = f
	}
	for _, w := range want {
		h, ok := byPath[w.Path]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("file %s missing", w.Path))
			continue
		}
		delete(byPath, w.Path)
		if d := fileDifference(h, w); d != "" {
			diffs = append(diffs, fmt.Sprintf("file %s: %s", w.Path, d))
		}
	}
	for _, h := range have {
		if _, extra := byPath[h.Path]; extra {
			diffs = append(diffs, fmt.Sprintf("file %s is not generated", h.Path))
		}
	}
	return diffs
}

func fileDifference(have, want ign3types.File) string {
	hd, herr := decodeContents(have)
	wd, werr := decodeContents(want)
	switch {
	case herr != nil:
		return herr.Error()
	case werr != nil:
		return werr.Error()
	case !bytes.Equal(hd, wd):
		return "contents differ"
	}
	// With the contents compared decoded, everything else must match exactly; an empty compression means
	// none, as when it is absent (MachineConfigs written before it was set explicitly).
	have.Contents.Source, want.Contents.Source = nil, nil
	have.Contents.Compression, want.Contents.Compression = nil, nil
	if !reflect.DeepEqual(have, want) {
		return "mode, overwrite or other file attributes differ"
	}
	return ""
}
