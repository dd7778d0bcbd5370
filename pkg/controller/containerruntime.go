package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// objectWrite is what the sync wants written on one ContainerRuntimeConfig (docs/semantics.md §11.5): its suffix
// annotation and finalizers (a metadata patch), and its status; each only when it changes.
type objectWrite struct {
	crc *mcfgv1.ContainerRuntimeConfig
	// annotate is the suffix annotation to add; nil when it is there already.
	annotate *string
	// finalizers are the finalizers it should carry, when they differ from its own.
	finalizers []string
	patch      bool
	// status is the status it should carry, when it differs from its own.
	status      mcfgv1.ContainerRuntimeConfigStatus
	writeStatus bool
}

// containerRuntimeWrites computes what each ContainerRuntimeConfig of res should carry, purely: with a render
// (res.output), its suffix annotation, one finalizer per MachineConfig of it, and a Success status (or Failure:
// no pool selected); with invalid input, a Failure status naming its problems on each object at fault (nothing
// else changes); an object being deleted loses its finalizers once the render no longer wants its MachineConfigs
// (the plan has deleted them).
func containerRuntimeWrites(res *syncResult, now metav1.Time) []objectWrite {
	if res.inputs == nil {
		return nil
	}
	var out []objectWrite
	problems := map[string][]inputs.Problem{}
	if res.invalid != nil {
		for _, p := range res.invalid.Problems {
			if p.At.Object.Kind == inputs.KindContainerRuntimeConfig {
				problems[p.At.Object.Name] = append(problems[p.At.Object.Name], p)
			}
		}
	}
	for _, crc := range res.inputs.ContainerRuntimeConfigs {
		w := objectWrite{crc: crc}
		switch {
		case crc.DeletionTimestamp != nil:
			if res.output != nil {
				w.finalizers, w.patch = containerruntime.Finalizers(crc, nil)
			}
		case res.invalid != nil:
			if ps := problems[crc.Name]; len(ps) > 0 {
				w.status, w.writeStatus = containerruntime.Status(crc, containerruntime.StatusMessage(ps), now)
			}
		case res.output != nil && res.output.ContainerRuntime != nil:
			cr := res.output.ContainerRuntime
			pools := cr.Pools[crc.Name]
			if len(pools) == 0 {
				w.status, w.writeStatus = containerruntime.Status(crc, "Error: "+containerruntime.NoPoolMessage(crc.Name), now)
				break
			}
			n := cr.Assignment.Suffix[crc.Name]
			names := make([]string, len(pools))
			for i, pool := range pools {
				names[i] = machineconfigs.Key{Pool: pool, Output: machineconfigs.ContainerRuntime, Suffix: n}.Name()
			}
			if v, ok := cr.Assignment.Annotate[crc.Name]; ok {
				w.annotate, w.patch = &v, true
			}
			var changed bool
			if w.finalizers, changed = containerruntime.Finalizers(crc, names); changed {
				w.patch = true
			}
			w.status, w.writeStatus = containerruntime.Status(crc, "", now)
		}
		if w.patch || w.writeStatus {
			out = append(out, w)
		}
	}
	return out
}

// containerRuntimeResource is the resource of the ContainerRuntimeConfigs.
var containerRuntimeResource = mcfgv1.GroupVersion.WithResource("containerruntimeconfigs")

// updateContainerRuntimeConfigs writes what containerRuntimeWrites says: the annotation and finalizers as a JSON
// merge patch of those fields alone, guarded by the resourceVersion (a full update from the cache would drop what
// the cache leaves out, kubectl's last-applied annotation: MCO's defect), then the status. Objects deleted
// meanwhile are skipped; a conflict is returned, and the sync retried with the newer object.
func (c *Controller) updateContainerRuntimeConfigs(ctx context.Context, res *syncResult) ([]statusWrite, error) {
	var writes []statusWrite
	var errs []error
	for _, w := range containerRuntimeWrites(res, metav1.NewTime(c.cfg.Clock.Now())) {
		ref := inputs.ObjectRef{Kind: inputs.KindContainerRuntimeConfig, Name: w.crc.Name}
		client := c.statusWriter.Resource(containerRuntimeResource)
		if w.patch {
			meta := map[string]any{"resourceVersion": w.crc.ResourceVersion, "finalizers": w.finalizers}
			if w.annotate != nil {
				meta["annotations"] = map[string]string{containerruntime.SuffixAnnotation: *w.annotate}
			}
			body, err := json.Marshal(map[string]any{"metadata": meta})
			if err != nil {
				return writes, err
			}
			patched, err := client.Patch(ctx, w.crc.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: FieldManager})
			switch {
			case apierrors.IsNotFound(err):
				continue
			case err != nil:
				errs = append(errs, fmt.Errorf("writing the suffix annotation and finalizers of %s: %w", ref, err))
				continue
			}
			w.crc = w.crc.DeepCopy()
			w.crc.ResourceVersion = patched.GetResourceVersion()
			writes = append(writes, statusWrite{ref: ref, conditions: fmt.Sprintf("finalizers=%v", w.finalizers)})
		}
		if w.writeStatus {
			if err := c.writeContainerRuntimeStatus(ctx, w.crc, w.status); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("updating the status of %s: %w", ref, err))
				continue
			}
			last := w.status.Conditions[len(w.status.Conditions)-1]
			writes = append(writes, statusWrite{ref: ref, conditions: fmt.Sprintf("%s=%s", last.Type, last.Status)})
		}
	}
	return writes, errors.Join(errs...)
}

// writeContainerRuntimeStatus sends a copy of crc with status to its status subresource.
func (c *Controller) writeContainerRuntimeStatus(ctx context.Context, crc *mcfgv1.ContainerRuntimeConfig, status mcfgv1.ContainerRuntimeConfigStatus) error {
	cp := crc.DeepCopy()
	cp.Status = status
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cp)
	if err != nil {
		return fmt.Errorf("converting ContainerRuntimeConfig %q: %w", crc.Name, err)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetAPIVersion(mcfgv1.GroupVersion.String())
	u.SetKind(inputs.KindContainerRuntimeConfig)
	_, err = c.statusWriter.Resource(containerRuntimeResource).UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}
