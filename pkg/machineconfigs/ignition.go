package machineconfigs

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	ign3types "github.com/coreos/ignition/v2/config/v3_5/types"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/vincent-petithory/dataurl"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

const (
	// IgnitionVersion is the Ignition spec version of the generated configs.
	IgnitionVersion = "3.5.0"
	// fileMode is 0644, the mode of every generated file.
	fileMode = 0o644
)

// Encode returns the spec.config of a MachineConfig that writes files: the Ignition config as JSON, byte for byte
// as MCO writes it (NewIgnFileBytesOverwriting, encoded by clarketm/json, which leaves out empty structs): each file
// overwrite, mode 0644, a data URL and an explicit empty compression (docs/semantics.md §9.6). No files give
// {"ignition":{"version":"3.5.0"}}.
func Encode(files nodefiles.Files) ([]byte, error) { return EncodeParsed(Parsed(files)) }

// EncodeParsed returns Encode of the files parsed is built from (Parsed), reusing its data URLs: the render encodes
// each group of files once and keeps parsed for the budget (Desired.Parsed).
func EncodeParsed(parsed *ign3types.Config) ([]byte, error) {
	cfg := encodedConfig{Ignition: encodedIgnition{Version: parsed.Ignition.Version}}
	if files := parsed.Storage.Files; len(files) > 0 {
		cfg.Storage = &encodedStorage{Files: make([]encodedFile, len(files))}
		for i, f := range files {
			cfg.Storage.Files[i] = encodedFile{Overwrite: true, Path: f.Path, Mode: fileMode,
				Contents: encodedContents{Compression: "", Source: *f.Contents.Source}}
		}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding the Ignition config: %w", err)
	}
	return raw, nil
}

// Parsed returns the Ignition config the render controller parses out of Encode(files) (Ignition's
// ParseCompatibleVersion), built instead of parsed: a budget measured before a write merges this project's
// MachineConfigs as the render controller will, without parsing back the megabyte just encoded
// (renderedconfig.Cache.AddDesired). TestParsedIsWhatIgnitionParsesOutOfEncode holds the two equal.
func Parsed(files nodefiles.Files) *ign3types.Config {
	cfg := &ign3types.Config{Ignition: ign3types.Ignition{Version: IgnitionVersion}}
	if len(files) > 0 {
		cfg.Storage.Files = make([]ign3types.File, len(files))
	}
	for i, f := range files {
		overwrite, mode, compression, source := true, fileMode, "", dataURL(f.Data)
		cfg.Storage.Files[i] = ign3types.File{
			Node: ign3types.Node{Path: f.Path, Overwrite: &overwrite},
			FileEmbedded1: ign3types.FileEmbedded1{Mode: &mode,
				Contents: ign3types.Resource{Compression: &compression, Source: &source}},
		}
	}
	return cfg
}

// encodedConfig is the part of Ignition's config (v3_5 types) a generated MachineConfig writes, with the fields in
// the types' order and nothing empty, as MCO's encoding leaves it.
type encodedConfig struct {
	Ignition encodedIgnition `json:"ignition"`
	Storage  *encodedStorage `json:"storage,omitempty"`
}

type encodedIgnition struct {
	Version string `json:"version"`
}

type encodedStorage struct {
	Files []encodedFile `json:"files"`
}

type encodedFile struct {
	Overwrite bool            `json:"overwrite"`
	Path      string          `json:"path"`
	Contents  encodedContents `json:"contents"`
	Mode      int             `json:"mode"`
}

type encodedContents struct {
	Compression string `json:"compression"`
	Source      string `json:"source"`
}

// dataURL returns the data URL of contents byte for byte as vincent-petithory/dataurl's EncodeBytes writes it
// (MCO uses it): "data:", the media type http.DetectContentType gives without the space after ";" (for our
// files "text/plain;charset=utf-8"), ";base64," and the standard base64 of contents, in one allocation.
func dataURL(contents []byte) string {
	prefix := "data:" + strings.ReplaceAll(http.DetectContentType(contents), "; ", ";") + ";base64,"
	buf := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(contents)))
	copy(buf, prefix)
	base64.StdEncoding.Encode(buf[len(prefix):], contents)
	return string(buf)
}

