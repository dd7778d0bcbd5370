package containerruntime_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/containerruntime"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
)

func quantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func layerStores(paths ...string) []mcfgv1.AdditionalLayerStore {
	out := make([]mcfgv1.AdditionalLayerStore, len(paths))
	for i, p := range paths {
		out[i].Path = mcfgv1.StorePath(p)
	}
	return out
}

func imageStores(paths ...string) []mcfgv1.AdditionalImageStore {
	out := make([]mcfgv1.AdditionalImageStore, len(paths))
	for i, p := range paths {
		out[i].Path = mcfgv1.StorePath(p)
	}
	return out
}

func artifactStores(paths ...string) []mcfgv1.AdditionalArtifactStore {
	out := make([]mcfgv1.AdditionalArtifactStore, len(paths))
	for i, p := range paths {
		out[i].Path = mcfgv1.StorePath(p)
	}
	return out
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// everything is MCO's vector V2: every field set.
func everything() *mcfgv1.ContainerRuntimeConfiguration {
	return &mcfgv1.ContainerRuntimeConfiguration{
		PidsLimit: ptr.To[int64](2048), LogLevel: "info", LogSizeMax: quantity("10k"), OverlaySize: quantity("10G"),
		DefaultRuntime:           mcfgv1.ContainerRuntimeDefaultRuntimeCrun,
		AdditionalLayerStores:    layerStores("/var/lib/stargz-store"),
		AdditionalImageStores:    imageStores("/mnt/nfs-images"),
		AdditionalArtifactStores: artifactStores("/mnt/ssd-artifacts"),
	}
}

// The raw Ignition configs MCO (7ff337a) writes for a ContainerRuntimeConfig, from the vectors of the spec MCO's code
// was run for (V1 to V6): length and sha256 of spec.config.raw.
func TestMachineConfigRawIsMCOs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   *mcfgv1.ContainerRuntimeConfiguration
		stores bool
		len    int
		sha    string
	}{
		{"log level, log size and overlay size (V1)", &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug", LogSizeMax: quantity("9k"), OverlaySize: quantity("3G")},
			true, 1205, "15f060bd43385dc3d92c01a8fb264f8d52af39ca530762f31dfcc5c43ea63c36"},
		{"every field, stores on (V2)", everything(), true, 2093, "6c53c8746e9e78404c6c6ad43c97aa9d38e79d49a0e388a126225edc438f7627"},
		{"every field, stores off (V3)", everything(), false, 1670, "f24998b195cb67037820395897ebe326245e65fc202599cd7f952a2091ca6101"},
		{"layer stores only, stores off (V4)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz-store")}, false, 32, ""},
		{"nothing set (V5)", &mcfgv1.ContainerRuntimeConfiguration{}, true, 32, ""},
		{"overlay size 0 (V6)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("0")}, true, 32, ""},
		{"overlay size 0G (V6)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("0G")}, true, 32, ""},
		{"pids limit 0 (V7)", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](0)}, true, 274, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := machineconfigs.Encode(containerruntime.Files(tc.spec, tc.stores))
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) != tc.len {
				t.Errorf("raw is %d bytes, MCO's %d:\n%s", len(raw), tc.len, raw)
			}
			if tc.len == 32 && string(raw) != `{"ignition":{"version":"3.5.0"}}` {
				t.Errorf("raw %s, want MCO's empty config", raw)
			}
			if tc.sha != "" && sha(raw) != tc.sha {
				t.Errorf("raw sha256 %s, MCO's %s:\n%s", sha(raw), tc.sha, raw)
			}
		})
	}
}

// storage.conf as MCO derives it (V1, V2, V9 to V11): length and sha256, or the line that must be in it.
func TestStorageConfIsMCOs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   *mcfgv1.ContainerRuntimeConfiguration
		stores bool
		len    int
		sha    string
		line   string
	}{
		{"overlay size 3G", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("3G")}, true, 415, "a324c62d219e2318b0a2c7f2d120dc3269dfb5a98220d43003babf31915e8a29", `    size = "3G"`},
		{"overlay size 10G and stores", everything(), true, 522, "1b5872b6f0defd4f73d1ef59dabc89a932077df40e5980811bd93da764b3c52b", `    additionallayerstores = ["/var/lib/stargz-store:ref"]`},
		{"overlay size 10G and stores, stores off", everything(), false, 416, "eee3500d", `    size = "10G"`},
		{"two layer stores get :ref (V10)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz-store", "/mnt/nydus-store")},
			true, 481, "5a40116e37e16e34f155b4f093d99a222bcaf339fe921ca702f9a3baacbf50ac", `    additionallayerstores = ["/var/lib/stargz-store:ref", "/mnt/nydus-store:ref"]`},
		{"two image stores as written (V11)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalImageStores: imageStores("/mnt/nfs-images", "/mnt/ssd-images")},
			true, 466, "a1bb4bc7dde6c42283087e6e46795a507483170fc7efb40171cbe623ec982bee", `    additionalimagestores = ["/mnt/nfs-images", "/mnt/ssd-images"]`},
		{"1024Mi is written canonical (V9)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("1024Mi")}, true, 416, "", `    size = "1Gi"`},
		{"0.5Gi is written canonical (V9)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("0.5Gi")}, true, 418, "", `    size = "512Mi"`},
		{"500m is written as it is (V9)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("500m")}, true, 417, "", `    size = "500m"`},
		{"1e3 is written as it is (V9)", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("1e3")}, true, 416, "", `    size = "1e3"`},
		{"a layer store already ending in :ref is not doubled", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz-store:ref")}, true, 0, "", `    additionallayerstores = ["/var/lib/stargz-store:ref"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, ok := containerruntime.Files(tc.spec, tc.stores).Get(containerruntime.StorageConf)
			if !ok {
				t.Fatal("no storage.conf")
			}
			if tc.len != 0 && len(data) != tc.len {
				t.Errorf("%d bytes, MCO's %d:\n%s", len(data), tc.len, data)
			}
			if tc.sha != "" && !strings.HasPrefix(sha(data), tc.sha) {
				t.Errorf("sha256 %s, MCO's %s:\n%s", sha(data), tc.sha, data)
			}
			if !strings.Contains(string(data), "\n"+tc.line+"\n") {
				t.Errorf("no line %q in\n%s", tc.line, data)
			}
		})
	}
}

