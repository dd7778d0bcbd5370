package machineconfigs_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	ign3 "github.com/coreos/ignition/v2/config/v3_5"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/vincent-petithory/dataurl"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/nodefiles"
	"github.com/openshift/registries-controller/test/fixtures"
)

// ignition is the shape of the generated Ignition config, read without the code under test.
type ignition struct {
	Ignition struct{ Version string }
	Storage  struct {
		Files []struct {
			Path      string
			Overwrite *bool
			Mode      *int
			Contents  struct {
				Source      string
				Compression *string
			}
		}
	}
}

func machineConfig(raw string) *mcfgv1.MachineConfig {
	return &mcfgv1.MachineConfig{Spec: mcfgv1.MachineConfigSpec{Config: runtime.RawExtension{Raw: []byte(raw)}}}
}

func TestEncodeWritesWhatMCOWrites(t *testing.T) {
	raw, err := machineconfigs.Encode(nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"ignition":{"version":"3.5.0"}}` {
		t.Errorf("no files: %s", raw)
	}
	raw, err = machineconfigs.Encode(nodefiles.Files{{Path: "/etc/a", Data: []byte("x\n")}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ignition":{"version":"3.5.0"},"storage":{"files":[{"overwrite":true,"path":"/etc/a","contents":{"compression":"","source":"data:text/plain;charset=utf-8;base64,eAo="},"mode":420}]}}`
	if string(raw) != want {
		t.Errorf("one file:\n got %s\nwant %s", raw, want)
	}
}

func TestDecodeReadsWhatEncodeWrites(t *testing.T) {
	files := nodefiles.Files{{Path: "/etc/a", Data: []byte("x = 1\n")}, {Path: "/etc/b", Data: []byte("{}")}, {Path: "/etc/c", Data: []byte{}}}
	raw, err := machineconfigs.Encode(files)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := machineconfigs.Decode(machineConfig(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Files, files) || cfg.Version != "3.5.0" || cfg.Other || len(cfg.Attributes) != 0 || cfg.Err() != nil {
		t.Errorf("got %+v", cfg)
	}
}

// TestDataURLsAreTheLibrarysOwn checks the data URLs against vincent-petithory/dataurl's EncodeBytes, which MCO
// uses, on the kinds of contents it tells apart (text, JSON, HTML-like, binary, empty).
func TestDataURLsAreTheLibrarysOwn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := [][]byte{nil, {}, []byte("unqualified-search-registries = []\n"), []byte(`{"default": []}`), []byte("docker:\n  a: {}\n"),
		[]byte("<html><body>"), []byte("%PDF-1.4"), {0, 1, 2, 0xff}, []byte("\xef\xbb\xbfBOM text")}
	for range 200 {
		b := make([]byte, rng.IntN(700))
		for i := range b {
			b[i] = byte(rng.IntN(256))
			if rng.IntN(4) > 0 {
				b[i] = byte(' ' + rng.IntN(95))
			}
		}
		cases = append(cases, b)
	}
	for _, data := range cases {
		raw, err := machineconfigs.Encode(nodefiles.Files{{Path: "/etc/x", Data: data}})
		if err != nil {
			t.Fatal(err)
		}
		var ign ignition
		if err := json.Unmarshal(raw, &ign); err != nil {
			t.Fatal(err)
		}
		if got, want := ign.Storage.Files[0].Contents.Source, dataurl.EncodeBytes(data); got != want {
			t.Fatalf("data URL of %q:\n got %s\nwant %s", data, got, want)
		}
	}
}

