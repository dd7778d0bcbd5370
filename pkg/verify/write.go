package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a person: first the images whose pull fails, with the answer of every place
// (the reasons first), then those only the source serves, then those with anything else to say (a place that
// failed before the one that serves, a mirror not tried), then the summary. Images the first place serves say
// nothing but their count.
func (r *Report) WriteText(w io.Writer) error {
	bw := &errWriter{w: w}
	for _, v := range []Verdict{Fails, SourceOnly, Served} {
		for i := range r.Images {
			img := &r.Images[i]
			if img.Verdict == v && (v != Served || img.notable()) {
				img.writeText(bw)
			}
		}
	}
	r.Summary.writeText(bw, len(r.Images))
	return bw.err
}

// notable reports whether a served image has something to say: a place before the one serving it did not have
// it, or a mirror is not tried.
func (img *Image) notable() bool {
	return len(img.Skipped) > 0 || len(img.Places) > 0 && !img.Places[0].Has()
}

func (img *Image) writeText(w *errWriter) {
	head := strings.ToUpper(string(img.Verdict))
	w.printf("%s: %s", head, img.Reference)
	if len(img.From) > 0 {
		w.printf(" (%s)", strings.Join(img.From, "; "))
	}
	w.printf("\n")
	for i, p := range img.Places {
		kind := "mirror"
		if p.Source {
			kind = "source"
		}
		w.printf("  %d. %s %s: %s\n", i+1, kind, p.Reference, p.Outcome())
		if len(p.Origins) > 0 {
			w.printf("     from %s\n", strings.Join(p.Origins, ", "))
		}
	}
	for _, s := range img.Skipped {
		w.printf("  not tried: mirror %s\n", s)
	}
	if len(img.BlockedBy) > 0 {
		w.printf("  the source is blocked by %s\n", strings.Join(img.BlockedBy, ", "))
	}
	switch img.Verdict {
	case Served:
		w.printf("  served by %s\n", img.ServedBy)
	case SourceOnly:
		w.printf("  served by the source %s only: the mirrors lack it (where the source must not be reached, this pull fails)\n", img.ServedBy)
	}
}

func (s *Summary) writeText(w *errWriter, total int) {
	w.printf("summary: %d images: %d served, %d served only by the source, %d fail\n", total, s.Images[Served], s.Images[SourceOnly], s.Images[Fails])
	writeLacks(w, "mirrors lacking images:", s.MirrorsLacking)
	writeLacks(w, "NeverContactSource entries whose mirrors lack an image (an outage waiting for its trigger):", s.NeverContactSource)
	writeLacks(w, "sources a pull contacts (no mirror serves the image):", s.SourcesContacted)
	if len(s.Unserved) > 0 {
		w.printf("images no place serves: %d\n", len(s.Unserved))
		for _, ref := range s.Unserved {
			w.printf("  %s\n", ref)
		}
	}
}

func writeLacks(w *errWriter, title string, lacks []Lack) {
	if len(lacks) == 0 {
		return
	}
	w.printf("%s\n", title)
	for _, l := range lacks {
		w.printf("  %s", l.Location)
		if len(l.By) > 0 {
			w.printf(" (%s)", strings.Join(l.By, ", "))
		}
		w.printf(": %d image(s)\n", len(l.Images))
		for _, ref := range l.Images {
			w.printf("    %s\n", ref)
		}
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
