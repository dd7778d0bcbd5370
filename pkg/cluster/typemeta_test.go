package cluster

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/openshift/registries-controller/test/fixtures"
)

// interpretCases are documents typeMeta must read as SimpleMetaFactory does; they are the fuzz target's seeds too.
var interpretCases = []string{
	`{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig"}`,
	`{"kind":"MachineConfig","apiVersion":"machineconfiguration.openshift.io/v1"}`,
	`{"metadata":{"name":"a","kind":"Nested"},"kind":"MachineConfig","spec":{"config":{"kind":"x","apiVersion":"y/v9"}},"apiVersion":"v1"}`,
	`{"apiVersion":"v\u0031","kind":"Machine\"Config\\"}`,
	`{"apiVersion":"g.io/v1","kind":"K\u00e9\ud83d\ude00"}`,
	"\t\r\n {  \"kind\"  :\n\"A\" ,\t\"apiVersion\" : \"a/v1\" } \n",
	`{"items":[{"kind":"Item"},[1,2,{"a":"]}"}],"\"{["],"kind":"List","apiVersion":"v1"}`,
	`{"a":1,"b":-2.5e+10,"c":true,"d":false,"e":null,"kind":"Numbers","f":0}`,
	`{"kind":"Z"}`,
	`{"apiVersion":"apps/v1"}`,
	`{}`,
	` { } `,
	`null`,
	` null `,
	`{"type":"MODIFIED","object":{"kind":"X","apiVersion":"x/v1"}}`,
	`{"kind":"first","kind":"last"}`,
	`{"kind":"first","Kind":"last"}`,
	`{"kind":"set","kind":null}`,
	`{"KIND":"upper","APIVERSION":"g/v2"}`,
	`{"ki\u006ed":"escaped name","\u0061piVersion":"v1"}`,
	"{\"\u212aind\":\"kelvin sign\"}",
	`{"kind":"a\\\\","x":"\\\"kind\\\":\\\"no\\\""}`,
	`{"kind":"bad\u0000nul"}`,
	"{\"kind\":\"invalid \xff utf-8\",\"k\xffind\":\"x\"}",
	`{"kind":5}`,
	`{"kind":true}`,
	`{"kind":{"a":"b"}}`,
	`{"apiVersion":["v1"]}`,
	`{"apiVersion":"a/b/c","kind":"TooManySlashes"}`,
	`{"apiVersion":"/v1"}`,
	`[{"kind":"A"}]`,
	`"kind"`,
	`5`,
	`true`,
}

func TestInterpretReadsWhatSimpleMetaFactoryReads(t *testing.T) {
	for _, doc := range interpretCases {
		if !json.Valid([]byte(doc)) {
			t.Fatalf("case %q is not valid JSON", doc)
		}
		t.Run(doc, func(t *testing.T) { sameAsSimpleMetaFactory(t, []byte(doc)) })
	}
}

func sameAsSimpleMetaFactory(t *testing.T, doc []byte) {
	t.Helper()
	want, wantErr := kjson.SimpleMetaFactory{}.Interpret(doc)
	got, err := typeMeta{}.Interpret(doc)
	if (err != nil) != (wantErr != nil) || (err == nil && *got != *want) {
		t.Fatalf("Interpret(%q) = %v, %v; SimpleMetaFactory reads %v, %v", doc, got, err, want, wantErr)
	}
}

func TestInterpretFailsOnInvalidJSONWithoutHanging(t *testing.T) {
	for _, doc := range []string{``, ` `, `{`, `{"kind"`, `{"kind":`, `{"kind":"A"`, `{"kind":"A",`, `{"kind":"A"]`,
		`{"kind":"unterminated}`, `{"x":{"kind":"A"}`, `{"x":[1,2}`, `{kind:"A"}`, `{"kind" "A"}`, `{"kind":,}`,
		`{"kind":"\x"}`, `{"kind":nul}`, `nul`, `null x`, `{"a":"b"}}`} {
		if gvk, err := (typeMeta{}).Interpret([]byte(doc)); err == nil {
			t.Errorf("Interpret(%q) = %v, want an error", doc, gvk)
		}
	}
}

// FuzzInterpret checks that typeMeta reads every valid JSON document as SimpleMetaFactory does (invalid ones must
// only not panic or hang).
func FuzzInterpret(f *testing.F) {
	for _, doc := range interpretCases {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got, err := typeMeta{}.Interpret(doc)
		if !json.Valid(doc) {
			return
		}
		want, wantErr := kjson.SimpleMetaFactory{}.Interpret(doc)
		if (err != nil) != (wantErr != nil) || (err == nil && *got != *want) {
			t.Fatalf("Interpret(%q) = %v, %v; SimpleMetaFactory reads %v, %v", doc, got, err, want, wantErr)
		}
	})
}

// largeMachineConfig returns the JSON of a MachineConfig writing a file of 1 MB of random registries.conf-like
// text (a data URL of about 1.4 MB) and its watch event, as the API server sends them.
func largeMachineConfig(t testing.TB) (object, event []byte) {
	t.Helper()
	var b strings.Builder
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "[[registry]]\nlocation = \"r%d.example.com/team-%x\"\n[[registry.mirror]]\nlocation = \"m.example.com/%x\"\n", i, rng.Uint64(), rng.Uint64())
	}
	mc := fixtures.MachineConfig("99-worker-registries", "worker", fixtures.File("/etc/containers/registries.conf", b.String()))
	mc.TypeMeta = metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfig"}
	object, err := json.Marshal(mc)
	if err != nil {
		t.Fatal(err)
	}
	event, err = json.Marshal(metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: object}})
	if err != nil {
		t.Fatal(err)
	}
	return object, event
}

func TestInterpretReadsALargeMachineConfigAndItsWatchEvent(t *testing.T) {
	object, event := largeMachineConfig(t)
	if len(object) < 1<<20 {
		t.Fatalf("the MachineConfig is %d bytes", len(object))
	}
	sameAsSimpleMetaFactory(t, object)
	sameAsSimpleMetaFactory(t, event)
	if gvk, _ := (typeMeta{}).Interpret(object); *gvk != (schema.GroupVersionKind{Group: "machineconfiguration.openshift.io", Version: "v1", Kind: "MachineConfig"}) {
		t.Errorf("read %v", gvk)
	}
}

// BenchmarkInterpret compares typeMeta with SimpleMetaFactory on a 1.4 MB MachineConfig and on its watch event.
//
//	go test -tags=containers_image_openpgp -run '^$' -bench BenchmarkInterpret -count 6 ./pkg/cluster/
func BenchmarkInterpret(b *testing.B) {
	object, event := largeMachineConfig(b)
	for _, doc := range []struct {
		name string
		data []byte
	}{{"MachineConfig", object}, {"WatchEvent", event}} {
		for _, mf := range []struct {
			name string
			mf   kjson.MetaFactory
		}{{"typeMeta", typeMeta{}}, {"SimpleMetaFactory", kjson.SimpleMetaFactory{}}} {
			b.Run(doc.name+"/"+mf.name, func(b *testing.B) {
				b.SetBytes(int64(len(doc.data)))
				for b.Loop() {
					if _, err := mf.mf.Interpret(doc.data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
