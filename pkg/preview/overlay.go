// Package preview says what applying manifests, or deleting objects, would do before anything is applied: it
// overlays them on a cluster's inputs as `kubectl apply -f` and `kubectl delete` would leave them (Overlay), and
// compares each built-in pool's generated MachineConfig rendered from the result with the one the cluster holds
// (Compare). It is pure: the command reads the cluster (pkg/cluster) and predicts what nodes do
// (pkg/nodeaction).
//
//	in := reader.Inputs()                                   // the controller's gather
//	next, edits, err := preview.Overlay(in, files.Objects, deletes)
//	out, err := render.Render(next, opts)                   // the controller's render
//	pools, err := preview.Compare(machineconfigs.BuiltInPools(in.Pools), out, reader.MachineConfigs().Get, reader.Decoder())
package preview

import (
	"fmt"
	"maps"

	"github.com/openshift/registries-controller/pkg/inputfiles"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// Op is what an edit does to the cluster's inputs.
type Op string

const (
	// OpAdded: the object is new.
	OpAdded Op = "added"
	// OpReplaced: the object takes the place of the cluster's object of the same kind and name.
	OpReplaced Op = "replaced"
	// OpDeleted: the cluster's object is removed.
	OpDeleted Op = "deleted"
)

// Edit is one object overlaid on the cluster's inputs, e.g. {ImageDigestMirrorSet "team-a", OpReplaced,
// "team-a.yaml (document 1)"}.
type Edit struct {
	Ref inputs.ObjectRef
	Op  Op
	// Where names the file and document the object comes from, or "--delete".
	Where string
}

// Delete names an object to delete (`--delete KIND/NAME`).
type Delete struct {
	Kind *inputs.Kind
	Ref  inputs.ObjectRef
}

// Overlay returns in with objs applied and deletes deleted, and one Edit per object in the order given (objs,
// then deletes); in and its objects are not changed. An object of objs replaces the cluster's object of the same
// kind, namespace and name as `kubectl apply` leaves it (see Applied); others are added. Deleting an object the
// cluster does not hold, or one objs also holds, is an error.
func Overlay(in *inputs.Inputs, objs []inputfiles.Object, deletes []Delete) (*inputs.Inputs, []Edit, error) {
	out := in.Clone()
	var edits []Edit
	overlaid := map[inputs.ObjectRef]string{}
	for _, o := range objs {
		ref := inputs.RefOf(o.Kind, o.Object)
		existing := in.Get(ref)
		edit := Edit{Ref: ref, Op: OpAdded, Where: o.Where}
		if existing != nil {
			edit.Op = OpReplaced
		}
		out.Add(o.Kind, Applied(o.Kind, o.Object, existing))
		overlaid[ref] = o.Where
		edits = append(edits, edit)
	}
	for _, d := range deletes {
		if where, ok := overlaid[d.Ref]; ok {
			return nil, nil, fmt.Errorf("--delete %s: %s is also applied from %s; give one or the other", refArg(d), d.Ref, where)
		}
		if !out.Remove(d.Kind, d.Ref.Namespace, d.Ref.Name) {
			return nil, nil, fmt.Errorf("--delete %s: the cluster holds no %s", refArg(d), d.Ref)
		}
		overlaid[d.Ref] = "--delete"
		edits = append(edits, Edit{Ref: d.Ref, Op: OpDeleted, Where: "--delete"})
	}
	return out, edits, nil
}

// refArg writes a Delete back as the command line spells it.
func refArg(d Delete) string {
	if d.Ref.Namespace != "" {
		return d.Ref.Kind + "/" + d.Ref.Namespace + "/" + d.Ref.Name
	}
	return d.Ref.Kind + "/" + d.Ref.Name
}

// Applied returns the object the API server holds after `kubectl apply` of obj, a manifest, over existing (nil
// when there is none): obj's spec; existing's identity (UID, resource version, generation, creation time) and
// the labels and annotations it has besides obj's, which apply keeps; and existing's status, or none. Every
// input kind has a status subresource, so the server ignores the status a manifest holds, on create too. This
// matters: the render reads the ClusterVersion's and FeatureGate's status, and rollout judging the pools'.
func Applied(k *inputs.Kind, obj, existing inputs.Object) inputs.Object {
	out, ok := obj.DeepCopyObject().(inputs.Object)
	if !ok {
		panic(fmt.Sprintf("DeepCopyObject of %T is not an inputs.Object", obj))
	}
	k.CopyStatus(out, existing)
	if existing == nil {
		return out
	}
	out.SetUID(existing.GetUID())
	out.SetResourceVersion(existing.GetResourceVersion())
	out.SetGeneration(existing.GetGeneration())
	out.SetCreationTimestamp(existing.GetCreationTimestamp())
	out.SetLabels(merged(existing.GetLabels(), obj.GetLabels()))
	out.SetAnnotations(merged(existing.GetAnnotations(), obj.GetAnnotations()))
	return out
}

// merged returns over's entries over base's; nil when both are empty.
func merged(base, over map[string]string) map[string]string {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}
