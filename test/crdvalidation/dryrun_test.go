package crdvalidation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/crds"
	"github.com/openshift/registries-controller/pkg/crdvalidation"
)

// judgement is a verdict as comparable text: the unknown fields, and one "field | message" per error, sorted.
type judgement struct {
	unknown []string
	errors  []string
}

func (j judgement) refused() bool { return len(j.unknown) > 0 || len(j.errors) > 0 }

// fields returns the field paths j names, sorted and without repeats; a problem of the whole object is "-".
func (j judgement) fields() []string {
	var out []string
	out = append(out, j.unknown...)
	for _, e := range j.errors {
		f, _, _ := strings.Cut(e, " | ")
		if f == "" || f == "<nil>" {
			f = "-"
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (j judgement) String() string {
	return fmt.Sprintf("unknown fields %q\nerrors:\n  %s", j.unknown, strings.Join(j.errors, "\n  "))
}

// decode reads a manifest as kubectl does (YAML 1.1 through sigs.k8s.io/yaml, so an unquoted y is true) and
// then as the API server decodes the JSON body (numbers as int64 or float64).
func decode(t testing.TB, manifest []byte) map[string]interface{} {
	t.Helper()
	data, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// offline judges obj with pkg/crdvalidation.
func offline(t testing.TB, obj map[string]interface{}) judgement {
	t.Helper()
	v, err := crdvalidation.Judge(context.Background(), obj)
	if err != nil {
		t.Fatalf("not judged: %v", err)
	}
	j := judgement{unknown: slices.Clone(v.UnknownFields)}
	for _, e := range v.Errors {
		j.errors = append(j.errors, e.Field+" | "+e.ErrorBody())
	}
	slices.Sort(j.unknown)
	slices.Sort(j.errors)
	return j
}

// warnings collects the API server's warnings of one request.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// dryRun creates obj on the real API server with a server-side dry run and field validation Warn, so that the
// unknown fields come as warnings and the validation errors in the same answer (Strict stops at the former).
func dryRun(t testing.TB, obj map[string]interface{}) judgement {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	crd, ok, err := crds.For(gvk.GroupKind())
	if err != nil || !ok {
		t.Fatalf("no CRD for %s: %v", gvk, err)
	}
	w := &warnings{}
	cfg := rest.CopyConfig(cp.RESTConfig)
	cfg.WarningHandler = w
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: crd.Spec.Names.Plural}
	var ri dynamic.ResourceInterface = client.Resource(gvr)
	if ns := u.GetNamespace(); ns != "" {
		ri = client.Resource(gvr).Namespace(ns)
	}
	_, err = ri.Create(context.Background(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Warn"})
	var j judgement
	for _, text := range w.list {
		if f, ok := strings.CutPrefix(text, "unknown field "); ok {
			j.unknown = append(j.unknown, strings.Trim(f, `"`))
		}
	}
	var status *apierrors.StatusError
	switch {
	case err == nil:
	case errors.As(err, &status) && apierrors.IsInvalid(err) && status.ErrStatus.Details != nil:
		for _, c := range status.ErrStatus.Details.Causes {
			j.errors = append(j.errors, c.Field+" | "+c.Message)
		}
	default:
		t.Fatalf("the dry run failed otherwise than Invalid: %v", err)
	}
	slices.Sort(j.unknown)
	slices.Sort(j.errors)
	return j
}

// compare fails the test when the offline judgement differs from the API server's.
func compare(t testing.TB, server, off judgement) {
	t.Helper()
	if !slices.Equal(server.unknown, off.unknown) || !slices.Equal(server.errors, off.errors) {
		t.Errorf("the API server and the offline validation disagree.\nAPI server: %s\noffline: %s", server, off)
	}
}
