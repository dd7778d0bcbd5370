package imagepolicy

import (
	"fmt"

	"github.com/containers/image/v5/signature"
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// requirement builds the sigstoreSigned requirement of one policy (docs/semantics.md §9.3) with
// containers/image's constructors. at names spec.policy of the object. Every field the policy type needs is
// checked first, so that a policy written around the CRD's validation gives precise problems instead of a
// panic (docs/semantics.md §9.9 D8); what the constructors still reject comes back as a problem carrying their message.
func requirement(p *configv1.ImageSigstoreVerificationPolicy, at inputs.FieldRef) (signature.PolicyRequirement, []inputs.Problem) {
	b := &problems{}
	identity := signedIdentity(p.SignedIdentity, at.Child(".signedIdentity"), b)
	opts := rootOfTrust(&p.RootOfTrust, at.Child(".rootOfTrust"), b)
	if len(b.list) > 0 {
		return nil, b.list
	}
	req, err := signature.NewPRSigstoreSigned(append(opts, signature.PRSigstoreSignedWithSignedIdentity(identity))...)
	if err != nil {
		b.add(at.Child(".rootOfTrust"), string(p.RootOfTrust.PolicyType), "containers/image refuses the requirement: %v", err)
		return nil, b.list
	}
	return req, nil
}

// rootOfTrust returns the options naming the keys or certificates signatures must verify with.
func rootOfTrust(r *configv1.PolicyRootOfTrust, at inputs.FieldRef, b *problems) []signature.PRSigstoreSignedOption {
	switch r.PolicyType {
	case configv1.PublicKeyRootOfTrust:
		k := r.PublicKey
		if k == nil {
			b.required(at.Child(".publicKey"), r.PolicyType)
			return nil
		}
		if len(k.KeyData) == 0 {
			b.required(at.Child(".publicKey.keyData"), r.PolicyType)
			return nil
		}
		opts := []signature.PRSigstoreSignedOption{signature.PRSigstoreSignedWithKeyData(k.KeyData)}
		if len(k.RekorKeyData) > 0 {
			opts = append(opts, signature.PRSigstoreSignedWithRekorPublicKeyData(k.RekorKeyData))
		}
		return opts
	case configv1.FulcioCAWithRekorRootOfTrust:
		return fulcio(r, at.Child(".fulcioCAWithRekor"), b)
	case configv1.PKIRootOfTrust:
		return pki(r, at.Child(".pki"), b)
	default:
		b.add(at.Child(".policyType"), string(r.PolicyType), "unknown policy type; use PublicKey, FulcioCAWithRekor or PKI")
		return nil
	}
}

func fulcio(r *configv1.PolicyRootOfTrust, at inputs.FieldRef, b *problems) []signature.PRSigstoreSignedOption {
	f := r.FulcioCAWithRekor
	if f == nil {
		b.required(at, r.PolicyType)
		return nil
	}
	n := len(b.list)
	if len(f.FulcioCAData) == 0 {
		b.required(at.Child(".fulcioCAData"), r.PolicyType)
	}
	if len(f.RekorKeyData) == 0 {
		b.required(at.Child(".rekorKeyData"), r.PolicyType)
	}
	if f.FulcioSubject.OIDCIssuer == "" {
		b.required(at.Child(".fulcioSubject.oidcIssuer"), r.PolicyType)
	}
	if f.FulcioSubject.SignedEmail == "" {
		b.required(at.Child(".fulcioSubject.signedEmail"), r.PolicyType)
	}
	if len(b.list) > n {
		return nil
	}
	ca, err := signature.NewPRSigstoreSignedFulcio(
		signature.PRSigstoreSignedFulcioWithCAData(f.FulcioCAData),
		signature.PRSigstoreSignedFulcioWithOIDCIssuer(f.FulcioSubject.OIDCIssuer),
		signature.PRSigstoreSignedFulcioWithSubjectEmail(f.FulcioSubject.SignedEmail))
	if err != nil {
		b.add(at, "", "containers/image refuses it: %v", err)
		return nil
	}
	return []signature.PRSigstoreSignedOption{
		signature.PRSigstoreSignedWithFulcio(ca),
		signature.PRSigstoreSignedWithRekorPublicKeyData(f.RekorKeyData),
	}
}

func pki(r *configv1.PolicyRootOfTrust, at inputs.FieldRef, b *problems) []signature.PRSigstoreSignedOption {
	p := r.PKI
	if p == nil {
		b.required(at, r.PolicyType)
		return nil
	}
	n := len(b.list)
	if len(p.CertificateAuthorityRootsData) == 0 {
		b.required(at.Child(".caRootsData"), r.PolicyType)
	}
	subject := p.PKICertificateSubject
	if subject.Email == "" && subject.Hostname == "" {
		b.add(at.Child(".pkiCertificateSubject"), "", "one of email and hostname is required")
	}
	if len(b.list) > n {
		return nil
	}
	opts := []signature.PRSigstoreSignedPKIOption{signature.PRSigstoreSignedPKIWithCARootsData(p.CertificateAuthorityRootsData)}
	if len(p.CertificateAuthorityIntermediatesData) > 0 {
		opts = append(opts, signature.PRSigstoreSignedPKIWithCAIntermediatesData(p.CertificateAuthorityIntermediatesData))
	}
	if subject.Email != "" {
		opts = append(opts, signature.PRSigstoreSignedPKIWithSubjectEmail(subject.Email))
	}
	if subject.Hostname != "" {
		opts = append(opts, signature.PRSigstoreSignedPKIWithSubjectHostname(subject.Hostname))
	}
	ca, err := signature.NewPRSigstoreSignedPKI(opts...)
	if err != nil {
		b.add(at, "", "containers/image refuses it: %v", err)
		return nil
	}
	return []signature.PRSigstoreSignedOption{signature.PRSigstoreSignedWithPKI(ca)}
}

// signedIdentity returns how the identity in a signature must relate to the pulled reference; absent means
// matchRepoDigestOrExact.
func signedIdentity(id *configv1.PolicyIdentity, at inputs.FieldRef, b *problems) signature.PolicyReferenceMatch {
	if id == nil {
		return signature.NewPRMMatchRepoDigestOrExact()
	}
	switch id.MatchPolicy {
	case configv1.IdentityMatchPolicyMatchRepoDigestOrExact:
		return signature.NewPRMMatchRepoDigestOrExact()
	case configv1.IdentityMatchPolicyMatchRepository:
		return signature.NewPRMMatchRepository()
	case configv1.IdentityMatchPolicyExactRepository:
		e := id.PolicyMatchExactRepository
		if e == nil {
			b.add(at.Child(".exactRepository"), "", "required when matchPolicy is ExactRepository")
			return nil
		}
		prm, err := signature.NewPRMExactRepository(string(e.Repository))
		if err != nil {
			b.add(at.Child(".exactRepository.repository"), string(e.Repository), "not a repository: %v", err)
		}
		return prm
	case configv1.IdentityMatchPolicyRemapIdentity:
		r := id.PolicyMatchRemapIdentity
		if r == nil {
			b.add(at.Child(".remapIdentity"), "", "required when matchPolicy is RemapIdentity")
			return nil
		}
		prm, err := signature.NewPRMRemapIdentity(string(r.Prefix), string(r.SignedPrefix))
		if err != nil {
			b.add(at.Child(".remapIdentity"), string(r.Prefix)+" -> "+string(r.SignedPrefix), "not a valid prefix pair: %v", err)
		}
		return prm
	default:
		b.add(at.Child(".matchPolicy"), string(id.MatchPolicy), "unknown match policy; use MatchRepoDigestOrExact, MatchRepository, ExactRepository or RemapIdentity")
		return nil
	}
}

// problems collects the problems of one object.
type problems struct{ list []inputs.Problem }

func (b *problems) add(at inputs.FieldRef, value, format string, args ...any) {
	b.list = append(b.list, inputs.Problem{At: at, Value: value, Message: fmt.Sprintf(format, args...)})
}

func (b *problems) required(at inputs.FieldRef, t configv1.PolicyType) {
	b.add(at, "", "required when policyType is %s", t)
}
