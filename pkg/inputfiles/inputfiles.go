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
	"strings"

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
	// Refused are the problems of objects the API server would refuse before any render sees them: an object of a
	// singleton kind whose CRD allows no other name (inputs.Kind.SingletonRule).
	Refused []inputs.Problem

	seen map[inputs.ObjectRef]string // -> where
}

// Object is one object read, and where.
type Object struct {
	Kind   *inputs.Kind
	Object inputs.Object
	// Where names the file and document, e.g. "examples/idms.yaml (document 1)".
	Where string
}

// ReadDir reads every *.yaml, *.yml and *.json file directly in dir, in name order.
func ReadDir(dir string) (*Manifests, error) {
	o := &Manifests{}
	if err := o.addDir(dir); err != nil {
		return nil, err
	}
	return o, nil
}

// Stdin is the path that names standard input in Read, as in `kubectl apply -f -`.
const Stdin = "-"

// Read reads paths as `kubectl apply -f` takes them, in order: a file, whatever its name; a directory, its
// *.yaml, *.yml and *.json files in name order, not descending into subdirectories; or Stdin, read from
// stdin. An object defined twice, in one path or across them, is an error naming both places.
func Read(paths []string, stdin io.Reader) (*Manifests, error) {
	o := &Manifests{}
	for _, p := range paths {
		if err := o.addPath(p, stdin); err != nil {
			return nil, err
		}
	}
	return o, nil
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

// Decode reads the objects of one file's contents; name is used in messages.
func Decode(name string, data []byte) (*Manifests, error) {
	o := &Manifests{}
	if err := o.Add(name, data); err != nil {
		return nil, err
	}
	return o, nil
}

type typeMeta struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Metadata   struct{ Name string } `json:"metadata"`
	Items      []json.RawMessage     `json:"items"`
}

// Add decodes every document of a file's contents and adds the objects it holds.
func (o *Manifests) Add(name string, data []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s (document %d): %w", name, doc, err)
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		if err := o.addObject(fmt.Sprintf("%s (document %d)", name, doc), raw); err != nil {
			return err
		}
	}
}

func (o *Manifests) addObject(where string, raw json.RawMessage) error {
	var tm typeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return fmt.Errorf("%s: not a Kubernetes object: %w", where, err)
	}
	if tm.Kind == "" || tm.APIVersion == "" {
		return fmt.Errorf("%s: not a Kubernetes object: apiVersion and kind are required", where)
	}
	if strings.HasSuffix(tm.Kind, "List") && tm.APIVersion == "v1" {
		for i, item := range tm.Items {
			if err := o.addObject(fmt.Sprintf("%s items[%d]", where, i), item); err != nil {
				return err
			}
		}
		return nil
	}
	kind := inputs.KindOf(tm.APIVersion, tm.Kind)
	switch {
	case kind == nil:
		o.skip(where, tm, "not an input of the render")
		return nil
	case !kind.Counts(tm.Metadata.Name) && kind.SingletonRule != "":
		o.Refused = append(o.Refused, inputs.Problem{
			At:      inputs.FieldRef{Object: inputs.ObjectRef{Kind: kind.Name, Name: tm.Metadata.Name}, Field: "metadata.name"},
			Value:   tm.Metadata.Name,
			Message: kind.SingletonRule,
			Fix:     fmt.Sprintf("name it %q (in %s): the API server accepts no other", kind.Singleton, where),
		})
		return nil
	case !kind.Counts(tm.Metadata.Name):
		o.skip(where, tm, fmt.Sprintf("only the %s named %q is read", kind.Name, kind.Singleton))
		return nil
	}
	obj := kind.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		return fmt.Errorf("%s: %s %q: %w", where, tm.Kind, tm.Metadata.Name, err)
	}
	if err := o.remember(where, kind, obj); err != nil {
		return err
	}
	o.Inputs.Add(kind, obj)
	o.Objects = append(o.Objects, Object{Kind: kind, Object: obj, Where: where})
	return nil
}

func (o *Manifests) skip(where string, tm typeMeta, why string) {
	o.Skipped = append(o.Skipped, fmt.Sprintf("%s: skipping %s %s %q: %s", where, tm.APIVersion, tm.Kind, tm.Metadata.Name, why))
}

func (o *Manifests) remember(where string, kind *inputs.Kind, obj inputs.Object) error {
	if obj.GetName() == "" {
		return fmt.Errorf("%s: %s without metadata.name", where, kind.Name)
	}
	if kind.Namespaced && obj.GetNamespace() == "" {
		return fmt.Errorf("%s: %s %q without metadata.namespace", where, kind.Name, obj.GetName())
	}
	if o.seen == nil {
		o.seen = map[inputs.ObjectRef]string{}
	}
	ref := inputs.RefOf(kind, obj)
	if prev, dup := o.seen[ref]; dup {
		return fmt.Errorf("%s: %s is also defined in %s", where, ref, prev)
	}
	o.seen[ref] = where
	return nil
}
