package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Fingerprint names the state of in as the API server versions it: two Inputs with the same fingerprint hold the
// same versions (UID and resourceVersion) of the same objects, the same unwatched kinds and the same release image
// flag, so they render the same. It is "" when an object has no resourceVersion (read from a file): such inputs
// cannot be told apart by versions.
//
//	a, b := reader.Inputs(), reader.Inputs() // nothing changed in between
//	a.Fingerprint() == b.Fingerprint()       // true, without comparing the objects
func (in *Inputs) Fingerprint() string {
	var lines []string
	for _, k := range Kinds {
		for _, o := range k.Objects(in) {
			if o.GetResourceVersion() == "" {
				return ""
			}
			lines = append(lines, fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s", k.Name, o.GetNamespace(), o.GetName(), o.GetUID(), o.GetResourceVersion()))
		}
	}
	for kind, why := range in.Unwatched {
		lines = append(lines, "unwatched\x00"+kind+"\x00"+why)
	}
	lines = append(lines, "release-image\x00"+in.ReleaseImageFlag)
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
