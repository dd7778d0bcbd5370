// Package inputfiles reads the objects a render needs from manifest files: YAML (multi-document) or
// JSON, single objects or `List`s, as `oc get -o yaml` prints them or as an installer holds them.
package inputfiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Manifests are the render inputs found in a set of files.
type Manifests struct {
	// Inputs holds every input object read.
	inputs.Inputs
	// Objects lists the objects read, in file and document order, with their kind, e.g. to overlay them on
	// other inputs (`preview -f`).
	Objects []Object
	// Skipped has one line per document that is not a render input, e.g.
	// `examples/ns.yaml (document 2): skipping v1 Namespace "demo": not an input of the render`.
	Skipped []string
	// MachineConfigs are the MachineConfig objects read, which are not inputs of the render (they are in Skipped
	// too): `render` counts them in the rendered MachineConfig of each pool that selects them (docs/semantics.md
	// §3.6).
	MachineConfigs []*mcfgv1.MachineConfig
	// Refused are the problems of the objects that are not taken: what the API server would refuse by the kind's
	// CRD (pkg/crdvalidation: types, unknown fields, enums, patterns, CEL rules, every problem of every object at
	// once), an object that does not decode, an object defined twice. Read, ReadDir and Decode return them as an
	// *inputs.InvalidError, with the Manifests of the objects taken.
	Refused []inputs.Problem

	seen     map[inputs.ObjectRef]string // -> where
	unjudged bool                        // DecodeUnjudged: no CRD judges the objects
}

// Object is one object read, and where.
type Object struct {
	Kind   *inputs.Kind
	Object inputs.Object
	// Where names the file and document, e.g. "examples/idms.yaml (document 1)".
	Where string
}

// ReadDir reads every *.yaml, *.yml and *.json file directly in dir, in name order. When objects are refused,
// the error is an *inputs.InvalidError listing every problem, and the Manifests hold the objects taken.
func ReadDir(dir string) (*Manifests, error) {
	o := &Manifests{}
	if err := o.addDir(dir); err != nil {
		return nil, err
	}
	return o, o.Invalid()
}

// Invalid returns the problems of the refused objects as an *inputs.InvalidError, sorted; nil when none was
// refused.
func (o *Manifests) Invalid() error {
	if len(o.Refused) == 0 {
		return nil
	}
	inputs.SortProblems(o.Refused)
	return &inputs.InvalidError{Problems: o.Refused}
}

// WhereOf returns the file and document an object was read from, "" when it was not read.
func (o *Manifests) WhereOf(ref inputs.ObjectRef) string { return o.seen[ref] }

// Stdin is the path that names standard input in Read, as in `kubectl apply -f -`.
const Stdin = "-"

// Read reads paths as `kubectl apply -f` takes them, in order: a file, whatever its name; a directory, its
// *.yaml, *.yml and *.json files in name order, not descending into subdirectories; or Stdin, read from
// stdin. An object defined twice, in one path or across them, is a problem naming both places. Refused objects
// are returned as ReadDir returns them.
func Read(paths []string, stdin io.Reader) (*Manifests, error) {
	o := &Manifests{}
	for _, p := range paths {
		if err := o.addPath(p, stdin); err != nil {
			return nil, err
		}
	}
	return o, o.Invalid()
}

func (o *Manifests) addPath(p string, stdin io.Reader) error {
	if p == Stdin {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("reading manifests from stdin: %w", err)
		}
		return o.Add("stdin", data)
	}
	info, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("reading manifests: %w", err)
	}
	if info.IsDir() {
		return o.addDir(p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading manifests: %w", err)
	}
	return o.Add(p, data)
}

func (o *Manifests) addDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading manifests: %w", err)
	}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("reading manifests: %w", err)
		}
		if err := o.Add(path, data); err != nil {
			return err
		}
	}
	return nil
}

// Decode reads the objects of one file's contents; name is used in messages. Refused objects are returned as
// ReadDir returns them.
func Decode(name string, data []byte) (*Manifests, error) {
	o := &Manifests{}
	if err := o.Add(name, data); err != nil {
		return nil, err
	}
	return o, o.Invalid()
}

// DecodeUnjudged reads objects as Decode does, without judging them by their CRDs: only for tests of the pure
// render core fed with MCO's own test data (test/golden), which no API server judged and which it partly refuses
// (keys that are not PEM, identities that are not domains). Every command judges.
func DecodeUnjudged(name string, data []byte) (*Manifests, error) {
	o := &Manifests{unjudged: true}
	if err := o.Add(name, data); err != nil {
		return nil, err
	}
	return o, o.Invalid()
}

type typeMeta struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Metadata   struct{ Name string } `json:"metadata"`
	Items      []json.RawMessage     `json:"items"`
}

// Add decodes every document of a file's contents and adds the objects it holds; refused objects are added to
// Refused. The error says the file cannot be read as documents of objects (YAML or JSON syntax). Documents are
// examined (judged by their CRD and decoded, the costly part) at once on every CPU while the next ones are read,
// and added in their order.
func (o *Manifests) Add(name string, data []byte) error {
	type document struct {
		done     chan struct{}
		examined []examined
		err      error
	}
	var docs []*document
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	read := func() error {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for n := 1; ; n++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return fmt.Errorf("%s (document %d): %w", name, n, err)
			}
			if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
				continue
			}
			d := &document{done: make(chan struct{})}
			docs = append(docs, d)
			where := fmt.Sprintf("%s (document %d)", name, n)
			slots <- struct{}{}
			go func() {
				defer close(d.done)
				defer func() { <-slots }()
				d.examined, d.err = o.examine(where, raw, nil)
			}()
		}
	}
	readErr := read()
	// In document order, as one after the other would: the first document's error wins over a later one's and
	// over a syntax error after it.
	var err error
	for _, d := range docs {
		<-d.done
		if err == nil && d.err != nil {
			err = d.err
		}
		if err == nil {
			for _, e := range d.examined {
				o.add(e)
			}
		}
	}
	if err != nil {
		return err
	}
	return readErr
}

