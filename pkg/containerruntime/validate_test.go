package containerruntime_test

import (
	"strings"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/registries-controller/pkg/containerruntime"
)

func crcWith(spec *mcfgv1.ContainerRuntimeConfiguration) *mcfgv1.ContainerRuntimeConfig {
	return &mcfgv1.ContainerRuntimeConfig{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: mcfgv1.ContainerRuntimeConfigSpec{
		MachineConfigPoolSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pools.operator.machineconfiguration.openshift.io/worker": ""}},
		ContainerRuntimeConfig:    spec,
	}}
}

// MCO's TestContainerRuntimeConfigOptions, its validation table (spec §3) and the API's vectors (spec §1.6): each
// refused value gives exactly one problem, with MCO's (or the API server's) message, on its field.
func TestProblemsAreMCOsAndTheAPIs(t *testing.T) {
	long := "/" + strings.Repeat("a", 256)
	for _, tc := range []struct {
		name  string
		spec  *mcfgv1.ContainerRuntimeConfiguration
		field string // "" when accepted
		msg   string
	}{
		{"pids limit 10 is refused", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](10)}, ".pidsLimit", "invalid PidsLimit 10"},
		{"pids limit -10 is refused", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](-10)}, ".pidsLimit", "invalid PidsLimit -10"},
		{"pids limit -1 is refused (as MCO does)", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](-1)}, ".pidsLimit", "invalid PidsLimit -1"},
		{"pids limit 19 is refused", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](19)}, ".pidsLimit", "invalid PidsLimit 19"},
		{"pids limit 0 is accepted", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](0)}, "", ""},
		{"pids limit 2048 is accepted", &mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](2048)}, "", ""},
		{"log size 3k is refused", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("3k")}, ".logSizeMax", `invalid LogSizeMax "3k", cannot be less than 8kB`},
		{"log size 8k is refused", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("8k")}, ".logSizeMax", `invalid LogSizeMax "8k", cannot be less than 8kB`},
		{"log size 8Ki is refused", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("8Ki")}, ".logSizeMax", `invalid LogSizeMax "8Ki", cannot be less than 8kB`},
		{"log size 100m is refused", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("100m")}, ".logSizeMax", `invalid LogSizeMax "100m", cannot be less than 8kB`},
		{"log size 8193 is accepted", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("8193")}, "", ""},
		{"log size 10k is accepted", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("10k")}, "", ""},
		{"log size -1 is accepted", &mcfgv1.ContainerRuntimeConfiguration{LogSizeMax: quantity("-1")}, "", ""},
		{"overlay size -5G is refused", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("-5G")}, ".overlaySize", `invalid overlaySize "-5G", cannot be less than 0`},
		{"overlay size 10Gi, which containers/storage refuses, is refused with the fix", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("10Gi")}, ".overlaySize",
			`containers/storage refuses the size "10Gi" that storage.conf would get, and CRI-O would not start on the pool's nodes; write 10G: containers/storage reads it as the same 10Gi bytes`},
		{"overlay size 1024Mi is written 1Gi, and refused", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("1024Mi")}, ".overlaySize", `write 1G: containers/storage reads it as the same 1Gi bytes`},
		{"overlay size 10G is accepted", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("10G")}, "", ""},
		{"overlay size 1e3 is accepted", &mcfgv1.ContainerRuntimeConfiguration{OverlaySize: quantity("1e3")}, "", ""},
		{"log level invalid is refused", &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "invalid"}, ".logLevel", `invalid LogLevel "invalid", must be one of error, fatal, panic, warn, info, debug, or trace`},
		{"log level Debug is refused (case-sensitive)", &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "Debug"}, ".logLevel", `invalid LogLevel "Debug"`},
		{"log level trace is accepted", &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "trace"}, "", ""},
		{"default runtime kata is refused", &mcfgv1.ContainerRuntimeConfiguration{DefaultRuntime: "kata"}, ".defaultRuntime", `invalid DefaultRuntime "kata", must be one of crun, runc`},
		{"default runtime crun is accepted", &mcfgv1.ContainerRuntimeConfiguration{DefaultRuntime: "crun"}, "", ""},
		{"an empty store path is refused", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("")}, ".additionalLayerStores[0].path", "invalid AdditionalLayerStores: path must not be empty"},
		{"a relative store path is refused", &mcfgv1.ContainerRuntimeConfiguration{AdditionalImageStores: imageStores("var/lib/store")}, ".additionalImageStores[0].path",
			`invalid AdditionalImageStores path "var/lib/store": must be an absolute path containing only alphanumeric characters, '/', '.', '_', and '-'`},
		{"a store path with a space is refused", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz store")}, ".additionalLayerStores[0].path", "must be an absolute path"},
		{"a store path with :ref is refused", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz-store:ref")}, ".additionalLayerStores[0].path", "must be an absolute path"},
		{"a store path with // is refused", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var//lib/store")}, ".additionalLayerStores[0].path",
			`invalid AdditionalLayerStores path "/var//lib/store": must not contain consecutive forward slashes`},
		{"a store path of 257 characters is refused (API)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalArtifactStores: artifactStores(long)}, ".additionalArtifactStores[0].path", "Too long: may not be more than 256 bytes"},
		{"six layer stores are refused (API)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/a", "/b", "/c", "/d", "/e", "/f")}, ".additionalLayerStores", "Too many: 6: must have at most 5 items"},
		{"eleven image stores are refused (API)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalImageStores: imageStores("/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h", "/i", "/j", "/k")}, ".additionalImageStores", "Too many: 11: must have at most 10 items"},
		{"a duplicate path is refused (API)", &mcfgv1.ContainerRuntimeConfiguration{AdditionalImageStores: imageStores("/mnt/a", "/mnt/a")}, ".additionalImageStores[1].path", "additionalImageStores must not contain duplicate paths"},
		{"the API's accepted layer stores", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/var/lib/stargz-store", "/mnt/nydus-store", "/opt/layer_store-v1.0")}, "", ""},
		{"the same path in two lists is accepted", &mcfgv1.ContainerRuntimeConfiguration{AdditionalLayerStores: layerStores("/mnt/a"), AdditionalImageStores: imageStores("/mnt/a")}, "", ""},
		{"nothing set is accepted", &mcfgv1.ContainerRuntimeConfiguration{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := containerruntime.Problems(crcWith(tc.spec))
			if tc.field == "" {
				if len(ps) != 0 {
					t.Fatalf("refused: %v", ps)
				}
				return
			}
			if len(ps) != 1 {
				t.Fatalf("%d problems, want 1: %v", len(ps), ps)
			}
			if want := "spec.containerRuntimeConfig" + tc.field; ps[0].At.Field != want {
				t.Errorf("field %q, want %q", ps[0].At.Field, want)
			}
			if got := ps[0].Message + "; " + ps[0].Fix; !strings.Contains(got, tc.msg) {
				t.Errorf("problem %q, want it to say %q", got, tc.msg)
			}
			if ps[0].At.Object.String() != `ContainerRuntimeConfig "c"` {
				t.Errorf("object %s", ps[0].At.Object)
			}
		})
	}
}

// MCO reports the first scalar problem only; every problem is reported, and the status message joins them.
func TestEveryProblemIsReported(t *testing.T) {
	crc := crcWith(&mcfgv1.ContainerRuntimeConfiguration{PidsLimit: ptr.To[int64](5), LogLevel: "loud",
		AdditionalLayerStores: layerStores("relative/layer"), AdditionalArtifactStores: layers2artifacts("")})
	crc.Spec.MachineConfigPoolSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}
	ps := containerruntime.Problems(crc)
	if len(ps) != 5 {
		t.Fatalf("%d problems, want 5: %v", len(ps), ps)
	}
	want := "Error: invalid label selector: \"Bogus\" is not a valid label selector operator\ninvalid PidsLimit 5\n" +
		"invalid LogLevel \"loud\", must be one of error, fatal, panic, warn, info, debug, or trace\n" +
		"invalid AdditionalLayerStores path \"relative/layer\": must be an absolute path containing only alphanumeric characters, '/', '.', '_', and '-'\n" +
		"invalid AdditionalArtifactStores: path must not be empty"
	if got := containerruntime.StatusMessage(ps); got != want {
		t.Errorf("status message\n%s\nwant\n%s", got, want)
	}
}

// A ContainerRuntimeConfig without spec.containerRuntimeConfig, which the API refuses and MCO panics on, is a
// problem.
func TestMissingSpecIsAProblem(t *testing.T) {
	ps := containerruntime.Problems(crcWith(nil))
	if len(ps) != 1 || ps[0].At.Field != "spec.containerRuntimeConfig" || ps[0].Message != "Required value" {
		t.Fatalf("problems %v", ps)
	}
	if got := containerruntime.StatusMessage(ps); got != "Error: spec.containerRuntimeConfig: Required value" {
		t.Errorf("status message %q", got)
	}
}

func layers2artifacts(paths ...string) []mcfgv1.AdditionalArtifactStore {
	return artifactStores(paths...)
}