// Config is a MachineConfig's Ignition config, decoded: what a comparison needs, computed once.
type Config struct {
	// Version is ignition.version, e.g. "3.5.0".
	Version string
	// Files are the files it writes, in its order, with their contents decoded (data URL, gzip).
	Files nodefiles.Files
	// Attributes maps the path of each file whose attributes are not those of a generated file (overwrite, mode
	// 0644, no user, group, append or verification) to what differs, e.g. "mode 0600".
	Attributes map[string]string
	// Other is true when the config holds more than files: units, users, directories, links, kernel settings.
	Other bool
	// Errors maps the path of each file whose contents do not decode (a remote source, an unknown compression) to
	// why; such a file is not in Files.
	Errors map[string]error
}

// Err returns the error of the first file, by path, that does not decode; nil when every file does.
func (c *Config) Err() error {
	var first string
	for p := range c.Errors {
		if first == "" || p < first {
			first = p
		}
	}
	if first == "" {
		return nil
	}
	return c.Errors[first]
}

// Decode decodes the Ignition config of mc, any 3.x version: the files with their contents (data URLs, plain or
// gzip-compressed), their attributes, and whether it holds anything else. A file whose contents do not decode is
// recorded in Config.Errors, naming the MachineConfig and the path: a rendered config may hold files of other
// MachineConfigs that only a node can fetch. A config that is not Ignition JSON is an error.
func Decode(mc *mcfgv1.MachineConfig) (*Config, error) {
	out := &Config{Attributes: map[string]string{}, Errors: map[string]error{}}
	if len(mc.Spec.Config.Raw) == 0 {
		return out, nil
	}
	cfg := &ign3types.Config{}
	if err := json.Unmarshal(mc.Spec.Config.Raw, cfg); err != nil {
		return nil, fmt.Errorf("MachineConfig %s: spec.config is not an Ignition config: %w", mc.Name, err)
	}
	out.Version = cfg.Ignition.Version
	out.Files = make(nodefiles.Files, 0, len(cfg.Storage.Files))
	for _, f := range cfg.Storage.Files {
		data, err := decodeContents(f.Contents)
		if err != nil {
			out.Errors[f.Path] = fmt.Errorf("MachineConfig %s: file %s: %w", mc.Name, f.Path, err)
			continue
		}
		out.Files = append(out.Files, nodefiles.File{Path: f.Path, Data: data})
		if a := attributes(f); a != "" {
			out.Attributes[f.Path] = a
		}
	}
	rest := *cfg
	rest.Ignition = ign3types.Ignition{}
	rest.Storage.Files = nil
	out.Other = !reflect.ValueOf(rest).IsZero()
	return out, nil
}

// DecodeFiles returns the files mc writes, decoded, in its order; an error when one of them does not decode.
func DecodeFiles(mc *mcfgv1.MachineConfig) (nodefiles.Files, error) {
	cfg, err := Decode(mc)
	if err != nil {
		return nil, err
	}
	return cfg.Files, cfg.Err()
}

// decodeContents returns the contents of a file: its data URL decoded, then decompressed ("" or "gzip").
func decodeContents(r ign3types.Resource) ([]byte, error) {
	if r.Source == nil {
		return nil, nil
	}
	u, err := dataurl.DecodeString(*r.Source)
	if err != nil {
		return nil, fmt.Errorf("contents are not a data URL: %w", err)
	}
	if r.Compression == nil || *r.Compression == "" {
		return u.Data, nil
	}
	if *r.Compression != "gzip" {
		return nil, fmt.Errorf("unknown compression %q", *r.Compression)
	}
	z, err := gzip.NewReader(bytes.NewReader(u.Data))
	if err != nil {
		return nil, fmt.Errorf("gzip contents: %w", err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("gzip contents: %w", err)
	}
	return data, nil
}

// attributes says how f's attributes differ from a generated file's, "" when they do not.
func attributes(f ign3types.File) string {
	var diffs []string
	if f.Overwrite == nil || !*f.Overwrite {
		diffs = append(diffs, "not overwrite")
	}
	if f.Mode == nil || *f.Mode != fileMode {
		mode := "no mode"
		if f.Mode != nil {
			mode = fmt.Sprintf("mode %#o", *f.Mode)
		}
		diffs = append(diffs, mode)
	}
	if !reflect.ValueOf(f.User).IsZero() || !reflect.ValueOf(f.Group).IsZero() {
		diffs = append(diffs, "a user or group")
	}
	if len(f.Append) > 0 {
		diffs = append(diffs, "appended contents")
	}
	if f.Contents.Verification.Hash != nil || len(f.Contents.HTTPHeaders) > 0 {
		diffs = append(diffs, "a verification hash or HTTP headers")
	}
	return strings.Join(diffs, ", ")
}