// examined is one object of a document, decoded and judged by its kind's CRD without the Manifests (examine), to
// be added to them in document order (add).
type examined struct {
	where string
	tm    typeMeta
	kind  *inputs.Kind
	// Exactly one of these: the object taken, a MachineConfig, the problems it is refused for, or why it is
	// skipped.
	obj     inputs.Object
	mc      *mcfgv1.MachineConfig
	refused []inputs.Problem
	skip    string
}

// examine decodes and judges the object of one document (each item of a v1 List), appending to out. It reads
// nothing of o but whether it judges, so documents are examined at once. The error says the document is not an
// object at all.
func (o *Manifests) examine(where string, raw json.RawMessage, out []examined) ([]examined, error) {
	var tm typeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes object: %w", where, err)
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		return nil, fmt.Errorf("%s: not a Kubernetes object: apiVersion and kind are required", where)
	}
	if strings.HasSuffix(tm.Kind, "List") && tm.APIVersion == "v1" {
		for i, item := range tm.Items {
			var err error
			if out, err = o.examine(fmt.Sprintf("%s items[%d]", where, i), item, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	e := examined{where: where, tm: tm, kind: inputs.KindOf(tm.APIVersion, tm.Kind)}
	kind := e.kind
	if kind == nil && tm.APIVersion == mcfgv1.SchemeGroupVersion.String() && tm.Kind == "MachineConfig" {
		e.mc = &mcfgv1.MachineConfig{}
		if err := json.Unmarshal(raw, e.mc); err != nil {
			return nil, fmt.Errorf("%s: MachineConfig %q does not decode: %w", where, tm.Metadata.Name, err)
		}
		// Not an input of the render: kept for the rendered MachineConfig budget.
		e.skip = "not an input of the render (render counts it in the rendered MachineConfig of the pools that select it)"
		return append(out, e), nil
	}
	if kind == nil {
		e.skip = "not an input of the render"
		return append(out, e), nil
	}
	// First as the API server judges a create of it, by the kind's CRD: what it refuses never reaches the render.
	if kind.Snapshot || o.unjudged {
		// a cluster's own object, read for its status, is not judged as a create; nor is test data (DecodeUnjudged)
	} else if ps, err := judge(kind, raw, where); err != nil {
		return nil, err
	} else if len(ps) > 0 {
		e.refused = ps
		return append(out, e), nil
	}
	if !kind.Counts(tm.Metadata.Name) {
		e.skip = fmt.Sprintf("only the %s named %q is read", kind.Name, kind.Singleton)
		return append(out, e), nil
	}
	obj := kind.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		// The CRD accepted it, so this is a field the create does not judge (status, which a create drops).
		e.refused = []inputs.Problem{{
			At:      inputs.FieldRef{Object: inputs.ObjectRef{Kind: kind.Name, Name: tm.Metadata.Name}},
			Message: "does not decode: " + err.Error(),
			Where:   where,
		}}
		return append(out, e), nil
	}
	e.obj = obj
	return append(out, e), nil
}

// add adds one examined object to o.
func (o *Manifests) add(e examined) {
	switch {
	case e.mc != nil:
		o.MachineConfigs = append(o.MachineConfigs, e.mc)
		o.skip(e.where, e.tm, e.skip)
	case e.skip != "":
		o.skip(e.where, e.tm, e.skip)
	case len(e.refused) > 0:
		o.Refused = append(o.Refused, e.refused...)
	default:
		if p := o.remember(e.where, e.kind, e.obj); p != nil {
			o.Refused = append(o.Refused, *p)
			return
		}
		o.Inputs.Add(e.kind, e.obj)
		o.Objects = append(o.Objects, Object{Kind: e.kind, Object: e.obj, Where: e.where})
	}
}

func (o *Manifests) skip(where string, tm typeMeta, why string) {
	o.Skipped = append(o.Skipped, fmt.Sprintf("%s: skipping %s %s %q: %s", where, tm.APIVersion, tm.Kind, tm.Metadata.Name, why))
}

// remember notes where an object was read; an object read before is a problem naming both places.
func (o *Manifests) remember(where string, kind *inputs.Kind, obj inputs.Object) *inputs.Problem {
	if kind.Namespaced && obj.GetNamespace() == "" {
		// The API server takes the namespace from the request; offline there is none.
		return &inputs.Problem{
			At:      inputs.FieldRef{Object: inputs.RefOf(kind, obj), Field: "metadata.namespace"},
			Message: "required: a manifest read offline has no namespace of a kubectl context",
			Fix:     "write the namespace into the manifest",
			Where:   where,
		}
	}
	if o.seen == nil {
		o.seen = map[inputs.ObjectRef]string{}
	}
	ref := inputs.RefOf(kind, obj)
	if prev, dup := o.seen[ref]; dup {
		return &inputs.Problem{
			At:      inputs.FieldRef{Object: ref},
			Message: "also defined in " + prev,
			Fix:     "keep one of them",
			Where:   where,
		}
	}
	o.seen[ref] = where
	return nil
}
