// Package containerruntime is the pure core of the ContainerRuntimeConfig output (docs/semantics.md §11): the
// files a ContainerRuntimeConfig's spec.containerRuntimeConfig gives a node (/etc/containers/storage.conf and
// CRI-O drop-ins, byte for byte as MCO writes them), the checks MCO and the API server make on that spec, plus
// the overlaySize check containers/storage makes on a node, which MCO does not, the pools an object selects, the
// MachineConfig suffix each object gets on its pools, and the status the object is given. No client, lister,
// clock or file: the controller and the offline render both call it.
//
//	files := containerruntime.Files(&crc.Spec.ContainerRuntimeConfig, true)
//	// [/etc/containers/storage.conf (415 bytes), /etc/crio/crio.conf.d/01-ctrcfg-logLevel (47 bytes)]
package containerruntime

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	storageconfig "github.com/containers/storage/pkg/config"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Node paths of the files a ContainerRuntimeConfig writes (docs/semantics.md §11.2). The drop-ins sort after
// CRI-O's /etc/crio/crio.conf.d/00-default, which MCO's base MachineConfig writes, so they override it.
const (
	// StorageConf is containers/storage's configuration: the overlay size and the additional stores.
	StorageConf = nodefiles.StorageConf
	// LogLevelDropIn sets CRI-O's log_level.
	LogLevelDropIn = nodefiles.CRIODropInPrefix + "logLevel"
	// PidsLimitDropIn sets CRI-O's pids_limit.
	PidsLimitDropIn = nodefiles.CRIODropInPrefix + "pidsLimit"
	// LogSizeMaxDropIn sets CRI-O's log_size_max.
	LogSizeMaxDropIn = nodefiles.CRIODropInPrefix + "logSizeMax"
	// DefaultRuntimeDropIn sets CRI-O's default_runtime.
	DefaultRuntimeDropIn = nodefiles.CRIODropInPrefix + "defaultRuntime"
	// ArtifactStoresDropIn sets CRI-O's additional_artifact_stores.
	ArtifactStoresDropIn = nodefiles.CRIODropInPrefix + "additionalArtifactStores"
)

// Paths are every node path the output writes, in the order a MachineConfig of it lists them.
var Paths = []string{StorageConf, LogLevelDropIn, PidsLimitDropIn, LogSizeMaxDropIn, DefaultRuntimeDropIn, ArtifactStoresDropIn}

// layerStoreSuffix is appended to each additional layer store path: containers/storage then passes the image
// reference to the store (MCO #5888).
const layerStoreSuffix = ":ref"

// Files returns the files spec gives a node, in MCO's order: storage.conf when it changes (a non-zero
// overlaySize, or, with stores on, layer or image stores), then one drop-in per set field: logLevel, pidsLimit (0
// included), logSizeMax (unless 0), defaultRuntime, and, with stores on, additionalArtifactStores. stores is the
// feature gate AdditionalStorageConfig: off, the store lists are ignored (they are still validated). A nil spec
// gives no files (MCO panics on it). The spec is assumed valid (Validate).
func Files(spec *mcfgv1.ContainerRuntimeConfiguration, stores bool) nodefiles.Files {
	if spec == nil {
		return nil
	}
	var files nodefiles.Files
	if conf := storageConf(spec, stores); conf != nil {
		files = append(files, nodefiles.File{Path: StorageConf, Data: conf})
	}
	return append(files, dropIns(spec, stores)...)
}

// storageConfFile is the shape MCO decodes the template's storage.conf into and encodes it from: the [storage]
// table's driver and roots, and containers/storage's own OptionsConfig (pkg/config; MCO's copy is v1.58.0, whose
// encoding of these values is the same as this module's: the golden files of the tests hold MCO's bytes).
type storageConfFile struct {
	Storage storageTable `toml:"storage"`
}

type storageTable struct {
	Driver    string                      `toml:"driver"`
	RunRoot   string                      `toml:"runroot"`
	GraphRoot string                      `toml:"graphroot"`
	Options   storageconfig.OptionsConfig `toml:"options"`
}

// baseStorageConf returns what MCO's storage.conf template (the file every pool's 00-<role> MachineConfig writes,
// 2951 bytes) holds once decoded: MCO derives the ContainerRuntimeConfig's storage.conf from it, losing its
// comments and its empty values.
func baseStorageConf() *storageConfFile {
	f := &storageConfFile{Storage: storageTable{
		Driver: "overlay", RunRoot: "/run/containers/storage", GraphRoot: "/var/lib/containers/storage",
	}}
	f.Storage.Options.PullOptions = map[string]string{
		"enable_partial_images": "false", "use_hard_links": "false", "ostree_repos": "",
	}
	f.Storage.Options.Overlay.SkipMountHome = "true"
	return f
}