// The CRI-O drop-ins (V7, V8, V12, V13, V20): exactly "[crio]\n  [crio.runtime]\n    <key> = <value>\n".
func TestDropInsAreMCOs(t *testing.T) {
	dropIn := func(line string) string { return "[crio]\n  [crio.runtime]\n    " + line + "\n" }
	for _, tc := range []struct {
		name   string
		spec   *mcfgv1.ContainerRuntimeConfiguration
		stores bool
		want   nodefiles.Files // nil Data: no file at that path
	}{
		{"log level debug (V20)", &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug"}, true,
			nodefiles.Files{{Path: containerruntime.LogLevelDropIn, Data: b64("W2NyaW9dCiAgW2NyaW8ucnVudGltZV0KICAgIGxvZ19sZXZlbCA9ICJkZWJ1ZyIK")}}},
		{"log size 9000 (V20)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("9000")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: b64("W2NyaW9dCiAgW2NyaW8ucnVudGltZV0KICAgIGxvZ19zaXplX21heCA9IDkwMDAK")}}},
		{"pids limit 0 is written (V7, V20)", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](0)}, true,
			nodefiles.Files{{Path: containerruntime.PidsLimitDropIn, Data: b64("W2NyaW9dCiAgW2NyaW8ucnVudGltZV0KICAgIHBpZHNfbGltaXQgPSAwCg==")}}},
		{"pids limit 20 (V7)", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](20)}, true,
			nodefiles.Files{{Path: containerruntime.PidsLimitDropIn, Data: []byte(dropIn("pids_limit = 20"))}}},
		{"log size -1 is no limit (V8)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("-1")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: []byte(dropIn("log_size_max = -1"))}}},
		{"log size 0 writes no file (V8)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("0k")}, true, nil},
		{"log size 9k is 9000 (V8)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("9k")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: []byte(dropIn("log_size_max = 9000"))}}},
		{"log size 1Mi (V8)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("1Mi")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: []byte(dropIn("log_size_max = 1048576"))}}},
		{"log size 10G (V8)", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("10G")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: []byte(dropIn("log_size_max = 10000000000"))}}},
		{"log size 8192.5 is rounded up", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("8192.5")}, true,
			nodefiles.Files{{Path: containerruntime.LogSizeMaxDropIn, Data: []byte(dropIn("log_size_max = 8193"))}}},
		{"runc (V13)", &mcfgv1.ContainerRuntimeConfiguration{DefaultRuntime: mcfgv1.ContainerRuntimeDefaultRuntimeRunc}, true,
			nodefiles.Files{{Path: containerruntime.DefaultRuntimeDropIn, Data: []byte(dropIn(`default_runtime = "runc"`))}}},
		{"artifact stores as written (V12)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalArtifactStores: artifactStores("/mnt/ssd-artifacts", "/mnt/nfs-artifacts")}, true,
			nodefiles.Files{{Path: containerruntime.ArtifactStoresDropIn, Data: []byte(dropIn(`additional_artifact_stores = ["/mnt/ssd-artifacts", "/mnt/nfs-artifacts"]`))}}},
		{"artifact stores, stores off: no file and no storage.conf (V12)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalArtifactStores: artifactStores("/mnt/ssd-artifacts")}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := containerruntime.Files(tc.spec, tc.stores)
			if len(got) != len(tc.want) {
				t.Fatalf("files %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].Path != tc.want[i].Path || string(got[i].Data) != string(tc.want[i].Data) {
					t.Errorf("file %d: %s %q, want %s %q", i, got[i].Path, got[i].Data, tc.want[i].Path, tc.want[i].Data)
				}
			}
		})
	}
}

// The order of the files of a ContainerRuntimeConfig setting everything (V2): storage.conf, then the drop-ins in
// MCO's order, with their sizes.
func TestFilesInMCOsOrder(t *testing.T) {
	got := containerruntime.Files(everything(), true)
	want := []struct {
		path string
		len  int
	}{
		{containerruntime.StorageConf, 522}, {containerruntime.LogLevelDropIn, 47}, {containerruntime.PidsLimitDropIn, 46},
		{containerruntime.LogSizeMaxDropIn, 49}, {containerruntime.DefaultRuntimeDropIn, 53}, {containerruntime.ArtifactStoresDropIn, 80},
	}
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Path != w.path || len(got[i].Data) != w.len {
			t.Errorf("file %d: %s (%d bytes), want %s (%d bytes)", i, got[i].Path, len(got[i].Data), w.path, w.len)
		}
	}
	if containerruntime.Files(nil, true) != nil {
		t.Error("a nil spec gives files")
	}
}

func b64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
