package verify

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/openshift/registries-controller/pkg/registryprobe"
)

func probeAnswer(a registryprobe.Answer, detail string) *registryprobe.Result {
	return &registryprobe.Result{Answer: a, Detail: detail}
}

const idms = `ImageDigestMirrorSet "release" spec.imageDigestMirrors[0] (mirrorSourcePolicy NeverContactSource)`

// pullsUnderReleaseMirror are four pulls under a release mirror that blocks its source: one the mirror has, one it lacks (fails),
// a tag pull of an unblocked source whose digest-only mirror is not tried, and one a second mirror serves after the
// first refused the login.
func pullsUnderReleaseMirror() []Image {
	return []Image{
		{
			Reference: "quay.io/ocp/release@sha256:aa", Entry: "quay.io/ocp", BlockedBy: []string{idms},
			Places: []Place{
				{Reference: "m.local/ocp@sha256:aa", Location: "m.local/ocp", Result: probeAnswer(registryprobe.Has, "")},
				{Reference: "quay.io/ocp/release@sha256:aa", Location: "quay.io/ocp", Source: true, NotTried: "blocked"},
			},
		},
		{
			Reference: "quay.io/ocp/release@sha256:bb", From: []string{`release image r (image-references "cli")`}, Entry: "quay.io/ocp", BlockedBy: []string{idms},
			Places: []Place{
				{Reference: "m.local/ocp@sha256:bb", Location: "m.local/ocp", Result: probeAnswer(registryprobe.NotFound, "HTTP 404")},
				{Reference: "quay.io/ocp/release@sha256:bb", Location: "quay.io/ocp", Source: true, NotTried: "blocked"},
			},
		},
		{
			Reference: "docker.io/library/busybox:1", Entry: "docker.io/library",
			Skipped: []string{`"d.local/library" (digest-only: the reference is by tag)`},
			Places: []Place{
				{Reference: "docker.io/library/busybox:1", Location: "docker.io/library", Source: true, Result: probeAnswer(registryprobe.Has, "")},
			},
		},
		{
			Reference: "registry.example.com/team/app@sha256:cc", Entry: "registry.example.com/team",
			Places: []Place{
				{Reference: "a.local/team/app@sha256:cc", Location: "a.local/team", Result: &registryprobe.Result{Answer: registryprobe.Unauthorized, Detail: "HTTP 401"}},
				{Reference: "b.local/team/app@sha256:cc", Location: "b.local/team", Result: probeAnswer(registryprobe.Has, "")},
				{Reference: "registry.example.com/team/app@sha256:cc", Location: "registry.example.com/team", Source: true},
			},
		},
	}
}

func TestJudgeNamesTheFailingPullFirstThenWhatElseIsWorthKnowingThenTheSummary(t *testing.T) {
	r := Judge(pullsUnderReleaseMirror())
	if r.OK() {
		t.Error("OK with a failing pull")
	}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	want := `FAILS: quay.io/ocp/release@sha256:bb (release image r (image-references "cli"))
  1. mirror m.local/ocp@sha256:bb: not found (HTTP 404)
  2. source quay.io/ocp/release@sha256:bb: not tried: blocked
  the source is blocked by ` + idms + `
SERVED: docker.io/library/busybox:1
  1. source docker.io/library/busybox:1: has it
  not tried: mirror "d.local/library" (digest-only: the reference is by tag)
  served by docker.io/library/busybox:1
SERVED: registry.example.com/team/app@sha256:cc
  1. mirror a.local/team/app@sha256:cc: unauthorized (HTTP 401), without credentials
  2. mirror b.local/team/app@sha256:cc: has it
  3. source registry.example.com/team/app@sha256:cc: not asked (an earlier place has it)
  served by b.local/team/app@sha256:cc
summary: 4 images: 3 served, 0 served only by the source, 1 fail
mirrors lacking images:
  a.local/team: 1 image(s)
    registry.example.com/team/app@sha256:cc (unauthorized (HTTP 401), without credentials)
  m.local/ocp: 1 image(s)
    quay.io/ocp/release@sha256:bb
NeverContactSource entries whose mirrors lack an image (an outage waiting for its trigger):
  quay.io/ocp (` + idms + `): 1 image(s)
    quay.io/ocp/release@sha256:bb
sources a pull contacts (no mirror serves the image):
  docker.io/library: 1 image(s)
    docker.io/library/busybox:1
images no place serves: 1
  quay.io/ocp/release@sha256:bb
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestAnImageOnlyTheSourceHasIsServedOnlyByTheSourceAndCountsAsAWorkingPull(t *testing.T) {
	imgs := []Image{{
		Reference: "quay.io/x/y:1", Entry: "quay.io/x",
		Places: []Place{
			{Reference: "m.local/x/y:1", Location: "m.local/x", Result: probeAnswer(registryprobe.TimedOut, "no answer within the per-request timeout")},
			{Reference: "quay.io/x/y:1", Location: "quay.io/x", Source: true, Result: probeAnswer(registryprobe.Has, "")},
		},
	}}
	r := Judge(imgs)
	if !r.OK() || imgs[0].Verdict != SourceOnly {
		t.Fatalf("verdict %q, OK %v", imgs[0].Verdict, r.OK())
	}
	want := []string{"m.local/x/y:1: timed out (no answer within the per-request timeout)"}
	if len(imgs[0].Reasons) != 1 || imgs[0].Reasons[0] != want[0] {
		t.Errorf("reasons %q, want %q", imgs[0].Reasons, want)
	}
	if len(r.Summary.SourcesContacted) != 1 || r.Summary.SourcesContacted[0].Location != "quay.io/x" {
		t.Errorf("sources contacted %+v", r.Summary.SourcesContacted)
	}
}

func TestTheJSONReportCarriesVerdictsAndSummary(t *testing.T) {
	var out bytes.Buffer
	if err := Judge(pullsUnderReleaseMirror()).WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Images []struct {
			Verdict string `json:"verdict"`
		} `json:"images"`
		Summary struct {
			Images   map[string]int `json:"images"`
			Unserved []string       `json:"unserved"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Images[1].Verdict != "fails" || got.Summary.Images["served"] != 3 || len(got.Summary.Unserved) != 1 {
		t.Errorf("%s", out.String())
	}
}
