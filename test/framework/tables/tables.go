// Package tables reads the hand-written, whitespace-separated tables tests check functions against, e.g.
// pkg/credentialprovider/testdata/matchimage.txt. It is a package of its own, with only the standard library, so
// that the module test/kubeletcreds, which reads the same tables, imports it without the dependencies of
// test/framework.
package tables

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Read returns the rows of the table in the file path, each split into its whitespace-separated fields, without
// blank lines and comment lines (starting with "#"). fields is the number of fields every row has; 0 means at
// least two. A row with another number of fields, an unreadable file or a table without rows fails the test.
func Read(t testing.TB, path string, fields int) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(string(data), "\n") {
		row := strings.Fields(line)
		if len(row) == 0 || strings.HasPrefix(row[0], "#") {
			continue
		}
		if fields == 0 && len(row) < 2 || fields > 0 && len(row) != fields {
			want := "at least 2"
			if fields > 0 {
				want = strconv.Itoa(fields)
			}
			t.Fatalf("%s: %q: %d fields, want %s", path, line, len(row), want)
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}
