package cluster

import (
	"fmt"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Reasons an optional kind is not read, as inputs.Inputs.Unwatched says them.
const (
	// whyNotServed: the API server does not serve the kind.
	whyNotServed = "the API server does not serve it (its CRD is missing)"
	// whyGateOffFormat: the kind's feature gate is off; %s is the gate.
	whyGateOffFormat = "the feature gate %s is off"
)

// Optional is what RefreshOptional decided.
type Optional struct {
	// Changed reports whether a kind started or stopped being read.
	Changed bool
	// Missing are the optional kinds that count (the FeatureGate; a gated kind whose gate is on) but are not
	// served: their CRD is missing, and the outputs that depend on them are not managed until it is installed.
	Missing []*inputs.Kind
	// Pending is true while the FeatureGate is read but its cache is not filled yet: the gates are decided once
	// it is.
	Pending bool
}

// RefreshOptional decides which optional kinds are read, as MCO decides which gated kinds it watches: the
// FeatureGate whenever served does; a gated kind when served does and its gate is on (inputs.Inputs.
// FeatureGateEnabled, from the FeatureGate as read; on without one). Kinds it stops reading keep their informers,
// so a gate turned on again needs no new list.
func (r *Reader) RefreshOptional(served func(*inputs.Kind) bool) (Optional, error) {
	var out Optional
	fg := inputs.KindNamed(inputs.KindFeatureGate)
	set := func(k *inputs.Kind, read bool, why string) error {
		if read {
			added, err := r.Watch(k)
			out.Changed = out.Changed || added
			return err
		}
		out.Changed = r.Unwatch(k, why) || out.Changed
		return nil
	}
	if err := set(fg, served(fg), whyNotServed); err != nil {
		return out, err
	}
	if !served(fg) {
		out.Missing = append(out.Missing, fg)
	}
	if r.Watched(fg) && !r.Informer(fg).HasSynced() {
		out.Pending = true
		return out, nil
	}
	in := r.gateInputs()
	for _, k := range inputs.Kinds {
		if !k.Optional || k.Gate == "" {
			continue
		}
		on, _ := in.FeatureGateEnabled(k.Gate)
		switch {
		case !on:
			if err := set(k, false, fmt.Sprintf(whyGateOffFormat, k.Gate)); err != nil {
				return out, err
			}
		case !served(k):
			out.Missing = append(out.Missing, k)
			if err := set(k, false, whyNotServed); err != nil {
				return out, err
			}
		default:
			if err := set(k, true, ""); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// gateInputs returns the inputs that decide the feature gates: the FeatureGate and the ClusterVersion, as read.
func (r *Reader) gateInputs() *inputs.Inputs {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := &inputs.Inputs{}
	for _, name := range []string{inputs.KindFeatureGate, inputs.KindClusterVersion} {
		s := r.source(inputs.KindNamed(name))
		if s.unwatched != "" {
			continue
		}
		for _, o := range s.informer.GetIndexer().List() {
			if obj, ok := o.(inputs.Object); ok {
				in.Add(s.kind, obj)
			}
		}
	}
	return in
}
