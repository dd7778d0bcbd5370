package verify

import (
	"maps"
	"slices"
	"strings"

	"github.com/openshift/registries-controller/pkg/registryprobe"
)

// Report is the verdict for every image and the summary.
type Report struct {
	Images  []Image `json:"images"`
	Summary Summary `json:"summary"`
}

// Summary sums the verdicts up per place and per entry.
type Summary struct {
	// Images counts the images per verdict.
	Images map[Verdict]int `json:"images"`
	// MirrorsLacking are the mirrors that were asked and do not have some images, per mirror location, sorted.
	MirrorsLacking []Lack `json:"mirrorsLacking,omitempty"`
	// NeverContactSource are the blocked entries whose mirrors lack an image: the pull of those images fails.
	NeverContactSource []Lack `json:"neverContactSource,omitempty"`
	// SourcesContacted are the sources a pull reaches because no mirror serves it, per source location.
	SourcesContacted []Lack `json:"sourcesContacted,omitempty"`
	// Unserved are the images no place serves.
	Unserved []string `json:"unserved,omitempty"`
}

// Lack is a place or an entry and the images it concerns.
type Lack struct {
	// Location is a mirror or source location, or an entry's prefix.
	Location string `json:"location"`
	// By names the objects behind it (a mirror's origins, what blocks an entry), when known.
	By []string `json:"by,omitempty"`
	// Images are the images concerned, with the answer when it is not "not found", sorted.
	Images []string `json:"images"`
}

// OK reports whether every pull works from the places the configuration allows.
func (r *Report) OK() bool { return r.Summary.Images[Fails] == 0 }

func summarize(images []Image) Summary {
	s := Summary{Images: map[Verdict]int{}}
	mirrors, blocked, sources := lacks{}, lacks{}, lacks{}
	for _, img := range images {
		s.Images[img.Verdict]++
		for _, p := range img.Places {
			switch {
			case p.Source && p.Result != nil:
				// The source is asked only when no mirror has the image: the pull reaches it.
				sources.add(p.Location, nil, img.Reference)
			case !p.Source && p.Result != nil && !p.Has():
				mirrors.add(p.Location, p.Origins, lacking(img.Reference, &p))
			}
		}
		if img.Verdict == Fails {
			s.Unserved = append(s.Unserved, img.Reference)
			if len(img.BlockedBy) > 0 && img.Entry != "" {
				blocked.add(img.Entry, img.BlockedBy, img.Reference)
			}
		}
	}
	slices.Sort(s.Unserved)
	s.MirrorsLacking, s.NeverContactSource, s.SourcesContacted = mirrors.sorted(), blocked.sorted(), sources.sorted()
	return s
}

// lacking names an image a mirror lacks, with the answer when it is not a plain "not found".
func lacking(ref string, p *Place) string {
	if p.Result.Answer == registryprobe.NotFound {
		return ref
	}
	return ref + " (" + p.Outcome() + ")"
}

type lacks map[string]*Lack

func (l lacks) add(location string, by []string, image string) {
	x, ok := l[location]
	if !ok {
		x = &Lack{Location: location}
		l[location] = x
	}
	for _, b := range by {
		if !slices.Contains(x.By, b) {
			x.By = append(x.By, b)
		}
	}
	if !slices.Contains(x.Images, image) {
		x.Images = append(x.Images, image)
	}
}

func (l lacks) sorted() []Lack {
	var out []Lack
	for _, k := range slices.Sorted(maps.Keys(l)) {
		x := *l[k]
		slices.Sort(x.By)
		slices.SortFunc(x.Images, strings.Compare)
		out = append(out, x)
	}
	return out
}
