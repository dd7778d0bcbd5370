package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// write records one MachineConfig write and why it was needed.
type write struct {
	key    machineconfigs.Key
	op     machineconfigs.Op
	reason string
	// object is the MachineConfig as the API server returned it (nil after a delete).
	object *mcfgv1.MachineConfig
	// revert is set when the write put back content another writer had changed.
	revert *revert
}

// maxConcurrentWrites bounds the MachineConfig writes a sync sends at once: each pool's write is one request the API
// server handles on its own, so the pools' writes need not wait for each other (issue 23 §3), while a plan that
// rewrites many MachineConfigs does not flood the API server.
const maxConcurrentWrites = 4

// apply carries out the plan that makes the cluster hold exactly the desired set (machineconfigs.Plan: create the
// missing MachineConfigs, update those whose meaning differs, delete ours that no render wants, leave unmanaged
// outputs and other writers' MachineConfigs alone). It is the only place that writes. Writes that change nothing
// are never sent. A revert of another writer's change that must wait (revertLimiter) is not sent either: deferred
// says when to sync again, 0 when nothing waits. The writes go out concurrently, at most maxConcurrentWrites at a
// time, and are reported in the plan's order. A failed write does not keep the others from being sent (MCO stops
// at the first pool that fails): the errors are returned together, and the sync is retried.
func (c *Controller) apply(ctx context.Context, actions []machineconfigs.Action) (writes []write, deferred time.Duration, err error) {
	results := make([]applied, len(actions))
	sem := make(chan struct{}, maxConcurrentWrites)
	var wg sync.WaitGroup
	for i, a := range actions {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = c.carryOut(ctx, a)
		})
	}
	wg.Wait()
	var errs []error
	for _, r := range results {
		errs, writes = appendResult(errs, r.err, writes, r.write)
		if r.wait > 0 && (deferred == 0 || r.wait < deferred) {
			deferred = r.wait
		}
	}
	return writes, deferred, errors.Join(errs...)
}

// applied is what carrying out one action did: the write sent (nil when none was), how long a held-back revert
// waits, or why the write failed.
type applied struct {
	write *write
	wait  time.Duration
	err   error
}

// carryOut sends the write of one action.
func (c *Controller) carryOut(ctx context.Context, a machineconfigs.Action) applied {
	switch a.Op {
	case machineconfigs.Create:
		created, err := c.create(ctx, a.Want.Object)
		switch {
		case err != nil:
			return applied{err: err}
		case created != nil:
			c.reverts.wrote(nil, created, a.Want, false)
			return applied{write: &write{key: a.Key, op: machineconfigs.Create, reason: a.Reason(), object: created}}
		default: // it exists already (the cache was behind): update it from a fresh read
			w, err := c.updateOne(ctx, nil, a.Want, false)
			return applied{write: w, err: err}
		}
	case machineconfigs.Update:
		isRevert, wait := c.reverts.check(a.Have, a.Want)
		if wait > 0 {
			klog.FromContext(ctx).V(2).Info("Another writer keeps changing the MachineConfig: its revert waits", "machineConfig", a.Key.Name(), "wait", wait)
			return applied{wait: wait}
		}
		w, err := c.updateOne(ctx, a.Have, a.Want, isRevert)
		return applied{write: w, err: err}
	case machineconfigs.Delete:
		w, err := c.delete(ctx, a)
		return applied{write: w, err: err}
	}
	return applied{}
}

// appendResult adds err to errs, or w, when it records a write, to writes.
func appendResult(errs []error, err error, writes []write, w *write) ([]error, []write) {
	if err != nil {
		return append(errs, err), writes
	}
	if w != nil {
		writes = append(writes, *w)
	}
	return errs, writes
}

// updateOne updates have (nil: read it) to want, and records the write; nil when a fresh read found nothing to write.
func (c *Controller) updateOne(ctx context.Context, have *mcfgv1.MachineConfig, want *machineconfigs.Desired, isRevert bool) (*write, error) {
	updated, diffs, err := c.update(ctx, have, want)
	if err != nil || updated == nil {
		return nil, err
	}
	klog.FromContext(ctx).V(2).Info("Updated MachineConfig", "machineConfig", want.Object.Name, "differences", diffs)
	w := &write{key: want.Key, op: machineconfigs.Update, reason: strings.Join(diffs, "; "), object: updated}
	if w.revert = c.reverts.wrote(have, updated, want, isRevert); w.revert != nil {
		w.reason = fmt.Sprintf("put back after another writer changed it (revert %d in a row): %s", w.revert.count, w.reason)
	}
	return w, nil
}

// delete deletes the MachineConfig of a Delete action, unless it changed identity since (another UID) or is gone.
func (c *Controller) delete(ctx context.Context, a machineconfigs.Action) (*write, error) {
	name := a.Have.Name
	err := c.client.MachineConfigs().Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &a.Have.UID}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return nil, fmt.Errorf("deleting MachineConfig %s (%s): %w", name, a.Reason(), err)
	}
	c.reverts.forget(name)
	c.reader.Decoder().Forget(name)
	return &write{key: a.Key, op: machineconfigs.Delete, reason: a.Reason()}, nil
}

