package hostile

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/registries-controller/test/framework"
)

// Event reasons of the controller (pkg/controller), spelled out: the test checks what an admin sees.
const (
	reasonInvalid    = "InvalidMirrorConfiguration"
	reasonApplied    = "MirrorConfigurationApplied"
	reasonNotApplied = "MirrorConfigurationNotApplied"
)

func TestTheControllerRejectsEveryHostileObjectOnTheObjectAndWritesItOnceFixed(t *testing.T) {
	c := startAndAwaitFirstWrite(t)
	var inputs, ok int
	start := time.Now()
	for _, tc := range corpus() {
		inputs++
		if err := runCase(c, tc); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ok++
	}
	t.Logf("controller: %d hostile inputs in %s; %d handled as they must be (a Warning on each object naming field and "+
		"value, the MachineConfigs unchanged, invalid_objects right, then the fix written with a Normal event)",
		inputs, time.Since(start).Round(time.Second), ok)
}

// startAndAwaitFirstWrite starts the controller binary (framework.StartTestController, acting at once: no leader
// election), and waits a minute at most for its first write: the built-in pools' two MachineConfigs.
func startAndAwaitFirstWrite(t *testing.T) *framework.Controller {
	t.Helper()
	c := framework.StartTestController(t, "controller", cp.KubeconfigPath, "--leader-elect=false")
	if !poll(time.Minute, func() bool { return len(machineConfigs()) == 2 }) {
		t.Fatal("the controller did not write the two MachineConfigs")
	}
	return c
}

// runCase applies a case's objects and checks that the controller handles them as tc.want says.
func runCase(c *framework.Controller, tc hostileCase) error {
	before := machineConfigs()
	normals := map[at]int32{}
	for _, a := range tc.at {
		normals[a] = eventCount(a, corev1.EventTypeNormal, reasonApplied, "")
	}
	if err := createOrReplace(tc.objects); err != nil {
		return err
	}
	switch tc.want {
	case notApplied:
		a := tc.at[0]
		if !poll(20*time.Second, func() bool {
			return eventCount(a, corev1.EventTypeWarning, reasonNotApplied, strconv.Quote(a.value)) > 0
		}) {
			return fmt.Errorf("no Warning %s naming %q", reasonNotApplied, a.value)
		}
		return nil
	case accepted:
		if !poll(30*time.Second, func() bool { return !maps.Equal(machineConfigs(), before) }) {
			return fmt.Errorf("not written")
		}
		return deleteObjects(tc.objects)
	}

	objects := map[string]bool{}
	for _, a := range tc.at {
		objects[a.kind+"/"+a.name] = true
		want := a.field + ": " + strconv.Quote(a.value)
		if a.value == "" && !strings.HasSuffix(a.field, "]") {
			want = a.field + ": "
		}
		want = want[:min(len(want), 300)] // messages of events are cut at 1000 bytes
		if !poll(20*time.Second, func() bool { return eventCount(a, corev1.EventTypeWarning, reasonInvalid, want) > 0 }) {
			return fmt.Errorf("no Warning %s on %s %q naming %s", reasonInvalid, a.kind, a.name, clip(want))
		}
	}
	if n := c.Metric("registries_controller_invalid_objects", nil); n != float64(len(objects)) {
		return fmt.Errorf("registries_controller_invalid_objects = %v, want %d", n, len(objects))
	}
	if !maps.Equal(machineConfigs(), before) {
		return fmt.Errorf("a MachineConfig was written for invalid input")
	}

	if err := createOrReplace(tc.fixed); err != nil {
		return err
	}
	for _, a := range tc.at {
		if !poll(30*time.Second, func() bool { return eventCount(a, corev1.EventTypeNormal, reasonApplied, "") > normals[a] }) {
			return fmt.Errorf("no Normal %s on %s %q once fixed", reasonApplied, a.kind, a.name)
		}
	}
	if !poll(30*time.Second, func() bool { return !maps.Equal(machineConfigs(), before) }) {
		return fmt.Errorf("the fix was not written")
	}
	if n := c.Metric("registries_controller_invalid_objects", nil); n != 0 {
		return fmt.Errorf("registries_controller_invalid_objects = %v once fixed, want 0", n)
	}
	if strings.Contains(tc.name, "10,000") {
		return deleteObjects(tc.fixed) // keep the later cases' MachineConfigs small
	}
	return nil
}

// createOrReplace creates or replaces each object as it is, with the dynamic client: the corpus's objects are
// not the typed ones kubectl or the typed clients would send.
func createOrReplace(objs []object) error {
	ctx := context.Background()
	for _, o := range objs {
		client := dyn.Resource(resources[o.kind])
		u := &unstructured.Unstructured{Object: maps.Clone(o.body)}
		existing, err := client.Get(ctx, o.name(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = client.Create(ctx, u, metav1.CreateOptions{})
		case err == nil:
			u.SetResourceVersion(existing.GetResourceVersion())
			_, err = client.Update(ctx, u, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("applying %s %q: %w", o.kind, o.name(), err)
		}
	}
	return nil
}

func deleteObjects(objs []object) error {
	for _, o := range objs {
		err := dyn.Resource(resources[o.kind]).Delete(context.Background(), o.name(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// machineConfigs returns the resourceVersion of each MachineConfig.
func machineConfigs() map[string]string {
	list, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, mc := range list.Items {
		out[mc.Name] = mc.ResourceVersion
	}
	return out
}

// eventCount returns the count of the events of type and reason on the object of a whose message contains
// text.
func eventCount(a at, eventType, reason, text string) int32 {
	list, err := cp.Kube.CoreV1().Events("").List(context.Background(), metav1.ListOptions{
		FieldSelector: "involvedObject.name=" + a.name + ",involvedObject.kind=" + a.kind + ",reason=" + reason + ",type=" + eventType,
	})
	if err != nil {
		return 0
	}
	var n int32
	for _, e := range list.Items {
		if strings.Contains(e.Message, text) {
			n += max(e.Count, 1)
		}
	}
	return n
}

// poll checks cond every 50ms until it holds or the timeout passes.
func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
