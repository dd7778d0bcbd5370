package inputfiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/openshift/registries-controller/pkg/crdvalidation"
	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/pkg/inputs"
)

// FixHint is the project's advice on a problem the API server reports by a kind's CRD, "" when it has none:
// field is the problem's field path, value the refused value, message the API server's detail (the rule's
// message for a CEL rule).
type FixHint func(field, value, message string) string

// fixHints are the kinds whose CRD problems the project can say more about than the API server.
var fixHints = map[string]FixHint{
	inputs.KindCRIOCredentialProvider: credentialprovider.FixHint,
}

// unknownFieldFix is the advice on a field the CRD does not define.
const unknownFieldFix = "the CRD defines no such field: correct its spelling or remove it (kubectl apply refuses it too)"

// judge returns what the API server would refuse in a create of raw, an object of kind k read at where: every
// problem, each with the API server's words (inputs.Problem.FromCRD). The error says the document is not an
// object at all.
func judge(k *inputs.Kind, raw json.RawMessage, where string) ([]inputs.Problem, error) {
	var obj map[string]interface{}
	// utiljson decodes numbers as the API server does (int64, else float64), so values print as it prints them.
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes object: %w", where, err)
	}
	ref := inputs.ObjectRef{Kind: k.Name}
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		ref.Name, _ = meta["name"].(string)
		ref.Namespace, _ = meta["namespace"].(string)
	}
	hint := fixHints[k.Name]
	if hint == nil {
		hint = func(string, string, string) string { return "" }
	}
	verdict, err := crdvalidation.Judge(context.Background(), obj)
	if err != nil {
		if errors.Is(err, crdvalidation.ErrNoCRD) {
			return nil, fmt.Errorf("%s: %w", where, err) // a kind of inputs.Kinds without its CRD: a build defect
		}
		// The API server refuses such a request before validation (e.g. metadata that is not ObjectMeta).
		return []inputs.Problem{{At: inputs.FieldRef{Object: ref}, Message: err.Error(), FromCRD: true, Where: where}}, nil
	}
	var ps []inputs.Problem
	for _, path := range verdict.UnknownFields {
		ps = append(ps, inputs.Problem{
			At:      inputs.FieldRef{Object: ref, Field: path},
			Value:   path,
			Message: fmt.Sprintf("unknown field %q", path),
			Fix:     unknownFieldFix,
			FromCRD: true,
			Where:   where,
		})
	}
	for _, e := range verdict.Errors {
		ps = append(ps, problemOf(ref, e, where, hint))
	}
	return ps, nil
}

// problemOf turns one of the API server's validation errors into a problem, in its words.
func problemOf(ref inputs.ObjectRef, e *field.Error, where string, hint FixHint) inputs.Problem {
	path := e.Field
	if path == "<nil>" { // a rule of the object's root: the API server names no field
		path = ""
	}
	p := inputs.Problem{
		At:      inputs.FieldRef{Object: ref, Field: path},
		Message: e.ErrorBody(),
		FromCRD: true,
		Where:   where,
	}
	if e.Type != field.ErrorTypeRequired && e.BadValue != nil {
		p.Value = fmt.Sprint(e.BadValue)
	}
	p.Fix = hint(path, p.Value, e.Detail)
	return p
}
