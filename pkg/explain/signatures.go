package explain

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Signatures says what a pull must prove about signatures (docs/semantics.md §9): the policy file that
// applies, the requirement it sets for the reference, and, for every place the pull tries, whether
// containers/image looks for sigstore signatures there.
type Signatures struct {
	// PolicyFile is the node file that decides: /etc/containers/policy.json, or /etc/crio/policies/<ns>.json
	// for the pods of a namespace that has one.
	PolicyFile string
	// Scope is the policy scope that matches the reference, e.g. "quay.io/myorg"; "" when the file's default
	// applies.
	Scope string
	// Requirements describe the requirements of that scope (or of the default), one per line, e.g.
	// "sigstoreSigned: public key sha256:3f1c…, signed identity matchRepoDigestOrExact".
	Requirements []string
	// Origins name the policy objects and fields behind the scope (only with Provenance).
	Origins []string
	// Locations say, per attempt of the pull in order, whether signatures are read from sigstore attachments.
	Locations []SignatureLocation
}

// SignatureLocation is one place where the pull reads the image and so its signatures.
type SignatureLocation struct {
	// Reference is the attempt's reference, e.g. "mirror.local/myorg/app@sha256:…".
	Reference string
	// Attachments is true when sigstore attachments are read there.
	Attachments bool
	// Key is the registries.d key that decided, e.g. "mirror.local/myorg"; "" when none matched (off).
	Key string
}

// ExplainSignatures fills e.Signatures from a node's files: the policy of namespace ns (the cluster's when
// ns is "" or the namespace has no file of its own, as CRI-O does) and the registries.d files, with the node's
// base ones. The scope is looked up as containers/image's policy evaluation does, by the docker transport's
// policy identity and namespaces of the reference.
func ExplainSignatures(e *Explanation, files nodefiles.Files, ns string, prov *Provenance) error {
	s := &Signatures{PolicyFile: nodefiles.PolicyJSON}
	if _, ok := files.Get(nodefiles.NamespacePolicy(ns)); ns != "" && ok {
		s.PolicyFile = nodefiles.NamespacePolicy(ns)
	}
	policy, err := signature.NewPolicyFromBytes(files.Content(s.PolicyFile))
	if err != nil {
		return fmt.Errorf("%s: %w", s.PolicyFile, err)
	}
	ref, err := dockerRef(e.Reference)
	if err != nil {
		return err
	}
	reqs := policy.Default
	if scope, ok := matchScope(policy.Transports["docker"], ref); ok {
		s.Scope, reqs = scope, policy.Transports["docker"][scope]
		if prov != nil {
			s.Origins = prov.policyOrigins(scope, ns)
		}
	}
	for _, r := range reqs {
		s.Requirements = append(s.Requirements, describeRequirement(r))
	}
	keys, err := registriesDKeys(files)
	if err != nil {
		return err
	}
	for _, a := range e.Attempts {
		loc := SignatureLocation{Reference: a.Reference}
		if r, err := dockerRef(a.Reference); err == nil {
			loc.Key, loc.Attachments = matchAttachments(keys, r)
		}
		s.Locations = append(s.Locations, loc)
	}
	e.Signatures = s
	return nil
}

func dockerRef(s string) (types.ImageReference, error) {
	named, err := reference.ParseNormalizedNamed(s)
	if err != nil {
		return nil, err
	}
	return docker.NewReference(named)
}

// matchScope returns the scope of policy.json that applies to ref: its identity, else the first of its
// namespaces (most specific first), else "".
func matchScope(scopes signature.PolicyTransportScopes, ref types.ImageReference) (string, bool) {
	for _, s := range append([]string{ref.PolicyConfigurationIdentity()}, append(ref.PolicyConfigurationNamespaces(), "")...) {
		if _, ok := scopes[s]; ok {
			return s, true
		}
	}
	return "", false
}

// matchAttachments looks ref up in the registries.d keys as the docker transport does: its identity, then its
// namespaces; the first key found decides.
func matchAttachments(keys map[string]bool, ref types.ImageReference) (string, bool) {
	for _, k := range append([]string{ref.PolicyConfigurationIdentity()}, ref.PolicyConfigurationNamespaces()...) {
		if on, ok := keys[k]; ok {
			return k, on
		}
	}
	return "", false
}

// registriesDKeys reads the docker keys of the node's registries.d: the base files and the rendered ones.
func registriesDKeys(files nodefiles.Files) (map[string]bool, error) {
	type ns struct {
		UseSigstoreAttachments *bool `json:"use-sigstore-attachments,omitempty"`
	}
	keys := map[string]bool{}
	read := func(name string, data []byte) error {
		var f struct {
			Docker map[string]ns `json:"docker"`
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for k, v := range f.Docker {
			keys[k] = v.UseSigstoreAttachments != nil && *v.UseSigstoreAttachments
		}
		return nil
	}
	names := make([]string, 0, len(nodefiles.BaseRegistriesDFiles))
	for name := range nodefiles.BaseRegistriesDFiles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := read(name, nodefiles.BaseRegistriesDFiles[name]); err != nil {
			return nil, err
		}
	}
	for _, f := range files.Under(nodefiles.RegistriesDir) {
		if err := read(path.Base(f.Path), f.Data); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// describeRequirement summarizes a requirement for people: its type and, for sigstoreSigned, what it trusts.
func describeRequirement(r signature.PolicyRequirement) string {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf("%T", r)
	}
	var v struct {
		Type    string `json:"type"`
		KeyData []byte `json:"keyData"`
		Fulcio  *struct {
			OIDCIssuer   string `json:"oidcIssuer"`
			SubjectEmail string `json:"subjectEmail"`
		} `json:"fulcio"`
		PKI *struct {
			SubjectEmail    string `json:"subjectEmail"`
			SubjectHostname string `json:"subjectHostname"`
		} `json:"pki"`
		Rekor          []byte         `json:"rekorPublicKeyData"`
		SignedIdentity map[string]any `json:"signedIdentity"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Type != "sigstoreSigned" {
		return v.Type
	}
	var parts []string
	switch {
	case v.KeyData != nil:
		parts = append(parts, fmt.Sprintf("public key sha256:%x", sha256.Sum256(v.KeyData)))
	case v.Fulcio != nil:
		parts = append(parts, fmt.Sprintf("Fulcio certificate for %s issued by %s", v.Fulcio.SubjectEmail, v.Fulcio.OIDCIssuer))
	case v.PKI != nil:
		subject := slices.DeleteFunc([]string{v.PKI.SubjectEmail, v.PKI.SubjectHostname}, func(s string) bool { return s == "" })
		parts = append(parts, fmt.Sprintf("PKI certificate for %v", subject))
	}
	if v.Rekor != nil {
		parts = append(parts, "Rekor-logged")
	}
	id := fmt.Sprint(v.SignedIdentity["type"])
	switch id {
	case "exactRepository":
		id += fmt.Sprintf(" %v", v.SignedIdentity["dockerRepository"])
	case "remapIdentity":
		id += fmt.Sprintf(" %v -> %v", v.SignedIdentity["prefix"], v.SignedIdentity["signedPrefix"])
	}
	parts = append(parts, "signed identity "+id)
	out := "sigstoreSigned:"
	for i, p := range parts {
		if i > 0 {
			out += ","
		}
		out += " " + p
	}
	return out
}
