// Package verify judges, from the registries' answers, whether a node's pull of each image works under one mirror
// configuration, and sums the answers up the way an admin acts on them: per mirror, the images it lacks; every
// NeverContactSource entry whose mirrors lack an image (an outage waiting for its trigger: the next upgrade or the
// next node); the sources that would be contacted; the images no place serves.
//
// It is pure: the places a pull tries come from pkg/explain (containers/image's pull sources), the answers from
// pkg/registryprobe; Judge only decides. docs/semantics.md ("Verifying pulls") says what each verdict means.
package verify

import "github.com/openshift/registries-controller/pkg/registryprobe"

// Verdict is the outcome of a node's pull of one image.
type Verdict string

const (
	// Served: the first place that has the image serves the pull, and it is a mirror, or the image's only place
	// (no mirror is configured for it).
	Served Verdict = "served"
	// SourceOnly: mirrors are configured and none has the image; the source serves it. In a cluster that must
	// not reach the source (a disconnected one), this pull fails.
	SourceOnly Verdict = "served only by the source"
	// Fails: no place the configuration allows serves the image.
	Fails Verdict = "fails"
)

// Image is one image to check and, once Judge has run, its verdict.
type Image struct {
	// Reference is the reference as pulled, normalized, e.g. "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:…".
	Reference string `json:"reference"`
	// From says why it is checked, e.g. `release image quay.io/…:4.22.0 (image-references "cli")`.
	From []string `json:"from,omitempty"`
	// Entry is the prefix of the registries.conf entry governing the reference, "" when none does.
	Entry string `json:"entry,omitempty"`
	// NeverContactSource names the objects that block the source (ImageDigestMirrorSet or ImageTagMirrorSet
	// with mirrorSourcePolicy NeverContactSource, or the Image's blockedRegistries), when it is blocked.
	BlockedBy []string `json:"blockedBy,omitempty"`
	// Places are the places the pull tries, in order; the last is the source.
	Places []Place `json:"places"`
	// Skipped are the entry's mirrors the pull does not try, with why, e.g. `"m.local" (digest-only: the
	// reference is by tag)`.
	Skipped []string `json:"skipped,omitempty"`

	// Verdict, ServedBy (the place that serves it) and Reasons (why it fails, or why only the source has it) are
	// set by Judge.
	Verdict  Verdict  `json:"verdict"`
	ServedBy string   `json:"servedBy,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
}

// Place is one place a pull tries.
type Place struct {
	// Reference is the reference rewritten for this place.
	Reference string `json:"reference"`
	// Location is the mirror or the source location as configured, e.g. "mirror.example.com/ocp".
	Location string `json:"location"`
	// Source is true for the last place, the reference's own location.
	Source bool `json:"source,omitempty"`
	// Origins name the objects behind a mirror, when known.
	Origins []string `json:"origins,omitempty"`
	// NotTried says why the pull does not contact this place, e.g. "blocked"; "" when it does.
	NotTried string `json:"notTried,omitempty"`
	// Result is the registry's answer; nil when it was not asked (NotTried, or an earlier place has the image).
	Result *registryprobe.Result `json:"result,omitempty"`
}

// Has reports whether the place was asked and has the image.
func (p *Place) Has() bool { return p.Result != nil && p.Result.Answer == registryprobe.Has }

// Judge sets each image's verdict and returns the report. images is not reordered.
func Judge(images []Image) *Report {
	r := &Report{Images: images}
	for i := range images {
		judge(&images[i])
	}
	r.Summary = summarize(images)
	return r
}

func judge(img *Image) {
	img.Reasons = nil
	mirrors := 0
	for i := range img.Places {
		p := &img.Places[i]
		if !p.Source {
			mirrors++
		}
		if p.Has() {
			img.ServedBy = p.Reference
			img.Verdict = Served
			if p.Source && mirrors > 0 {
				img.Verdict = SourceOnly
				img.Reasons = placeReasons(img.Places[:i])
			}
			return
		}
	}
	img.Verdict = Fails
	img.ServedBy = ""
	img.Reasons = placeReasons(img.Places)
}

// placeReasons says why each place did not serve the image, e.g. `mirror.example.com/ocp/release@sha256:…:
// not found (HTTP 404)`.
func placeReasons(places []Place) []string {
	var out []string
	for _, p := range places {
		out = append(out, p.Reference+": "+p.Outcome())
	}
	return out
}

// Outcome is the place's answer in words, e.g. "not found (HTTP 404)", "not tried: blocked", "not asked".
func (p *Place) Outcome() string {
	switch {
	case p.NotTried != "":
		return "not tried: " + p.NotTried
	case p.Result == nil:
		return "not asked (an earlier place has it)"
	}
	s := string(p.Result.Answer)
	if p.Result.Detail != "" {
		s += " (" + p.Result.Detail + ")"
	}
	if p.Result.Credentials != "" {
		s += ", with " + p.Result.Credentials
	} else if p.Result.Answer == registryprobe.Unauthorized || p.Result.Answer == registryprobe.Forbidden {
		s += ", without credentials"
	}
	return s
}