// differences returns what differs in meaning between have, a generated MachineConfig as the cluster holds it,
// and want (machineconfigs.Differences); have is decoded once per resourceVersion.
func (c *Controller) differences(have *mcfgv1.MachineConfig, want *machineconfigs.Desired) []string {
	return machineconfigs.Strings(machineconfigs.DifferencesOf(have, c.reader.Decoder(), want))
}

// tooLargeError says a generated MachineConfig exceeds what the API server or etcd accepts in one
// request: the mirror configuration has more entries than one MachineConfig can carry. Retrying
// does not help until the configuration shrinks.
type tooLargeError struct {
	Name  string
	Bytes int
	Err   error
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("MachineConfig %s is %d bytes of Ignition config, more than the API server accepts in one request "+
		"(kube-apiserver 3 MiB, etcd 1.5 MiB by default): the mirror configuration has too many entries for one MachineConfig: %v", e.Name, e.Bytes, e.Err)
}

func (e *tooLargeError) Unwrap() error { return e.Err }

// writeError classifies a failed write, so that a too large MachineConfig is reported as such.
func writeError(op machineconfigs.Op, mc *mcfgv1.MachineConfig, err error) error {
	if tooLarge(err) {
		return &tooLargeError{Name: mc.Name, Bytes: len(mc.Spec.Config.Raw), Err: err}
	}
	return fmt.Errorf("%s MachineConfig %s: %w", op, mc.Name, err)
}

// etcdTooLarge is etcd's error for a request over its limit (1.5 MiB by default), which kube-apiserver
// recognises by this exact text, retries without managed fields, and then returns as a 500 status.
const etcdTooLarge = "etcdserver: request is too large"

// tooLarge reports whether the API server refused a write for its size: its own request limit (status 413,
// reason RequestEntityTooLarge), or etcd's, passed on as an internal error (status 500) carrying etcd's text.
func tooLarge(err error) bool {
	if apierrors.IsRequestEntityTooLargeError(err) {
		return true
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	return s.Code == http.StatusInternalServerError && strings.Contains(s.Message, etcdTooLarge)
}

// create creates want; nil means it already existed (the cache was behind) and must be updated instead.
func (c *Controller) create(ctx context.Context, want *mcfgv1.MachineConfig) (*mcfgv1.MachineConfig, error) {
	created, err := c.client.MachineConfigs().Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
	switch {
	case err == nil:
		return created, nil
	case apierrors.IsAlreadyExists(err):
		return nil, nil
	default:
		return nil, writeError(machineconfigs.Create, want, err)
	}
}

// update brings have in line with want when their meaning differs, keeping what other writers set (their labels,
// annotations and owner references). On a conflict it reads the object again and compares again; it never
// renders again. have may be nil (read it from the API server). It returns the updated object, nil when nothing
// needed writing.
func (c *Controller) update(ctx context.Context, have *mcfgv1.MachineConfig, want *machineconfigs.Desired) (*mcfgv1.MachineConfig, []string, error) {
	var diffs []string
	var updated *mcfgv1.MachineConfig
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if have == nil {
			var err error
			if have, err = c.client.MachineConfigs().Get(ctx, want.Object.Name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		diffs = c.differences(have, want)
		if len(diffs) == 0 {
			updated = nil // a retry found the object already in line: nothing was written
			return nil
		}
		// The client returns an empty object with an error (e.g. a conflict): only a success is an update.
		result, err := c.client.MachineConfigs().Update(ctx, merged(have, want), metav1.UpdateOptions{FieldManager: FieldManager})
		if err == nil {
			updated = result
		}
		have = nil // a retry reads the current object
		return err
	})
	if err != nil {
		return nil, nil, writeError(machineconfigs.Update, want.Object, err)
	}
	return updated, diffs, nil
}

// merged returns a copy of have that says what want says, keeping other writers' metadata but the version
// annotation, which an older build of this project or MCO wrote and MCO's render controller refuses from another
// build than its own (machineconfigs.VersionAnnotation). An owner reference to another object of want's owner's kind
// and name (an older Image "cluster", another UID, or one an older build or MCO wrote without the controller flag)
// is replaced, and so is any other controller reference (only one may be).
func merged(have *mcfgv1.MachineConfig, want *machineconfigs.Desired) *mcfgv1.MachineConfig {
	out := have.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	for k, v := range want.Object.Labels {
		out.Labels[k] = v
	}
	delete(out.Annotations, machineconfigs.VersionAnnotation)
	var owners []metav1.OwnerReference
	for _, ref := range out.OwnerReferences {
		if !replacedBy(ref, want.Object.OwnerReferences) {
			owners = append(owners, ref)
		}
	}
	out.OwnerReferences = append(owners, want.Object.OwnerReferences...)
	out.Spec = *want.Object.Spec.DeepCopy()
	return out
}

// replacedBy reports whether the owner reference ref gives way to refs: one to the same object by kind and name, or
// a controller reference when refs hold one.
func replacedBy(ref metav1.OwnerReference, refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.APIVersion == ref.APIVersion && r.Kind == ref.Kind && r.Name == ref.Name || isController(r) && isController(ref) {
			return true
		}
	}
	return false
}

func isController(ref metav1.OwnerReference) bool { return ref.Controller != nil && *ref.Controller }
