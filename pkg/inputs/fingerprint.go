package inputs

import (
	"crypto/sha256"
	"encoding/hex"
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
	// A sync fingerprints every object (5,000 at the scale of a disconnected cluster): one string per object and
	// one buffer hashed at once.
	var lines []string
	for _, k := range Kinds {
		objs := k.Objects(in)
		lines = slices.Grow(lines, len(objs))
		for _, o := range objs {
			if o.GetResourceVersion() == "" {
				return ""
			}
			lines = append(lines, k.Name+"\x00"+o.GetNamespace()+"\x00"+o.GetName()+"\x00"+string(o.GetUID())+"\x00"+o.GetResourceVersion())
		}
	}
	for kind, why := range in.Unwatched {
		lines = append(lines, "unwatched\x00"+kind+"\x00"+why)
	}
	lines = append(lines, "release-image\x00"+in.ReleaseImageFlag)
	slices.Sort(lines)
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	buf := make([]byte, 0, size)
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}
