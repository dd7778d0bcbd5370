package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registries"
)

// The size budget of a generated MachineConfig: etcd refuses a request over its limit (1.5 MiB by default), and
// the API server passes the refusal on, so a MachineConfig larger than that can never be written.
const (
	// MaxMachineConfigBytes is etcd's default request limit, 1.5 MiB.
	MaxMachineConfigBytes = 1536 * 1024
	// nearPercent is how full a MachineConfig may get before the render warns.
	nearPercent = 80
	// topContributors is how many objects a size problem names.
	topContributors = 10
)

// Size is how large one generated MachineConfig is, as a write request carries it.
type Size struct {
	Key machineconfigs.Key
	// Bytes is the length of the MachineConfig's JSON, e.g. 1204116.
	Bytes int
}

// Percent is Bytes as a share of MaxMachineConfigBytes, rounded down.
func (s Size) Percent() int { return s.Bytes * 100 / MaxMachineConfigBytes }

// Near reports whether the MachineConfig is at least 80% of the limit: admins should see it coming.
func (s Size) Near() bool { return s.Percent() >= nearPercent }

// Over reports whether the MachineConfig is larger than the limit: it can never be written.
func (s Size) Over() bool { return s.Bytes > MaxMachineConfigBytes }

// String says it for a person: `99-worker-generated-registries is 1,204,116 bytes, 76% of the 1,572,864 bytes
// (1.5 MiB) etcd accepts in one request`.
func (s Size) String() string {
	return fmt.Sprintf("%s is %s bytes, %d%% of the %s bytes (1.5 MiB) etcd accepts in one request",
		s.Key.Name(), thousands(s.Bytes), s.Percent(), thousands(MaxMachineConfigBytes))
}

// sizes returns the size of every MachineConfig of out: its JSON without the config, plus the config.
func sizes(out *Output) ([]Size, error) {
	var all []Size
	for _, d := range out.MachineConfigs {
		meta := d.Object.DeepCopy()
		meta.Spec.Config.Raw = nil
		data, err := json.Marshal(meta)
		if err != nil {
			return nil, fmt.Errorf("encoding MachineConfig %s: %w", d.Key.Name(), err)
		}
		all = append(all, Size{Key: d.Key, Bytes: len(data) - len("null") + len(d.Object.Spec.Config.Raw)})
	}
	return all, nil
}

// sizeProblems returns, for every output with MachineConfigs over the limit (for an output with one per pool, all of
// the same size but for the pool's name), a problem on the Image "cluster" naming them with the largest figure and
// the limit, and one on each of the ten objects contributing most, with the bytes each contributes.
func sizeProblems(out *Output) []inputs.Problem {
	var ps []inputs.Problem
	for _, r := range out.Outputs {
		var largest *Size
		var names []string
		for i, s := range out.Sizes {
			if s.Key.Output == r.Output && s.Over() {
				names = append(names, s.Key.Name())
				if largest == nil || s.Bytes > largest.Bytes {
					largest = &out.Sizes[i]
				}
			}
		}
		if largest == nil {
			continue
		}
		value := strings.Join(names, ", ")
		ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: inputs.ImageRef, Field: "spec"}, Value: value,
			Message: fmt.Sprintf("the mirror configuration renders MachineConfigs of up to %s bytes, more than the %s bytes (1.5 MiB) "+
				"etcd accepts in one request: they cannot be written, and every MachineConfig keeps its last good content",
				thousands(largest.Bytes), thousands(MaxMachineConfigBytes)),
			Fix: "remove mirror objects no longer needed, or merge entries that list the same mirrors; the ten objects " +
				"contributing most say so in their events"})
		for _, c := range contributors(out, r.Output) {
			ps = append(ps, inputs.Problem{At: inputs.FieldRef{Object: c.ref, Field: "spec"}, Value: value,
				Message: fmt.Sprintf("contributes about %s bytes to MachineConfigs of up to %s bytes, more than the %s bytes (1.5 MiB) "+
					"etcd accepts in one request", thousands(c.bytes), thousands(largest.Bytes), thousands(MaxMachineConfigBytes)),
				Fix: "one of the ten largest contributors: remove it if it is no longer needed, or merge it with objects listing the same mirrors"})
		}
	}
	return ps
}

// SizeWarnings returns a warning for every MachineConfig at 80% of the limit or more, but not over it.
func (out *Output) SizeWarnings() []string {
	var ws []string
	for _, s := range out.Sizes {
		if s.Near() && !s.Over() {
			ws = append(ws, s.String()+": a few more mirror entries and it can no longer be written")
		}
	}
	return ws
}

// contribution is about how many bytes of an output's files one object brings.
type contribution struct {
	ref   inputs.ObjectRef
	bytes int
}

// contributors returns the ten objects that contribute most to the registries output, by bytes, largest first:
// each mirror's [[registry.mirror]] table is shared among the entries that list it, each source's [[registry]]
// table among the entries that configure it, and base64 makes every byte four thirds of one. Other outputs are
// small by construction (the credential providers take at most 50 entries) and name no contributor.
func contributors(out *Output, o *machineconfigs.Output) []contribution {
	if o != machineconfigs.Registries || out.Report == nil {
		return nil
	}
	bytes := map[inputs.ObjectRef]float64{}
	share := func(refs []inputs.FieldRef, n int) {
		for _, r := range refs {
			bytes[r.Object] += float64(n) * 4 / 3 / float64(len(refs))
		}
	}
	for _, src := range out.Report.SourceReports() {
		share(src.Entries, len(registryTable(src)))
		for _, m := range src.Mirrors {
			share(m.Origins, len(mirrorTable(m.Location, src.Group)))
		}
	}
	var all []contribution
	for ref, b := range bytes {
		all = append(all, contribution{ref: ref, bytes: int(b)})
	}
	slices.SortFunc(all, func(a, b contribution) int {
		if a.bytes != b.bytes {
			return b.bytes - a.bytes
		}
		return strings.Compare(a.ref.String(), b.ref.String())
	})
	return all[:min(len(all), topContributors)]
}

// registryTable and mirrorTable are the TOML a source and a mirror take in registries.conf (docs/semantics.md §2.9).
func registryTable(src registries.SourceReport) string {
	return fmt.Sprintf("\n[[registry]]\n  prefix = \"\"\n  location = %q\n", src.Source)
}

func mirrorTable(location string, group registries.Group) string {
	return fmt.Sprintf("\n  [[registry.mirror]]\n    location = %q\n    pull-from-mirror = %q\n", location, string(group)+"-only")
}

// thousands prints n with commas: 1572864 as "1,572,864".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
