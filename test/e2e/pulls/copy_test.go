package pulls

import (
	"context"
	"testing"
	"time"

	"github.com/containers/image/v5/copy"
	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/transports"
	"github.com/containers/image/v5/types"
)

// acceptAnything is the signature policy of pushes.
func acceptAnything(t *testing.T) *signature.PolicyContext {
	t.Helper()
	pc, err := signature.NewPolicyContext(&signature.Policy{Default: signature.PolicyRequirements{signature.NewPRInsecureAcceptAnything()}})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// dockerRef parses a docker transport reference ("//host/repo:tag").
func dockerRef(t *testing.T, s string) types.ImageReference {
	t.Helper()
	ref, err := docker.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// copyAccepting copies src to dst with containers/image's copy package under a policy that accepts anything, and
// returns the manifest written.
func copyAccepting(t *testing.T, src, dst types.ImageReference, opts *copy.Options) []byte {
	t.Helper()
	pc := acceptAnything(t)
	defer pc.Destroy()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := copy.Image(ctx, pc, dst, src, opts)
	if err != nil {
		t.Fatalf("copying %s to %s: %v", transports.ImageName(src), transports.ImageName(dst), err)
	}
	return m
}
