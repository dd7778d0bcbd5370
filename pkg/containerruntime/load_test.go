package containerruntime_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	storagetypes "github.com/containers/storage/types"
	"github.com/docker/go-units"

	"github.com/openshift/registries-controller/pkg/containerruntime"
)

// The storage.conf of every field set, loaded by containers/storage's own configuration code as CRI-O loads it:
// the driver, roots and store options it reads are the ones written, and the overlay driver's size parser (go-units'
// RAMInBytes, what drivers/overlay runs on "overlay.size") takes the size.
func TestStorageConfLoadsWithContainersStorage(t *testing.T) {
	data, ok := containerruntime.Files(everything(), true).Get(containerruntime.StorageConf)
	if !ok {
		t.Fatal("no storage.conf")
	}
	file := filepath.Join(t.TempDir(), "storage.conf")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var opts storagetypes.StoreOptions
	if err := storagetypes.ReloadConfigurationFile(file, &opts); err != nil {
		t.Fatal(err)
	}
	if opts.GraphDriverName != "overlay" || opts.RunRoot != "/run/containers/storage" || opts.GraphRoot != "/var/lib/containers/storage" {
		t.Errorf("driver %q, run root %q, graph root %q", opts.GraphDriverName, opts.RunRoot, opts.GraphRoot)
	}
	for _, want := range []string{"overlay.imagestore=/mnt/nfs-images", "overlay.additionallayerstore=/var/lib/stargz-store:ref", "overlay.size=10G", "overlay.skip_mount_home=true"} {
		if !slices.Contains(opts.GraphDriverOptions, want) {
			t.Errorf("driver options %q lack %q", opts.GraphDriverOptions, want)
		}
	}
	if opts.PullOptions["enable_partial_images"] != "false" || opts.PullOptions["use_hard_links"] != "false" {
		t.Errorf("pull options %v", opts.PullOptions)
	}
	for _, o := range opts.GraphDriverOptions {
		if size, ok := strings.CutPrefix(o, "overlay.size="); ok {
			if n, err := units.RAMInBytes(size); err != nil || n != 10<<30 {
				t.Errorf("the overlay driver reads size %q as %d, %v", size, n, err)
			}
		}
	}
}

// What the overlay driver makes of the sizes MCO writes: "10Gi" and "1Gi" (MCO's canonical form of 1024Mi) are
// refused, which Problems catches; "500m" is 500 MiB to it, not half a byte.
func TestOverlayDriverSizes(t *testing.T) {
	for size, want := range map[string]int64{"3G": 3 << 30, "1e3": 1000, "500m": 500 << 20, "10737418240": 10737418240, "10Gi": -1, "1Gi": -1, "512Mi": -1} {
		n, err := units.RAMInBytes(size)
		if want < 0 {
			if err == nil {
				t.Errorf("%s: read as %d, want refused", size, n)
			}
			continue
		}
		if err != nil || n != want {
			t.Errorf("%s: %d, %v; want %d", size, n, err, want)
		}
	}
}

// crioRuntime is the part of CRI-O's configuration (internal/config's RuntimeConfig, [crio.runtime]) the drop-ins
// set, with CRI-O's TOML field names.
type crioRuntime struct {
	LogLevel                 string   `toml:"log_level"`
	PidsLimit                int64    `toml:"pids_limit"`
	LogSizeMax               int64    `toml:"log_size_max"`
	DefaultRuntime           string   `toml:"default_runtime"`
	AdditionalArtifactStores []string `toml:"additional_artifact_stores"`
}

// Each drop-in decodes into CRI-O's field names with nothing left over, to the value set.
func TestDropInsDecodeIntoCRIOFields(t *testing.T) {
	spec := everything()
	spec.LogSizeMax = quantity("-1")
	files := containerruntime.Files(spec, true)
	want := map[string]crioRuntime{
		containerruntime.LogLevelDropIn:       {LogLevel: "info"},
		containerruntime.PidsLimitDropIn:      {PidsLimit: 2048},
		containerruntime.LogSizeMaxDropIn:     {LogSizeMax: -1},
		containerruntime.DefaultRuntimeDropIn: {DefaultRuntime: "crun"},
		containerruntime.ArtifactStoresDropIn: {AdditionalArtifactStores: []string{"/mnt/ssd-artifacts"}},
	}
	for path, w := range want {
		data, ok := files.Get(path)
		if !ok {
			t.Errorf("no %s", path)
			continue
		}
		var cfg struct {
			Crio struct {
				Runtime crioRuntime `toml:"runtime"`
			} `toml:"crio"`
		}
		meta, err := toml.Decode(string(data), &cfg)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if u := meta.Undecoded(); len(u) > 0 {
			t.Errorf("%s: keys CRI-O does not know: %v", path, u)
		}
		got := cfg.Crio.Runtime
		if got.LogLevel != w.LogLevel || got.PidsLimit != w.PidsLimit || got.LogSizeMax != w.LogSizeMax || got.DefaultRuntime != w.DefaultRuntime ||
			!slices.Equal(got.AdditionalArtifactStores, w.AdditionalArtifactStores) {
			t.Errorf("%s decodes to %+v, want %+v", path, got, w)
		}
	}
}
