package explain

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints the explanation for people:
//
//	reference: source.example/team/app@sha256:… (pull by digest)
//	entry: [[registry]] prefix "source.example/team", location "source.example/team"
//	attempts, in order (the first that has the image serves the pull):
//	  1. mirror.local/team/app@sha256:…
//	     mirror "mirror.local/team", pull-from-mirror digest-only
//	     from ImageDigestMirrorSet "team" spec.imageDigestMirrors[0].mirrors[0]
//	  2. source.example/team/app@sha256:…
//	     primary location "source.example/team" (the source)
//	source: contacted only when every mirror before it fails
func (e *Explanation) WriteText(w io.Writer) error {
	p := &printer{w: w}
	how := "tag"
	if e.ByDigest {
		how = "digest"
	}
	p.line("reference: %s (pull by %s)", e.Reference, how)
	e.writeEntry(p)
	if e.AuthFile != "" {
		replaced := ""
		if n := e.NamespaceCredentials; n.replacesGlobal() {
			replaced = fmt.Sprintf("; for pods of namespace %s the plugin's file replaces it (below)", n.Namespace)
		}
		p.line("credentials: looked up in %s, as CRI-O looks them up in its global_auth_file%s", e.AuthFile, replaced)
	}
	p.line("attempts, in order (the first that has the image serves the pull):")
	for i, a := range e.Attempts {
		a.write(p, i+1)
	}
	for _, s := range e.Skipped {
		p.line("not tried: mirror %s", s)
	}
	p.line("source: %s", e.sourceVerdict())
	e.writeSignatures(p)
	e.NamespaceCredentials.write(p)
	for _, w := range e.Warnings {
		p.line("warning: %s", w)
	}
	return p.err
}

// writeSignatures prints, e.g.:
//
//	signatures: /etc/containers/policy.json, scope "quay.io/myorg"
//	  from ClusterImagePolicy "a" spec.scopes[0]
//	  requires sigstoreSigned: public key sha256:…, signed identity matchRepoDigestOrExact
//	  looked for at:
//	    1. mirror.local/myorg/app@sha256:… sigstore attachments on (registries.d key "mirror.local/myorg")
//	    2. quay.io/myorg/app@sha256:… sigstore attachments on (registries.d key "quay.io/myorg")
func (e *Explanation) writeSignatures(p *printer) {
	s := e.Signatures
	if s == nil {
		return
	}
	scope := "no scope matches, the default applies"
	if s.Scope != "" {
		scope = fmt.Sprintf("scope %q", s.Scope)
	}
	p.line("signatures: %s, %s", s.PolicyFile, scope)
	for _, o := range s.Origins {
		p.line("  from %s", o)
	}
	for _, r := range s.Requirements {
		p.line("  requires %s", r)
	}
	p.line("  looked for at:")
	for i, l := range s.Locations {
		how := "sigstore attachments off (no registries.d key matches)"
		switch {
		case l.Attachments:
			how = fmt.Sprintf("sigstore attachments on (registries.d key %q)", l.Key)
		case l.Key != "":
			how = fmt.Sprintf("sigstore attachments off (registries.d key %q)", l.Key)
		}
		p.line("    %d. %s %s", i+1, l.Reference, how)
	}
}

func (e *Explanation) writeEntry(p *printer) {
	if e.Entry == nil {
		p.line("entry: none matches; the reference is pulled from where it names, with TLS verified")
		return
	}
	en := e.Entry
	var flags []string
	if en.Blocked {
		flags = append(flags, "blocked")
	}
	if en.Insecure {
		flags = append(flags, "insecure")
	}
	if en.MirrorByDigestOnly {
		flags = append(flags, "mirror-by-digest-only")
	}
	extra := ""
	if len(flags) > 0 {
		extra = ", " + strings.Join(flags, ", ")
	}
	p.line("entry: [[registry]] prefix %q, location %q%s", en.Prefix, en.Location, extra)
	if en.InheritedFrom != "" {
		p.line("  mirrors inherited from the enclosing source %q", en.InheritedFrom)
	}
	for _, b := range en.BlockedBy {
		p.line("  blocked by %s", b)
	}
}

func (a *Attempt) write(p *printer, n int) {
	p.line("  %d. %s", n, a.Reference)
	what := fmt.Sprintf("mirror %q, pull-from-mirror %s", a.Location, orAll(a.PullFromMirror))
	switch {
	case a.Primary && a.Location == "":
		what = "primary location: the reference's own registry (a wildcard entry has no location) (the source)"
	case a.Primary:
		what = fmt.Sprintf("primary location %q (the source)", a.Location)
	}
	if a.Insecure {
		what += ", insecure (TLS not verified, plain HTTP after HTTPS fails)"
	}
	p.line("     %s", what)
	if a.Blocked {
		p.line("     BLOCKED: refused without contacting it (entry %q is blocked)", a.Entry)
	}
	for _, o := range a.Origins {
		p.line("     from %s", o)
	}
	for _, b := range a.BlockedBy {
		p.line("     blocked by %s", b)
	}
	for _, b := range a.InsecureBy {
		p.line("     insecure by %s", b)
	}
	switch c := a.Credentials; {
	case c == nil:
	case c.Found:
		p.line("     credentials: in the auth file, %s", c.entry())
	default:
		p.line("     credentials: none in the auth file (the pull is anonymous)")
	}
}

func orAll(pullFrom string) string {
	if pullFrom == "" {
		return "all (unset)"
	}
	return pullFrom
}

func (e *Explanation) sourceVerdict() string {
	switch {
	case !e.SourceContacted():
		return "never contacted: the primary location is blocked, so the pull fails when no mirror has the image"
	case len(e.Attempts) == 1:
		return "contacted: it is the only place the pull tries"
	}
	return "contacted only when every mirror before it fails"
}

// printer writes lines and keeps the first error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}
