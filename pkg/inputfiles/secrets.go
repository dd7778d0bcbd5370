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

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// ReadSecrets reads the v1 Secrets of a file, or of the *.yaml, *.yml and *.json files directly in a directory
// (in name order), as `kubectl get secret -o yaml` prints them: single objects, multi-document YAML or `List`s.
// Other objects are ignored. A document that does not decode is an error naming the file and document, and never
// quoting its content: it may hold credentials.
//
//	secrets, err := ReadSecrets("team-a-secrets.yaml") // every Secret of the file, of any namespace and type
func ReadSecrets(path string) ([]corev1.Secret, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading secrets: %w", err)
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("reading secrets: %w", err)
		}
		files = files[:0]
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	var out []corev1.Secret
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading secrets: %w", err)
		}
		secrets, err := decodeSecrets(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, secrets...)
	}
	return out, nil
}

// decodeSecrets returns the Secrets of every document of one file's contents; name is used in messages.
func decodeSecrets(name string, data []byte) ([]corev1.Secret, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []corev1.Secret
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s (document %d): not YAML or JSON", name, doc)
		}
		if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
			continue
		}
		secrets, err := secretsOf(fmt.Sprintf("%s (document %d)", name, doc), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, secrets...)
	}
}

// secretsOf returns the Secret raw is, or the Secrets of a v1 List; none for other objects.
func secretsOf(where string, raw json.RawMessage) ([]corev1.Secret, error) {
	var tm typeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, fmt.Errorf("%s: not a Kubernetes object", where)
	}
	switch {
	case tm.APIVersion == "v1" && strings.HasSuffix(tm.Kind, "List"):
		var out []corev1.Secret
		for i, item := range tm.Items {
			secrets, err := secretsOf(fmt.Sprintf("%s items[%d]", where, i), item)
			if err != nil {
				return nil, err
			}
			out = append(out, secrets...)
		}
		return out, nil
	case tm.APIVersion != "v1" || tm.Kind != "Secret":
		return nil, nil
	}
	var s corev1.Secret
	if err := json.Unmarshal(raw, &s); err != nil {
		// The decoder's message may quote part of a value: name the object only.
		return nil, fmt.Errorf("%s: Secret %q does not decode as a v1 Secret (its data must be base64)", where, tm.Metadata.Name)
	}
	return []corev1.Secret{s}, nil
}
