// Package crds holds the OpenShift CustomResourceDefinitions this project reads and writes, copied byte for byte
// from the pinned github.com/openshift/api module by hack/update-crds.sh, and embedded in the binary so that the
// offline subcommands judge manifests by the same schemas and rules the API server applies (pkg/crdvalidation).
// The test control plane (test/framework) and hack/local-up install the files of this directory.
//
// A CRD is parsed only when its kind is asked for: a command that reads no manifest (--version, start) parses
// none.
package crds

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// files holds the CRDs copied from github.com/openshift/api. The stand-ins for prometheus-operator's CRDs
// (monitoring.coreos.com_*.crd.yaml) are for the test control plane only and are not embedded.
//
//go:embed 0000_*.crd.yaml
var files embed.FS

// Files returns the names of the embedded CRD files, sorted.
func Files() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(fmt.Sprintf("crds: reading the embedded files: %v", err)) // cannot happen: the pattern matched at build time
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// ReadFile returns the bytes of one embedded CRD file, by its name as Files returns it.
func ReadFile(name string) ([]byte, error) {
	return files.ReadFile(name)
}

// The group and kind of a generated CRD file, found without parsing the YAML: controller-gen writes `spec.group`
// at two spaces and `spec.names.kind` at four, once each per file.
var (
	groupLine = regexp.MustCompile(`(?m)^  group: (\S+)$`)
	kindLine  = regexp.MustCompile(`(?m)^    kind: (\S+)$`)
)

var (
	indexOnce sync.Once
	index     map[schema.GroupKind]string // group and kind -> file name
	indexErr  error

	parsedMu sync.Mutex
	parsed   = map[string]*apiextensionsv1.CustomResourceDefinition{}
)

// buildIndex finds the group and kind of every embedded file by two regular expressions (no YAML parse).
func buildIndex() {
	index = map[schema.GroupKind]string{}
	for _, name := range Files() {
		data, err := files.ReadFile(name)
		if err != nil {
			indexErr = err
			return
		}
		g, k := groupLine.FindSubmatch(data), kindLine.FindSubmatch(data)
		if g == nil || k == nil {
			indexErr = fmt.Errorf("crds: %s: no spec.group or spec.names.kind line", name)
			return
		}
		gk := schema.GroupKind{Group: string(g[1]), Kind: string(k[1])}
		if other, dup := index[gk]; dup {
			indexErr = fmt.Errorf("crds: %s and %s both define %s", other, name, gk)
			return
		}
		index[gk] = name
	}
}

// FileFor returns the name of the embedded file holding the CRD of gk, and false when none does.
func FileFor(gk schema.GroupKind) (string, bool, error) {
	indexOnce.Do(buildIndex)
	if indexErr != nil {
		return "", false, indexErr
	}
	name, ok := index[gk]
	return name, ok, nil
}

// For returns the CRD of gk, parsed on first use and shared afterwards (callers must not modify it), and false
// when no embedded CRD defines gk.
func For(gk schema.GroupKind) (*apiextensionsv1.CustomResourceDefinition, bool, error) {
	name, ok, err := FileFor(gk)
	if err != nil || !ok {
		return nil, ok, err
	}
	parsedMu.Lock()
	defer parsedMu.Unlock()
	if crd := parsed[name]; crd != nil {
		return crd, true, nil
	}
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, false, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(bytes.TrimSpace(data), crd); err != nil {
		return nil, false, fmt.Errorf("crds: parsing %s: %w", name, err)
	}
	if crd.Spec.Group != gk.Group || crd.Spec.Names.Kind != gk.Kind {
		return nil, false, fmt.Errorf("crds: %s defines %s.%s, not %s", name, crd.Spec.Names.Kind, crd.Spec.Group, gk)
	}
	parsed[name] = crd
	return crd, true, nil
}
