package containerruntime

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// SuffixAnnotation holds the suffix an object's MachineConfigs carry, "" for none, "1" to "9" (MCO's
// mc-name-suffix). Once set it never changes, so that merge order stays creation order.
const SuffixAnnotation = "machineconfiguration.openshift.io/mc-name-suffix"

// NoPoolMessage is MCO's message for an object that selects no pool (its Failure condition says "Error: " and
// it).
func NoPoolMessage(name string) string {
	return "could not find any MachineConfigPool set for ContainerRuntimeConfig " + name
}

// SelectedPools returns the names of the pools crc's machineConfigPoolSelector matches (by the pools' labels),
// sorted: custom pools too. A nil or empty selector selects none, as MCO has it; so does one that does not parse
// (Problems names it).
func SelectedPools(crc *mcfgv1.ContainerRuntimeConfig, pools []*mcfgv1.MachineConfigPool) []string {
	sel := crc.Spec.MachineConfigPoolSelector
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range pools {
		if s.Matches(labels.Set(p.Labels)) {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Assignment is the MachineConfig suffix of every object that selects a pool (AssignSuffixes).
type Assignment struct {
	// Suffix maps an object's name to the suffix its MachineConfigs carry on every pool it selects (0: none).
	Suffix map[string]int
	// Annotate maps the name of each object that has no SuffixAnnotation yet to the value to write there.
	Annotate map[string]string
	// Problems name the objects that get no MachineConfig: no suffix left, an annotation that is not a suffix, a
	// suffix another object holds on a shared pool; at install time, a second object on a pool.
	Problems []inputs.Problem
}

// maxSuffixMessage is MCO's message when an object would need a suffix above 9.
const maxSuffixMessage = "max number of supported ctrcfgs (10) has been reached. Please delete old ctrcfgs before retrying"

// AssignSuffixes returns the suffix of each object of crcs on the pools it selects (selected, by name), as MCO
// chooses them (docs/semantics.md §11.3), in creation order (then by name):
//   - the SuffixAnnotation, once an object has it: "" is 0, "1" to "9" that number;
//   - otherwise the highest suffix one of the object's finalizers names (an object from before the annotation);
//   - otherwise 0 when no object already given a suffix shares one of its pools, else one more than the highest
//     suffix among those: so the newest object merges last and wins, also after an older one is deleted. Above 9
//     is a problem, as in MCO, even when a lower suffix is free.
//
// One suffix holds on every pool an object selects. MCO chooses it on the first pool it visits, at random, and
// then overwrites another object's MachineConfig of that name on the next pool (a defect); here, when two objects
// hold one suffix on a shared pool, the older keeps it and the newer gets a problem and no MachineConfig.
//
// installTime is the install-time path (`render` without a cluster), MCO's bootstrap: every object's
// MachineConfigs carry no suffix, and a second object on a pool is a problem.
func AssignSuffixes(crcs []*mcfgv1.ContainerRuntimeConfig, selected map[string][]string, installTime bool) Assignment {
	a := Assignment{Suffix: map[string]int{}, Annotate: map[string]string{}}
	ordered := slices.Clone(crcs)
	slices.SortStableFunc(ordered, func(x, y *mcfgv1.ContainerRuntimeConfig) int {
		if c := x.CreationTimestamp.Compare(y.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(x.Name, y.Name)
	})
	holders := map[string]map[int]string{} // pool -> suffix -> object
	for _, crc := range ordered {
		pools := selected[crc.Name]
		if len(pools) == 0 {
			continue
		}
		at := inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindContainerRuntimeConfig, Name: crc.Name}}
		n, p := suffixOf(crc, pools, holders, installTime)
		if p != nil {
			p.At = at.Child(p.At.Field)
			a.Problems = append(a.Problems, *p)
			continue
		}
		if p := collision(crc.Name, n, pools, holders, installTime); p != nil {
			p.At.Object = at.Object
			a.Problems = append(a.Problems, *p)
			continue
		}
		for _, pool := range pools {
			if holders[pool] == nil {
				holders[pool] = map[int]string{}
			}
			holders[pool][n] = crc.Name
		}
		a.Suffix[crc.Name] = n
		if _, ok := crc.Annotations[SuffixAnnotation]; !ok && !installTime {
			a.Annotate[crc.Name] = suffixValue(n)
		}
	}
	return a
}

// suffixOf returns the suffix crc gets, or why it gets none.
func suffixOf(crc *mcfgv1.ContainerRuntimeConfig, pools []string, holders map[string]map[int]string, installTime bool) (int, *inputs.Problem) {
	if installTime {
		return 0, nil
	}
	if v, ok := crc.Annotations[SuffixAnnotation]; ok {
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > machineconfigs.MaxSuffix {
			msg := fmt.Sprintf("could not get ctrcfg key: error converting %s to int: %v", v, err)
			if err == nil {
				msg = "could not get ctrcfg key: " + maxSuffixMessage
			}
			return 0, &inputs.Problem{At: inputs.FieldRef{Field: "metadata.annotations[" + SuffixAnnotation + "]"}, Value: v, Message: msg,
				Fix: "remove the annotation: the controller then writes the next free suffix"}
		}
		return n, nil
	}
	if n, ok := finalizerSuffix(crc); ok {
		return n, nil
	}
	highest, shared := -1, false
	for _, pool := range pools {
		for n := range holders[pool] {
			shared = true
			highest = max(highest, n)
		}
	}
	if !shared {
		return 0, nil
	}
	if highest+1 > machineconfigs.MaxSuffix {
		return 0, &inputs.Problem{At: inputs.FieldRef{Field: "metadata.annotations[" + SuffixAnnotation + "]"},
			Message: "could not get ctrcfg key: " + maxSuffixMessage,
			Fix:     "merge the settings into fewer ContainerRuntimeConfigs on these pools, and delete the newest ones"}
	}
	return highest + 1, nil
}

// finalizerSuffix returns the highest suffix crc's finalizers name as MachineConfigs of this output (MCO names
// them so), for an object written before MCO kept the suffix in an annotation.
func finalizerSuffix(crc *mcfgv1.ContainerRuntimeConfig) (int, bool) {
	n, found := 0, false
	for _, f := range crc.Finalizers {
		if k, ok := machineconfigs.ContainerRuntime.ParseName(f); ok {
			n, found = max(n, k.Suffix), true
		}
	}
	return n, found
}

// collision returns a problem when another object holds suffix n on one of pools.
func collision(name string, n int, pools []string, holders map[string]map[int]string, installTime bool) *inputs.Problem {
	for _, pool := range pools {
		other, taken := holders[pool][n]
		if !taken {
			continue
		}
		key := machineconfigs.Key{Pool: pool, Output: machineconfigs.ContainerRuntime, Suffix: n}
		if installTime {
			return &inputs.Problem{At: inputs.FieldRef{Field: "spec.machineConfigPoolSelector"},
				Message: fmt.Sprintf("error found multiple ContainerConfig targeting MachineConfigPool %s. Please apply only one ContainerConfig manifest for each pool during installation (ContainerRuntimeConfig %q selects it too)", pool, other),
				Fix:     "merge the two objects' settings into one for the installation"}
		}
		return &inputs.Problem{At: inputs.FieldRef{Field: "metadata.annotations[" + SuffixAnnotation + "]"}, Value: suffixValue(n),
			Message: fmt.Sprintf("MachineConfig %s of pool %s is ContainerRuntimeConfig %q's, which holds the same suffix", key.Name(), pool, other),
			Fix:     "remove the annotation from this object: the controller then writes the next free suffix"}
	}
	return nil
}

// suffixValue is the SuffixAnnotation value of suffix n.
func suffixValue(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