// needsStorageConf reports whether spec changes storage.conf (MCO's needsStorageUpdate).
func needsStorageConf(spec *mcfgv1.ContainerRuntimeConfiguration, stores bool) bool {
	return spec.OverlaySize != nil && !spec.OverlaySize.IsZero() ||
		stores && (len(spec.AdditionalLayerStores) > 0 || len(spec.AdditionalImageStores) > 0)
}

// storageConf returns storage.conf as MCO derives it from the template (updateStorageConfig), nil when spec does
// not change it: the overlaySize in [storage.options] size, as the quantity's canonical string ("1024Mi" is
// "1Gi"), and with stores on the layer stores with ":ref" appended and the image stores as written.
func storageConf(spec *mcfgv1.ContainerRuntimeConfiguration, stores bool) []byte {
	if !needsStorageConf(spec, stores) {
		return nil
	}
	f := baseStorageConf()
	opts := &f.Storage.Options
	if spec.OverlaySize != nil && !spec.OverlaySize.IsZero() {
		opts.Size = spec.OverlaySize.String()
	}
	if stores {
		opts.AdditionalLayerStores = nil
		for _, s := range spec.AdditionalLayerStores {
			p := string(s.Path)
			if !strings.HasSuffix(p, layerStoreSuffix) {
				p += layerStoreSuffix
			}
			opts.AdditionalLayerStores = append(opts.AdditionalLayerStores, p)
		}
		opts.AdditionalImageStores = nil
		for _, s := range spec.AdditionalImageStores {
			opts.AdditionalImageStores = append(opts.AdditionalImageStores, string(s.Path))
		}
	}
	return encodeTOML(f)
}

// crioDropIn is the shape of one CRI-O drop-in: the [crio.runtime] table with one key.
type crioDropIn[T any] struct {
	Crio struct {
		Runtime T `toml:"runtime"`
	} `toml:"crio"`
}

func dropIn[T any](runtime T) []byte {
	var d crioDropIn[T]
	d.Crio.Runtime = runtime
	return encodeTOML(&d)
}

// dropIns returns the CRI-O drop-ins of spec, in MCO's order (createCRIODropinFiles).
func dropIns(spec *mcfgv1.ContainerRuntimeConfiguration, stores bool) nodefiles.Files {
	var files nodefiles.Files
	if spec.LogLevel != "" {
		files = append(files, nodefiles.File{Path: LogLevelDropIn, Data: dropIn(struct {
			LogLevel string `toml:"log_level"`
		}{spec.LogLevel})})
	}
	if spec.PidsLimit != nil {
		files = append(files, nodefiles.File{Path: PidsLimitDropIn, Data: dropIn(struct {
			PidsLimit int64 `toml:"pids_limit"`
		}{*spec.PidsLimit})})
	}
	if spec.LogSizeMax != nil && !spec.LogSizeMax.IsZero() {
		files = append(files, nodefiles.File{Path: LogSizeMaxDropIn, Data: dropIn(struct {
			LogSizeMax int64 `toml:"log_size_max"`
		}{spec.LogSizeMax.Value()})})
	}
	if spec.DefaultRuntime != "" {
		files = append(files, nodefiles.File{Path: DefaultRuntimeDropIn, Data: dropIn(struct {
			DefaultRuntime string `toml:"default_runtime"`
		}{string(spec.DefaultRuntime)})})
	}
	if stores && len(spec.AdditionalArtifactStores) > 0 {
		paths := make([]string, len(spec.AdditionalArtifactStores))
		for i, s := range spec.AdditionalArtifactStores {
			paths[i] = string(s.Path)
		}
		files = append(files, nodefiles.File{Path: ArtifactStoresDropIn, Data: dropIn(struct {
			ArtifactStores []string `toml:"additional_artifact_stores"`
		}{paths})})
	}
	return files
}

// encodeTOML encodes v as MCO does (BurntSushi/toml with its default two-space indent). The values here always
// encode: an error is a bug.
func encodeTOML(v any) []byte {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		panic(fmt.Sprintf("containerruntime: encoding %T: %v", v, err))
	}
	return b.Bytes()
}
