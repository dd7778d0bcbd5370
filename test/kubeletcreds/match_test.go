package kubeletcreds

import (
	"testing"

	kubeletcredentialprovider "k8s.io/kubernetes/pkg/credentialprovider"
	"k8s.io/kubernetes/pkg/util/parsers"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
	"github.com/openshift/registries-controller/test/framework/tables"
)

// The hand-written tables pkg/credentialprovider checks its functions against.
const (
	matchImageTable = "../../pkg/credentialprovider/testdata/matchimage.txt"
	lookupNameTable = "../../pkg/credentialprovider/testdata/lookupname.txt"
)

// kubeletMatches is the kubelet's decision for a matchImages entry and an image (pluginProvider.isImageAllowed
// ignores the error: no match).
func kubeletMatches(pattern, image string) bool {
	matched, err := kubeletcredentialprovider.URLsMatchStr(pattern, image)
	return err == nil && matched
}

// TestMatchImageTable: the kubelet's own URLsMatchStr gives the hand-written answers of the table
// pkg/credentialprovider checks MatchImage against, and MatchImage agrees.
func TestMatchImageTable(t *testing.T) {
	for _, row := range tables.Read(t, matchImageTable, 3) {
		want := row[2] == "true"
		if got := kubeletMatches(row[0], row[1]); got != want {
			t.Errorf("kubelet: URLsMatchStr(%q, %q) = %v, the table says %v", row[0], row[1], got, want)
		}
		if got := credentialprovider.MatchImage(row[0], row[1]); got != want {
			t.Errorf("MatchImage(%q, %q) = %v, the table says %v", row[0], row[1], got, want)
		}
	}
}

// FuzzMatchImageAgreesWithKubelet: MatchImage and the kubelet decide alike for any pattern and image.
func FuzzMatchImageAgreesWithKubelet(f *testing.F) {
	for _, row := range tables.Read(f, matchImageTable, 3) {
		f.Add(row[0], row[1])
	}
	f.Add("*", "quay.io/app")
	f.Add("[::1]:5000", "[::1]:5000/app")
	f.Add("a.io:", "a.io:/app")
	f.Add("a.io#x", "a.io/app")
	f.Fuzz(func(t *testing.T, pattern, image string) {
		if got, want := credentialprovider.MatchImage(pattern, image), kubeletMatches(pattern, image); got != want {
			t.Errorf("MatchImage(%q, %q) = %v, the kubelet says %v", pattern, image, got, want)
		}
	})
}

// TestLookupNameTable: the kubelet's own ParseImageName gives the hand-written names of the table
// pkg/credentialprovider checks LookupName against, and LookupName agrees.
func TestLookupNameTable(t *testing.T) {
	for _, row := range tables.Read(t, lookupNameTable, 2) {
		repo, _, _, err := parsers.ParseImageName(row[0])
		if err != nil || repo != row[1] {
			t.Errorf("kubelet: ParseImageName(%q) = %q, %v; the table says %q", row[0], repo, err, row[1])
		}
		if got, err := credentialprovider.LookupName(row[0]); err != nil || got != row[1] {
			t.Errorf("LookupName(%q) = %q, %v; the table says %q", row[0], got, err, row[1])
		}
	}
}

// FuzzLookupNameAgreesWithKubelet: LookupName refuses what the kubelet refuses and names the rest alike.
func FuzzLookupNameAgreesWithKubelet(f *testing.F) {
	for _, row := range tables.Read(f, lookupNameTable, 2) {
		f.Add(row[0])
	}
	for _, s := range []string{"", "UPPER/app", "quay.io/app:tag:tag", "https://quay.io/app", "a/b/c/d:e@sha256:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, image string) {
		repo, _, _, kerr := parsers.ParseImageName(image)
		got, err := credentialprovider.LookupName(image)
		if (err == nil) != (kerr == nil) || err == nil && got != repo {
			t.Errorf("LookupName(%q) = %q, %v; the kubelet: %q, %v", image, got, err, repo, kerr)
		}
	})
}
