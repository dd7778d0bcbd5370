package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/docker/config"
	"golang.org/x/term"

	"github.com/openshift/registries-controller/pkg/explain"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/registryprobe"
	"github.com/openshift/registries-controller/pkg/verify"
)

// placesToAsk are the images to check, each with its places (verify.Image) and, per place, what to ask
// (targets[i][j] for images[i].Places[j]; nil when the place is not tried).
type placesToAsk struct {
	images  []verify.Image
	targets [][]*registryprobe.Target
}

// maxFrom bounds the origins kept per image (a release image of 200 images, a cluster of 5,000 pods).
const maxFrom = 3

// explainAll explains each distinct image under cfg, with the credentials of authFile for each place, or, with ns,
// those of a pod of ns's namespace.
func explainAll(cfg *registriesconf.Config, prov *explain.Provenance, authFile string, ns *namespaceCreds, named []verify.Named) (*placesToAsk, error) {
	out := &placesToAsk{}
	index := map[string]int{}
	for _, n := range named {
		e, err := explain.Explain(cfg, n.Reference, prov)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", n.Reference, n.From, err)
		}
		if i, seen := index[e.Reference]; seen {
			if from := &out.images[i].From; len(*from) < maxFrom {
				*from = append(*from, n.From)
			}
			continue
		}
		if authFile != "" {
			if err := explain.ExplainCredentials(e, cfg, authFile); err != nil {
				return nil, err
			}
		}
		if ns != nil {
			if err := explain.ExplainNamespaceCredentials(e, cfg, ns.facts.input(ns.namespace, ns.files)); err != nil {
				return nil, err
			}
		}
		img, targets, err := imageOf(cfg, authFile, ns, e)
		if err != nil {
			return nil, err
		}
		img.From = []string{n.From}
		index[e.Reference] = len(out.images)
		out.images = append(out.images, img)
		out.targets = append(out.targets, targets)
	}
	return out, nil
}

// imageOf turns an explanation into the image to judge and what to ask at each place.
func imageOf(cfg *registriesconf.Config, authFile string, ns *namespaceCreds, e *explain.Explanation) (verify.Image, []*registryprobe.Target, error) {
	img := verify.Image{Reference: e.Reference, Skipped: e.Skipped}
	if e.Entry != nil {
		img.Entry = e.Entry.Prefix
		img.BlockedBy = e.Entry.BlockedBy
		if e.Entry.Blocked && len(img.BlockedBy) == 0 {
			img.BlockedBy = []string{fmt.Sprintf("entry %q of registries.conf (blocked = true)", e.Entry.Prefix)}
		}
	}
	targets := make([]*registryprobe.Target, len(e.Attempts))
	for i, a := range e.Attempts {
		p := verify.Place{Reference: a.Reference, Location: a.Location, Source: a.Primary, Origins: a.Origins}
		if a.Blocked {
			p.NotTried = fmt.Sprintf("blocked (entry %q)", a.Entry)
		} else {
			named, err := reference.ParseNormalizedNamed(a.Reference)
			if err != nil {
				return img, nil, err
			}
			cred, ok := ns.credentialAt(e, i)
			if !ok {
				if cred, err = credentialFor(cfg, authFile, named, a.Credentials); err != nil {
					return img, nil, err
				}
			}
			targets[i] = &registryprobe.Target{Ref: named, Insecure: a.Insecure, Credential: cred}
		}
		img.Places = append(img.Places, p)
	}
	return img, targets, nil
}

// credentialFor returns the credentials containers/image uses for ref with authFile, named by their entry. The
// values go to the prober only.
func credentialFor(cfg *registriesconf.Config, authFile string, ref reference.Named, found *explain.Credentials) (registryprobe.Credential, error) {
	if authFile == "" || found == nil || !found.Found {
		return registryprobe.Credential{}, nil
	}
	sys := *cfg.SystemContext()
	sys.AuthFilePath = authFile
	auth, err := config.GetCredentialsForRef(&sys, ref)
	if err != nil {
		return registryprobe.Credential{}, fmt.Errorf("looking up credentials for %s in %s: %w", ref.Name(), authFile, err)
	}
	from := fmt.Sprintf("auth file entry %q", found.Key)
	if found.Key == "" {
		from = "the auth file's entry for the registry"
	}
	return registryprobe.Credential{Username: auth.Username, Password: auth.Password, IdentityToken: auth.IdentityToken, From: from}, nil
}

// askAll asks the registries: first every mirror of every image, then the source of each image no mirror has.
// Identical questions (same reference, insecure flag and credentials) are asked once.
func askAll(ctx context.Context, prober *registryprobe.Prober, p *placesToAsk, workers int, prog *progress) {
	ask(ctx, prober, p, workers, prog, func(img *verify.Image, j int) bool { return !img.Places[j].Source })
	ask(ctx, prober, p, workers, prog, func(img *verify.Image, j int) bool {
		if !img.Places[j].Source {
			return false
		}
		for _, q := range img.Places[:j] {
			if q.Has() {
				return false
			}
		}
		return true
	})
}

type questionKey struct {
	ref      string
	insecure bool
	from     string
}

// ask asks every place that want selects, with workers goroutines (the prober bounds requests per registry).
func ask(ctx context.Context, prober *registryprobe.Prober, p *placesToAsk, workers int, prog *progress, want func(*verify.Image, int) bool) {
	type slot struct{ i, j int }
	questions := map[questionKey][]slot{}
	var order []questionKey
	for i := range p.images {
		for j, t := range p.targets[i] {
			if t == nil || !want(&p.images[i], j) {
				continue
			}
			k := questionKey{t.Ref.String(), t.Insecure, t.Credential.From}
			if _, ok := questions[k]; !ok {
				order = append(order, k)
			}
			questions[k] = append(questions[k], slot{i, j})
		}
	}
	prog.add(len(order))
	work := make(chan questionKey)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(order))) {
		wg.Go(func() {
			for k := range work {
				s := questions[k][0]
				res := prober.Probe(ctx, *p.targets[s.i][s.j])
				for _, s := range questions[k] {
					r := res
					p.images[s.i].Places[s.j].Result = &r
				}
				prog.step()
			}
		})
	}
	for _, k := range order {
		work <- k
	}
	close(work)
	wg.Wait()
}

// progress shows "asked N/M places" on a terminal, nothing elsewhere.
type progress struct {
	w           io.Writer
	mu          sync.Mutex
	done, total int
}

func newProgress(w io.Writer) *progress {
	if !stderrIsTerminal(w) {
		return &progress{}
	}
	return &progress{w: w}
}

func (p *progress) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += n
}

func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if p.w != nil {
		fmt.Fprintf(p.w, "\rasked %d/%d places", p.done, p.total)
	}
}

func (p *progress) finish() {
	if p.w != nil && p.total > 0 {
		fmt.Fprintln(p.w)
	}
}

var isTerminal = func(f interface{ Fd() uintptr }) bool { return term.IsTerminal(int(f.Fd())) }
