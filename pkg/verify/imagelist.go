package verify

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/yaml"
)

// podImageFields are the lists of a pod spec whose items name an image.
var podImageFields = []string{"containers", "initContainers", "ephemeralContainers"}

// ParseImageList returns the image references of an image list file named name: one reference a line (blank
// lines and lines starting with # are ignored), or Kubernetes manifests (YAML or JSON, several documents) whose
// pod specs, wherever they are (a Pod, a Deployment's template, a CronJob's, a List's items), name images in
// containers, initContainers or ephemeralContainers. Each reference comes with where it was found, e.g.
// `deploy.yaml: Deployment "web" containers[0]`.
func ParseImageList(name string, data []byte) ([]Named, error) {
	trimmed := bytes.TrimSpace(data)
	if looksLikeManifests(trimmed) {
		return parseManifests(name, data)
	}
	var out []Named
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, " \t") {
			return nil, fmt.Errorf("%s line %d: %q is not one image reference", name, n, line)
		}
		out = append(out, Named{Reference: line, From: fmt.Sprintf("%s line %d", name, n)})
	}
	return out, sc.Err()
}

// Named is an image reference and where it was found.
type Named struct {
	Reference string
	From      string
}

func looksLikeManifests(data []byte) bool {
	return bytes.HasPrefix(data, []byte("{")) || bytes.HasPrefix(data, []byte("---")) ||
		bytes.Contains(data, []byte("\nkind:")) || bytes.HasPrefix(data, []byte("kind:")) ||
		bytes.HasPrefix(data, []byte("apiVersion:"))
}

func parseManifests(name string, data []byte) ([]Named, error) {
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Named
	for doc := 1; ; doc++ {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s document %d: %w", name, doc, err)
		}
		if obj == nil {
			continue
		}
		kind, _ := obj["kind"].(string)
		meta, _ := obj["metadata"].(map[string]any)
		objName, _ := meta["name"].(string)
		walkImages(obj, func(path, image string) {
			out = append(out, Named{Reference: image, From: fmt.Sprintf("%s: %s %q %s", name, kind, objName, path)})
		})
	}
}

// walkImages calls found for each image of a container list anywhere in v, with its path, e.g.
// "spec.template.spec.containers[0]".
func walkImages(v any, found func(path, image string)) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if items, ok := x[k].([]any); ok && isPodImageField(k) {
					for i, item := range items {
						if c, ok := item.(map[string]any); ok {
							if image, ok := c["image"].(string); ok && image != "" {
								found(fmt.Sprintf("%s[%d]", p, i), image)
							}
						}
					}
					continue
				}
				walk(p, x[k])
			}
		case []any:
			for i, item := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), item)
			}
		}
	}
	walk("", v)
}

func isPodImageField(k string) bool {
	for _, f := range podImageFields {
		if k == f {
			return true
		}
	}
	return false
}
