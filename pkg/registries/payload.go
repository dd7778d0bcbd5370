package registries

import (
	"github.com/openshift/registries-controller/pkg/inputs"

	"fmt"

	"github.com/containers/image/v5/docker/reference"
	"github.com/opencontainers/go-digest"

	"github.com/openshift/registries-controller/pkg/registriesconf"
)

// blockingPlan is the outcome of the release payload rule (docs/semantics.md §4): which blocked scopes apply,
// and whether policy.json must accept the payload repository.
type blockingPlan struct {
	blocked []scopeItem
	// payloadRepository is added to policy.json's allowed scopes when the payload's registry is blocked
	// but a mirror serves it; "" otherwise.
	payloadRepository string
	warnings          []inputs.Problem
	// checked is the registries.conf the check rendered, when it is also the one to write (every
	// blocked scope kept); nil otherwise.
	checked *rendered
}

// placeholderDigest stands in for the payload digest when the release image is given by tag: the rule is
// about digest pulls, and only the digest form selects digest-only mirrors.
const placeholderDigest = digest.Digest("sha256:0000000000000000000000000000000000000000000000000000000000000000")

// planBlocking applies the release payload rule: a blocked scope covering the payload repository applies
// only if a digest pull of the payload still has an unblocked mirror; otherwise it is left out and
// reported. Unlike MCO, a check that cannot run is an error, never a silent drop of every
// blocked and allowed registry. With no release image known, no blocked scope applies (fail closed:
// blocking could make the cluster unable to pull its own payload).
func planBlocking(in *inputs.Inputs, digestSets, tagSets []*mirrorSet, insecure, blocked []scopeItem) (*blockingPlan, error) {
	if len(blocked) == 0 {
		return &blockingPlan{}, nil
	}
	releaseImage, at := in.ReleaseImage()
	if releaseImage == "" {
		plan := &blockingPlan{}
		for _, b := range blocked {
			plan.warnings = append(plan.warnings, inputs.Problem{At: b.origin, Value: string(b.scope),
				Message: "not applied: the release payload is unknown (no ClusterVersion status.desired.image), so it cannot be checked that blocking leaves the payload pullable",
				Fix:     "this resolves itself once ClusterVersion \"version\" reports its desired release image"})
		}
		return plan, nil
	}
	ref, err := registriesconf.ParseReference(releaseImage)
	if err != nil {
		return nil, &inputs.InvalidError{Problems: []inputs.Problem{{At: at, Value: releaseImage,
			Message: "the release image is not a valid image reference, so blocked registries cannot be checked against it",
			Fix:     "set a reference such as quay.io/openshift-release-dev/ocp-release@sha256:<digest>"}}}
	}
	repo := Scope(ref.Name())
	var covering []scopeItem
	for _, b := range blocked {
		if b.scope.Contains(repo) {
			covering = append(covering, b)
		}
	}
	if len(covering) == 0 {
		return &blockingPlan{blocked: blocked}, nil
	}
	checked, mirrored, err := payloadHasUnblockedMirror(ref, at, digestSets, tagSets, insecure, blocked)
	if err != nil {
		return nil, err
	}
	if mirrored {
		return &blockingPlan{blocked: blocked, payloadRepository: string(repo), checked: checked}, nil
	}
	plan := &blockingPlan{}
	for _, b := range blocked {
		if b.scope.Contains(repo) {
			plan.warnings = append(plan.warnings, inputs.Problem{At: b.origin, Value: string(b.scope),
				Message: fmt.Sprintf("not applied: it would block the release payload %s, which has no unblocked mirror", releaseImage),
				Fix:     fmt.Sprintf("mirror %s with an ImageDigestMirrorSet to a registry that is not blocked, or block a narrower scope", repo)})
			continue
		}
		plan.blocked = append(plan.blocked, b)
	}
	return plan, nil
}

// payloadHasUnblockedMirror renders the configuration with every blocked scope and asks, in memory and with
// containers/image's own matching, where a digest pull of the payload goes: true when some mirror attempt is
// not refused as blocked. It returns what it rendered, so that the merge need not render it again.
func payloadHasUnblockedMirror(ref reference.Named, at inputs.FieldRef, digestSets, tagSets []*mirrorSet, insecure, blocked []scopeItem) (*rendered, bool, error) {
	r, err := renderRegistries(digestSets, tagSets, insecure, blocked)
	if err != nil {
		return nil, false, err
	}
	digested, ok := ref.(reference.Canonical)
	if !ok {
		if digested, err = reference.WithDigest(reference.TrimNamed(ref), placeholderDigest); err != nil {
			return nil, false, fmt.Errorf("checking the release payload against blocked registries: %w", err)
		}
	}
	loaded, err := r.model()
	if err != nil {
		return nil, false, err
	}
	pull, err := loaded.PullSources(digested)
	if err != nil {
		// containers/image cannot even list where the pull would go (a mirror it cannot rewrite the
		// payload's name to): the payload would not be pullable, whatever is blocked.
		return nil, false, &inputs.InvalidError{Problems: []inputs.Problem{{At: at, Value: ref.String(),
			Message: fmt.Sprintf("a digest pull of the release payload fails with this mirror configuration: %v", err),
			Fix:     "check the mirrors configured for the payload's repository"}}}
	}
	for _, s := range pull.Sources {
		if !s.Primary && !s.Blocked {
			return r, true, nil
		}
	}
	return r, false, nil
}
