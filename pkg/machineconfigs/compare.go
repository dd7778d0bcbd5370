package machineconfigs

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Difference is one way an existing generated MachineConfig differs from the desired one.
type Difference struct {
	// File is the node path of a file that differs, "" for metadata and the rest of the config.
	File string
	// Text says what differs, e.g. "file /etc/containers/registries.conf: contents differ" or
	// "label machineconfiguration.openshift.io/role: have \"master\", want \"worker\"".
	Text string
	// Build is true for a difference that only says which build or controller wrote the MachineConfig: a version
	// annotation (which this project no longer writes), or an owner reference to the right object that is no
	// controller reference (as older builds and MCO write it). Writing drops the one and completes the other, a
	// metadata-only update (PlanOptions.AnyBuild leaves these out).
	Build bool
}

func (d Difference) String() string { return d.Text }

// Strings returns the texts of ds.
func Strings(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Text
	}
	return out
}

// Differences compares an existing MachineConfig (have is its decoded config, Decode) with the desired one by
// meaning, not by bytes: the decoded file contents and their attributes against the render's files, the Ignition
// version, and the labels and owner references the desired one sets. A version annotation is a difference
// (VersionAnnotation: none is written, one found is dropped); labels and annotations other owners added are not,
// nor is how the contents are encoded (a data URL's media type, gzip). It returns one line per difference, nothing
// when writing desired would change nothing a node, MCO's render controller or a person cares about.
func Differences(existing *mcfgv1.MachineConfig, have *Config, desired *Desired) []Difference {
	var diffs []Difference
	diffs = append(diffs, metadataDifferences(existing, desired.Object)...)
	if e, d := normalizeSpec(existing.Spec), normalizeSpec(desired.Object.Spec); !reflect.DeepEqual(e, d) {
		diffs = append(diffs, Difference{Text: "spec fields other than config differ (osImageURL, kernelArguments, extensions, fips, kernelType)"})
	}
	if have.Version != IgnitionVersion {
		diffs = append(diffs, Difference{Text: fmt.Sprintf("Ignition version: have %q, want %q", have.Version, IgnitionVersion)})
	}
	if have.Other {
		diffs = append(diffs, Difference{Text: "the Ignition config holds more than the generated files"})
	}
	file := func(p, format string, args ...any) {
		diffs = append(diffs, Difference{File: p, Text: fmt.Sprintf("file %s"+format, append([]any{p}, args...)...)})
	}
	seen := make(map[string]bool, len(desired.Files))
	for _, w := range desired.Files {
		seen[w.Path] = true
		h, ok := have.Files.Get(w.Path)
		switch {
		case !ok:
			file(w.Path, " missing")
		case !bytes.Equal(h, w.Data):
			file(w.Path, ": contents differ")
		case have.Attributes[w.Path] != "":
			file(w.Path, ": attributes differ (%s)", have.Attributes[w.Path])
		}
	}
	for _, h := range have.Files {
		if !seen[h.Path] {
			seen[h.Path] = true
			file(h.Path, " is not generated")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(have.Errors)) {
		diffs = append(diffs, Difference{File: p, Text: have.Errors[p].Error()})
	}
	return diffs
}

// Configs decodes the Ignition config of existing MachineConfigs: a *Decoder (which keeps each version it decoded),
// or the configs of desired ones held in memory (DesiredConfigs).
type Configs interface {
	Decode(mc *mcfgv1.MachineConfig) (*Config, error)
}

// DifferencesOf is Differences with existing decoded by configs; a config that does not decode is one difference,
// which writing desired repairs.
func DifferencesOf(existing *mcfgv1.MachineConfig, configs Configs, desired *Desired) []Difference {
	have, err := configs.Decode(existing)
	if err != nil {
		return []Difference{{Text: err.Error()}}
	}
	return Differences(existing, have, desired)
}

// DesiredConfigs are the configs of desired MachineConfigs by name, from their files in memory (Desired.Config):
// Configs for comparing one render with another without encoding and decoding. A MachineConfig it does not hold is
// decoded.
type DesiredConfigs map[string]*Desired

// ConfigsOf returns the DesiredConfigs of ds.
func ConfigsOf(ds []*Desired) DesiredConfigs {
	out := make(DesiredConfigs, len(ds))
	for _, d := range ds {
		out[d.Object.Name] = d
	}
	return out
}

// Decode returns the config of mc: from memory when mc is a desired MachineConfig's object, else Decode(mc).
func (c DesiredConfigs) Decode(mc *mcfgv1.MachineConfig) (*Config, error) {
	if d, ok := c[mc.Name]; ok && d.Object == mc {
		return d.Config(), nil
	}
	return Decode(mc)
}

// metadataDifferences returns the labels and owner references desired sets that existing lacks or holds otherwise,
// and the version annotation existing holds, which no desired MachineConfig carries (VersionAnnotation).
func metadataDifferences(existing, desired *mcfgv1.MachineConfig) []Difference {
	var diffs []Difference
	for _, k := range slices.Sorted(maps.Keys(desired.Labels)) {
		if got, ok := existing.Labels[k]; !ok || got != desired.Labels[k] {
			diffs = append(diffs, Difference{Text: fmt.Sprintf("label %s: have %q, want %q", k, got, desired.Labels[k])})
		}
	}
	if v, ok := existing.Annotations[VersionAnnotation]; ok {
		diffs = append(diffs, Difference{Build: true, Text: fmt.Sprintf("annotation %s: have %q, want none (MCO's render controller refuses another build's)", VersionAnnotation, v)})
	}
	for _, want := range desired.OwnerReferences {
		switch {
		case hasOwner(existing.OwnerReferences, want):
		case isController(want) && hasOwner(existing.OwnerReferences, asReference(want)):
			diffs = append(diffs, Difference{Build: true, Text: fmt.Sprintf("owner reference to %s %s (uid %s): not a controller reference", want.Kind, want.Name, want.UID)})
		default:
			diffs = append(diffs, Difference{Text: fmt.Sprintf("owner reference to %s %s (uid %s) missing", want.Kind, want.Name, want.UID)})
		}
	}
	return diffs
}

// hasOwner reports whether refs hold a reference to want's object, a controller reference when want is one.
func hasOwner(refs []metav1.OwnerReference, want metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.APIVersion == want.APIVersion && r.Kind == want.Kind && r.Name == want.Name && r.UID == want.UID &&
			(!isController(want) || isController(r)) {
			return true
		}
	}
	return false
}

// asReference returns ref without the controller and blockOwnerDeletion flags.
func asReference(ref metav1.OwnerReference) metav1.OwnerReference {
	ref.Controller, ref.BlockOwnerDeletion = nil, nil
	return ref
}

func isController(r metav1.OwnerReference) bool { return r.Controller != nil && *r.Controller }

// normalizeSpec drops the config, compared decoded, and treats nil and empty lists alike, as the API server does
// on a round trip.
func normalizeSpec(s mcfgv1.MachineConfigSpec) mcfgv1.MachineConfigSpec {
	s.Config.Raw, s.Config.Object = nil, nil
	if len(s.KernelArguments) == 0 {
		s.KernelArguments = nil
	}
	if len(s.Extensions) == 0 {
		s.Extensions = nil
	}
	return s
}
