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
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/openshift/registries-controller/pkg/registries"
	"github.com/openshift/registries-controller/pkg/render"
)

// Objects are the render inputs found in a set of files.
type Objects struct {
	ImageContentSourcePolicies []*operatorv1alpha1.ImageContentSourcePolicy
	ImageDigestMirrorSets      []*configv1.ImageDigestMirrorSet
	ImageTagMirrorSets         []*configv1.ImageTagMirrorSet
	Image                      *configv1.Image
	ClusterVersion             *configv1.ClusterVersion
	Pools                      []*mcfgv1.MachineConfigPool
	// Skipped has one line per document that is not a render input, e.g.
	// `examples/ns.yaml: skipping v1 Namespace "demo": not a mirror, Image, ClusterVersion or pool object`.
	Skipped []string

	seen map[string]string // kind/name -> where
}

// RenderInputs returns the render inputs; releaseImage, when not empty, overrides the ClusterVersion.
func (o *Objects) RenderInputs(releaseImage, version string) *render.Inputs {
	in := &render.Inputs{
		ImageContentSourcePolicies: o.ImageContentSourcePolicies,
		ImageDigestMirrorSets:      o.ImageDigestMirrorSets,
		ImageTagMirrorSets:         o.ImageTagMirrorSets,
		Image:                      o.Image,
		Pools:                      o.Pools,
		Version:                    version,
	}
	switch {
	case releaseImage != "":
		in.ReleaseImage = releaseImage
		in.ReleaseImageField = &registries.FieldRef{Object: registries.ObjectRef{Kind: "flag", Name: "release-image"}, Field: "--release-image"}
	case o.ClusterVersion != nil:
		in.ReleaseImage = o.ClusterVersion.Status.Desired.Image
	}
	return in
}

// ReadDir reads every *.yaml, *.yml and *.json file directly in dir, in name order.
func ReadDir(dir string) (*Objects, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading manifests: %w", err)
	}
	o := &Objects{}
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading manifests: %w", err)
		}
		if err := o.Add(path, data); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// Decode reads the objects of one file's contents; name is used in messages.
func Decode(name string, data []byte) (*Objects, error) {
	o := &Objects{}
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
func (o *Objects) Add(name string, data []byte) error {
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

func (o *Objects) addObject(where string, raw json.RawMessage) error {
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
	group := tm.APIVersion
	if i := strings.IndexByte(group, '/'); i >= 0 {
		group = group[:i]
	}
	key := group + "/" + tm.Kind
	decode := func(into any) error {
		if err := json.Unmarshal(raw, into); err != nil {
			return fmt.Errorf("%s: %s %q: %w", where, tm.Kind, tm.Metadata.Name, err)
		}
		return o.remember(where, tm.Kind, tm.Metadata.Name)
	}
	switch key {
	case "operator.openshift.io/ImageContentSourcePolicy":
		obj := &operatorv1alpha1.ImageContentSourcePolicy{}
		o.ImageContentSourcePolicies = append(o.ImageContentSourcePolicies, obj)
		return decode(obj)
	case "config.openshift.io/ImageDigestMirrorSet":
		obj := &configv1.ImageDigestMirrorSet{}
		o.ImageDigestMirrorSets = append(o.ImageDigestMirrorSets, obj)
		return decode(obj)
	case "config.openshift.io/ImageTagMirrorSet":
		obj := &configv1.ImageTagMirrorSet{}
		o.ImageTagMirrorSets = append(o.ImageTagMirrorSets, obj)
		return decode(obj)
	case "machineconfiguration.openshift.io/MachineConfigPool":
		obj := &mcfgv1.MachineConfigPool{}
		o.Pools = append(o.Pools, obj)
		return decode(obj)
	case "config.openshift.io/Image":
		if tm.Metadata.Name != registries.ImageConfigName {
			o.skip(where, tm, "only the Image named \"cluster\" is read")
			return nil
		}
		o.Image = &configv1.Image{}
		return decode(o.Image)
	case "config.openshift.io/ClusterVersion":
		if tm.Metadata.Name != registries.ClusterVersionName {
			o.skip(where, tm, "only the ClusterVersion named \"version\" is read")
			return nil
		}
		o.ClusterVersion = &configv1.ClusterVersion{}
		return decode(o.ClusterVersion)
	}
	o.skip(where, tm, "not a mirror, Image, ClusterVersion or MachineConfigPool object")
	return nil
}

func (o *Objects) skip(where string, tm typeMeta, why string) {
	o.Skipped = append(o.Skipped, fmt.Sprintf("%s: skipping %s %s %q: %s", where, tm.APIVersion, tm.Kind, tm.Metadata.Name, why))
}

func (o *Objects) remember(where, kind, name string) error {
	if name == "" {
		return fmt.Errorf("%s: %s without metadata.name", where, kind)
	}
	if o.seen == nil {
		o.seen = map[string]string{}
	}
	key := kind + "/" + name
	if prev, dup := o.seen[key]; dup {
		return fmt.Errorf("%s: %s %q is also defined in %s", where, kind, name, prev)
	}
	o.seen[key] = where
	return nil
}

// Kinds returns a one-line summary of what was read, e.g. "2 ImageDigestMirrorSets, 1 Image".
func (o *Objects) Kinds() string {
	counts := map[string]int{
		"ImageContentSourcePolicy": len(o.ImageContentSourcePolicies),
		"ImageDigestMirrorSet":     len(o.ImageDigestMirrorSets),
		"ImageTagMirrorSet":        len(o.ImageTagMirrorSets),
		"MachineConfigPool":        len(o.Pools),
	}
	if o.Image != nil {
		counts["Image"] = 1
	}
	if o.ClusterVersion != nil {
		counts["ClusterVersion"] = 1
	}
	var parts []string
	for k, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "no input objects"
	}
	return strings.Join(parts, ", ")
}
