package crdvalidation

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// row is one case of a table: a manifest, and what the API server says about its create, written by hand from
// the CRD.
type row struct {
	// Row names the case as a sentence.
	Row string `json:"row"`
	// Refused is whether the API server refuses the create (strict field validation: unknown fields count).
	Refused bool `json:"refused"`
	// Fields are the field paths the API server names, sorted; "-" is a rule of the whole object.
	Fields []string `json:"fields"`
	// Object is the manifest, as an admin writes it (YAML 1.1 surprises included).
	Object string `json:"object"`
}

// Every row of every table: the real API server's dry run and the offline validation give the same verdict, the
// same field paths and the same messages, and the field paths are those the table expects.
func TestOfflineValidationJudgesEveryTableRowAsTheAPIServer(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tables in testdata: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var r row
			if err := yaml.UnmarshalStrict(doc, &r); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if r.Row == "" || r.Object == "" {
				t.Fatalf("%s: a row without a name or an object:\n%s", file, doc)
			}
			t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml")+"/"+r.Row, func(t *testing.T) {
				server := dryRun(t, decode(t, []byte(r.Object)))
				off := offline(t, decode(t, []byte(r.Object)))
				compare(t, server, off)
				if server.refused() != r.Refused {
					t.Errorf("the API server refused: %v, the table says %v\n%s", server.refused(), r.Refused, server)
				}
				want := slices.Clone(r.Fields)
				slices.Sort(want)
				if got := server.fields(); !slices.Equal(got, want) {
					t.Errorf("the API server names fields %q, the table %q\n%s", got, want, server)
				}
			})
		}
	}
}
