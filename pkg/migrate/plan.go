// Package migrate replaces the deprecated ImageContentSourcePolicy (ICSP) by ImageDigestMirrorSets (IDMS), and
// proves over a whole set of inputs that the swap changes no node file.
//
// Each ICSP becomes an IDMS with the same entries, each with mirrorSourcePolicy AllowContactingSource (what an
// ICSP entry means, docs/semantics.md §1) and its mirrors without repeats (an IDMS's mirrors are a set). The IDMS takes
// the ICSP's name, unless an IDMS of that name exists:
//   - with the same entries: the ICSP was migrated before, and nothing is written for it;
//   - annotated as migrated from this ICSP (MigratedFromAnnotation): an earlier migration, replaced;
//   - otherwise someone else's: the new one is named <name>-icsp (then -icsp-2, ...), and the plan says why.
//
// Prove renders the inputs as they are, with the new IDMSs added (the state between applying them and deleting
// the ICSPs), and with the IDMSs in place of the ICSPs, and compares each pool's MachineConfig with
// render.Differences.
//
//	plan := migrate.ICSPs(in)
//	proof, err := migrate.Prove(in, plan, render.Options{...})
//	if proof.Neutral() { /* write plan.Writes() */ }
package migrate

import (
	"fmt"
	"slices"
	"sort"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// MigratedFromAnnotation on an ImageDigestMirrorSet names the ImageContentSourcePolicy it was migrated from.
const MigratedFromAnnotation = "registries-controller.openshift.io/migrated-from-imagecontentsourcepolicy"

// Disposition says what the migration of one ICSP writes.
type Disposition string

const (
	// Create: a new IDMS, named after the ICSP or renamed.
	Create Disposition = "create"
	// Replace: an IDMS of the same name written by an earlier migration of this ICSP is replaced.
	Replace Disposition = "replace"
	// Migrated: an IDMS of the same name with the same entries exists; nothing is written.
	Migrated Disposition = "already migrated"
)

// Migration is the migration of one ICSP.
type Migration struct {
	// From is the ICSP.
	From *operatorv1alpha1.ImageContentSourcePolicy
	// To is the IDMS that takes its place.
	To *configv1.ImageDigestMirrorSet
	// Disposition says whether To is written, and how.
	Disposition Disposition
	// Note says why To is not named after From, or what it replaces; "" when there is nothing to say.
	Note string
}

// Plan is the migration of every ICSP of a set of inputs, sorted by ICSP name.
type Plan struct {
	Migrations []Migration
}

// ICSPs returns the migration of every ICSP in in. It reads in and changes nothing.
func ICSPs(in *inputs.Inputs) *Plan {
	existing := map[string]*configv1.ImageDigestMirrorSet{}
	for _, idms := range in.ImageDigestMirrorSets {
		existing[idms.Name] = idms
	}
	icsps := slices.Clone(in.ImageContentSourcePolicies)
	sort.Slice(icsps, func(i, j int) bool { return icsps[i].Name < icsps[j].Name })
	// Names taken: every IDMS, and every ICSP's own name, which its IDMS gets first.
	taken := map[string]bool{}
	for name := range existing {
		taken[name] = true
	}
	for _, icsp := range icsps {
		taken[icsp.Name] = true
	}
	plan := &Plan{}
	for _, icsp := range icsps {
		m := Migration{From: icsp, To: convert(icsp), Disposition: Create}
		switch have := existing[icsp.Name]; {
		case have == nil:
		case equality.Semantic.DeepEqual(have.Spec, m.To.Spec):
			m.Disposition, m.To = Migrated, have
			m.Note = fmt.Sprintf("ImageDigestMirrorSet %q exists with the same entries", have.Name)
		case have.Annotations[MigratedFromAnnotation] == icsp.Name:
			m.Disposition = Replace
			m.Note = fmt.Sprintf("replaces ImageDigestMirrorSet %q, written by an earlier migration of this ImageContentSourcePolicy, whose entries differ", have.Name)
		default:
			m.To.Name = freeName(icsp.Name+"-icsp", taken)
			m.Note = fmt.Sprintf("ImageDigestMirrorSet %q exists with other entries and was not migrated from it", icsp.Name)
		}
		taken[m.To.Name] = true
		plan.Migrations = append(plan.Migrations, m)
	}
	return plan
}

// freeName returns base, or base-2, base-3, ... whichever is not taken.
func freeName(base string, taken map[string]bool) string {
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name
}

// convert returns the IDMS an ICSP becomes, named after it.
func convert(icsp *operatorv1alpha1.ImageContentSourcePolicy) *configv1.ImageDigestMirrorSet {
	idms := &configv1.ImageDigestMirrorSet{
		TypeMeta: metav1.TypeMeta{APIVersion: configv1.GroupVersion.String(), Kind: inputs.KindImageDigestMirrorSet},
		ObjectMeta: metav1.ObjectMeta{
			Name:        icsp.Name,
			Annotations: map[string]string{MigratedFromAnnotation: icsp.Name},
		},
	}
	for _, e := range icsp.Spec.RepositoryDigestMirrors {
		var mirrors []configv1.ImageMirror
		for _, m := range e.Mirrors {
			if !slices.Contains(mirrors, configv1.ImageMirror(m)) {
				mirrors = append(mirrors, configv1.ImageMirror(m))
			}
		}
		idms.Spec.ImageDigestMirrors = append(idms.Spec.ImageDigestMirrors, configv1.ImageDigestMirrors{
			Source: e.Source, Mirrors: mirrors, MirrorSourcePolicy: configv1.AllowContactingSource,
		})
	}
	return idms
}

// Writes returns the IDMSs to apply: those created or replaced.
func (p *Plan) Writes() []*configv1.ImageDigestMirrorSet {
	var out []*configv1.ImageDigestMirrorSet
	for _, m := range p.Migrations {
		if m.Disposition != Migrated {
			out = append(out, m.To)
		}
	}
	return out
}

// Applied returns in with the IDMSs of the plan applied (an IDMS replaces the one of its name) and, when
// deleted, without the ICSPs. in is not changed; the objects are shared.
func (p *Plan) Applied(in *inputs.Inputs, deleted bool) *inputs.Inputs {
	out := *in
	out.ImageDigestMirrorSets = slices.Clip(in.ImageDigestMirrorSets) // appending must not write into in's array
	idms := inputs.KindNamed(inputs.KindImageDigestMirrorSet)
	for _, o := range p.Writes() {
		out.Add(idms, o)
	}
	if deleted {
		out.ImageContentSourcePolicies = nil
	}
	return &out
}
