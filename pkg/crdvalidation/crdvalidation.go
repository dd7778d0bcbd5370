// Package crdvalidation judges a manifest as the API server judges a create of it, offline: against the CRD the
// binary embeds for its kind (pkg/crds), with the API server's own code from k8s.io/apiextensions-apiserver, in
// the order its request path runs it (apiserver/customresource_handler.go, registry/customresource/strategy.go):
//
//  1. unknown fields: the structural schema's pruning, reported as strict field validation (kubectl's default)
//     reports them, `unknown field "spec.imageDigestMirrors[0].mirorrs"`; the embedded ObjectMeta's too;
//  2. the schema's defaults, applied;
//  3. status dropped when the CRD has a status subresource (a create cannot set it);
//  4. the object's metadata (name, namespace), the OpenAPI schema (types, enums, formats, lengths, patterns),
//     embedded resources and x-kubernetes-list-type sets and maps;
//  5. the CEL rules (x-kubernetes-validations) with their messages, unless step 4 found an error that keeps
//     them from running, as the API server says then.
//
// Each kind's schema and CEL programs are built the first time an object of that kind is judged: commands that
// judge nothing (--version, start) pay nothing.
package crdvalidation

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/openshift/registries-controller/pkg/crds"
)

// Verdict is what the API server would say about a create of one object.
type Verdict struct {
	// UnknownFields are the paths of fields the CRD's schema does not define, e.g.
	// "spec.imageDigestMirrors[0].mirorrs". Strict field validation (kubectl's default) refuses the object for
	// any of them, with `strict decoding error: unknown field "…"`.
	UnknownFields []string
	// Errors are the validation errors, as the API server lists them in the Invalid response's causes (Field is
	// the cause's field, ErrorBody() its message).
	Errors field.ErrorList
}

// Refused reports whether the API server refuses the object under strict field validation.
func (v Verdict) Refused() bool { return len(v.UnknownFields) > 0 || len(v.Errors) > 0 }

// ErrNoCRD is returned (wrapped) by Judge for a kind no embedded CRD defines.
var ErrNoCRD = fmt.Errorf("no embedded CRD defines this kind")

// Judge returns the API server's verdict on a create of obj, a decoded JSON object (numbers as int64 or float64,
// as k8s.io/apimachinery/pkg/util/json decodes them). obj is not modified. The error says the object could not
// be judged: its apiVersion or kind are missing or malformed, no embedded CRD defines its kind (wraps ErrNoCRD),
// the CRD does not serve its version, or its metadata cannot be read as ObjectMeta (the API server refuses such
// a request before validation, with that message).
func Judge(ctx context.Context, obj map[string]interface{}) (Verdict, error) {
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return Verdict{}, fmt.Errorf("apiVersion and kind are required")
	}
	k, err := kindFor(gvk)
	if err != nil {
		return Verdict{}, err
	}
	return k.judge(ctx, u.DeepCopy())
}

// kind holds what the API server builds for one served version of a CRD.
type kind struct {
	gvk             schema.GroupVersionKind
	namespaced      bool
	hasStatus       bool
	structural      *structuralschema.Structural
	schemaValidator apiservervalidation.SchemaValidator
	celValidator    *cel.Validator // nil when the schema has no x-kubernetes-validations rule
}

var (
	kindsMu sync.Mutex
	kinds   = map[schema.GroupVersionKind]*kind{}
)

func kindFor(gvk schema.GroupVersionKind) (*kind, error) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if k := kinds[gvk]; k != nil {
		return k, nil
	}
	crd, ok, err := crds.For(gvk.GroupKind())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", gvk.GroupKind(), ErrNoCRD)
	}
	k, err := newKind(crd, gvk)
	if err != nil {
		return nil, err
	}
	kinds[gvk] = k
	return k, nil
}

// newKind builds the structural schema, the OpenAPI validator and the CEL validator of one version of crd, as
// the API server does when it starts serving it (customresource_handler.go getOrCreateServingInfoFor).
func newKind(crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind) (*kind, error) {
	var version *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == gvk.Version && crd.Spec.Versions[i].Served {
			version = &crd.Spec.Versions[i]
		}
	}
	if version == nil {
		return nil, fmt.Errorf("the CRD %s serves no version %s", crd.Name, gvk.Version)
	}
	if version.Schema == nil {
		return nil, fmt.Errorf("the CRD %s has no schema for version %s", crd.Name, gvk.Version)
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(version.Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("the CRD %s version %s: converting its schema: %w", crd.Name, gvk.Version, err)
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the CRD %s version %s: its schema is not structural: %w", crd.Name, gvk.Version, err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, fmt.Errorf("the CRD %s version %s: pruning its defaults: %w", crd.Name, gvk.Version, err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the CRD %s version %s: %w", crd.Name, gvk.Version, err)
	}
	return &kind{
		gvk:             gvk,
		namespaced:      crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		hasStatus:       version.Subresources != nil && version.Subresources.Status != nil,
		structural:      s,
		schemaValidator: validator,
		celValidator:    cel.NewValidator(s, true, celconfig.PerCallLimit),
	}, nil
}

// judge runs the API server's steps on u, which it modifies.
func (k *kind) judge(ctx context.Context, u *unstructured.Unstructured) (Verdict, error) {
	var v Verdict
	var err error
	if v.UnknownFields, err = k.coerce(u); err != nil {
		return Verdict{}, err
	}
	structuraldefaulting.Default(u.Object, k.structural)
	if k.hasStatus {
		delete(u.Object, "status") // a create cannot set status (strategy.go PrepareForCreate)
	}

	// customResourceStrategy.Validate, for a create.
	errs := k.validateTypeMeta(u)
	if len(errs) == 0 {
		errs = append(errs, validation.ValidateObjectMetaAccessor(u, k.namespaced, validation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), k.schemaValidator)...)
	}
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, k.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, k.structural, u.Object)...)
	if k.celValidator != nil { // nil: the schema has no CEL rule, and the API server says nothing about them
		if blocked := blockingError(errs); blocked != nil {
			errs = append(errs, blocked)
		} else {
			celErrs, _ := k.celValidator.Validate(ctx, nil, k.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
			errs = append(errs, celErrs...)
		}
	}
	v.Errors = errs
	return v, nil
}

// coerce prunes the fields the schema does not define and returns their paths, as the API server's decoder does
// for a request with strict or warning field validation (customresource_handler.go unstructuredSchemaCoercer).
func (k *kind) coerce(u *unstructured.Unstructured) ([]string, error) {
	kindValue, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, k.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, k.structural)
	if fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, k.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); fieldErr != nil {
		return nil, fieldErr
	} else {
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kindValue)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// validateTypeMeta is customResourceValidator.ValidateTypeMeta.
func (k *kind) validateTypeMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != k.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), fmt.Sprintf("must be %v", k.gvk.Kind)))
	}
	if want := k.gvk.GroupVersion().String(); u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), fmt.Sprintf("must be %v", want)))
	}
	return errs
}

// blockingError is the strategy's hasBlockingErr: errors of these types keep the CEL rules from running, and
// the API server says so with this error.
func blockingError(errs field.ErrorList) *field.Error {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return nil
}