func TestDecodeReadsAnyConfigAndSaysWhatItCannotRead(t *testing.T) {
	raw := `{"ignition":{"version":"3.2.0"},"storage":{"files":[` +
		`{"path":"/etc/plain","contents":{"source":"data:,hello%20world"},"mode":384},` +
		`{"path":"/etc/zipped","overwrite":true,"contents":{"compression":"gzip","source":"` + fixtures.GzipDataURL([]byte("unzipped\n")) + `"},"mode":420},` +
		`{"path":"/etc/remote","contents":{"source":"https://example.com/x"}},` +
		`{"path":"/etc/zstd","contents":{"compression":"zstd","source":"data:,x"}}` +
		`]},"systemd":{"units":[{"name":"x.service","enabled":true}]}}`
	cfg, err := machineconfigs.Decode(machineConfig(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := nodefiles.Files{{Path: "/etc/plain", Data: []byte("hello world")}, {Path: "/etc/zipped", Data: []byte("unzipped\n")}}
	if !reflect.DeepEqual(cfg.Files, want) {
		t.Errorf("files %q, want %q", cfg.Files, want)
	}
	if cfg.Version != "3.2.0" || !cfg.Other {
		t.Errorf("version %q, other %v: want 3.2.0 and the unit counted", cfg.Version, cfg.Other)
	}
	if got := cfg.Attributes["/etc/plain"]; got != "not overwrite, mode 0600" {
		t.Errorf("attributes of /etc/plain: %q", got)
	}
	if _, ok := cfg.Attributes["/etc/zipped"]; ok {
		t.Errorf("/etc/zipped has a generated file's attributes: %q", cfg.Attributes["/etc/zipped"])
	}
	if len(cfg.Errors) != 2 || !strings.Contains(cfg.Errors["/etc/remote"].Error(), "not a data URL") ||
		!strings.Contains(cfg.Errors["/etc/zstd"].Error(), `unknown compression "zstd"`) {
		t.Errorf("errors %v", cfg.Errors)
	}
	if _, err := machineconfigs.DecodeFiles(machineConfig(raw)); err == nil || !strings.Contains(err.Error(), "file /etc/remote") {
		t.Errorf("DecodeFiles: %v, want the first file that does not decode", err)
	}
	if _, err := machineconfigs.Decode(machineConfig(`"x"`)); err == nil || !strings.Contains(err.Error(), "not an Ignition config") {
		t.Errorf("a config that is not Ignition: %v", err)
	}
	if cfg, err := machineconfigs.Decode(machineConfig("")); err != nil || len(cfg.Files) != 0 {
		t.Errorf("an empty config: %+v, %v", cfg, err)
	}
}

func TestADecoderDecodesEachVersionOnce(t *testing.T) {
	dec := machineconfigs.NewDecoder(2)
	mc := machineConfig(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,one"}}]}}`)
	mc.Name, mc.UID, mc.ResourceVersion = "a", "uid-1", "1"
	first, err := dec.Decode(mc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := dec.Decode(mc.DeepCopy())
	if again != first {
		t.Errorf("the same version was decoded again")
	}
	changed := mc.DeepCopy()
	changed.ResourceVersion = "2"
	changed.Spec.Config.Raw = []byte(`{"ignition":{"version":"3.5.0"},"storage":{"files":[{"path":"/etc/a","contents":{"source":"data:,two"}}]}}`)
	if cfg, _ := dec.Decode(changed); string(cfg.Files[0].Data) != "two" {
		t.Errorf("a new version gives %q", cfg.Files[0].Data)
	}
	recreated := changed.DeepCopy()
	recreated.UID = "uid-2"
	recreated.Spec.Config.Raw = []byte(`{"ignition":{"version":"3.5.0"}}`)
	if cfg, _ := dec.Decode(recreated); len(cfg.Files) != 0 {
		t.Errorf("a recreated object with the same resourceVersion was taken from the cache")
	}
	for _, name := range []string{"b", "c"} { // more than the size: the least recently used goes
		other := mc.DeepCopy()
		other.Name = name
		if _, err := dec.Decode(other); err != nil {
			t.Fatal(err)
		}
	}
	if cfg, _ := dec.Decode(changed); cfg == nil || string(cfg.Files[0].Data) != "two" {
		t.Errorf("decoding after eviction: %+v", cfg)
	}
	var none *machineconfigs.Decoder
	if cfg, err := none.Decode(mc); err != nil || string(cfg.Files[0].Data) != "one" {
		t.Errorf("a nil Decoder: %+v, %v", cfg, err)
	}
}

func TestParsedIsWhatIgnitionParsesOutOfEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 23))
	binary := make([]byte, 4096)
	for i := range binary {
		binary[i] = byte(rng.IntN(256))
	}
	for name, files := range map[string]nodefiles.Files{
		"no files": nil,
		"one file": {{Path: "/etc/containers/registries.conf", Data: []byte("unqualified-search-registries = []\n")}},
		"several, one empty, one binary": {
			{Path: "/etc/containers/registries.conf", Data: []byte(strings.Repeat("[[registry]]\n  location = \"a.example\"\n", 500))},
			{Path: "/etc/containers/policy.json", Data: []byte(`{"default":[{"type":"insecureAcceptAnything"}]}`)},
			{Path: "/etc/containers/registries.d/empty.yaml", Data: nil},
			{Path: "/etc/pki/ca-trust/source/anchors/x.bin", Data: binary},
		},
	} {
		t.Run(name, func(t *testing.T) {
			raw, err := machineconfigs.Encode(files)
			if err != nil {
				t.Fatal(err)
			}
			parsed, _, err := ign3.ParseCompatibleVersion(raw)
			if err != nil {
				t.Fatalf("Ignition refuses Encode's config: %v", err)
			}
			if built := machineconfigs.Parsed(files); !reflect.DeepEqual(*built, parsed) {
				b, _ := json.Marshal(built)
				p, _ := json.Marshal(parsed)
				t.Errorf("Parsed differs from Ignition's parse of Encode:\nbuilt  %.400s\nparsed %.400s", b, p)
			}
		})
	}
}
