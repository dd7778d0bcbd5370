package render_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// manyMirrors returns inputs with objects mirror sets of perObject sources each, two mirrors a source, the
// first object twice as large as the others.
func manyMirrors(objects, perObject int) *inputs.Inputs {
	in := exampleInputs()
	in.ImageDigestMirrorSets = nil
	for o := range objects {
		var entries []fixtures.MirrorEntry
		n := perObject
		if o == 0 {
			n *= 2
		}
		for i := range n {
			src := fmt.Sprintf("registry.example.com/team-%03d/app-%05d", o, i)
			entries = append(entries, fixtures.Mirror(src, "mirror-one.example.net/"+src, "mirror-two.example.net/"+src))
		}
		in.ImageDigestMirrorSets = append(in.ImageDigestMirrorSets, fixtures.IDMS(fmt.Sprintf("set-%03d", o), entries...))
	}
	return in
}

func TestTheSizeBudget(t *testing.T) {
	small, err := render.Render(exampleInputs(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range small.Sizes {
		if s.Bytes < len(small.Desired(s.Key).Object.Spec.Config.Raw) || s.Near() || s.Over() {
			t.Errorf("%s", s)
		}
	}

	near, err := render.Render(manyMirrors(15, 200), opts)
	if err != nil {
		t.Fatal(err)
	}
	warnings := near.SizeWarnings()
	if len(warnings) != 2 || !strings.Contains(warnings[0], "99-master-generated-registries is ") || !strings.Contains(warnings[0], "of the 1,572,864 bytes (1.5 MiB) etcd accepts in one request") {
		t.Errorf("near the limit: sizes %v, warnings %q", near.Sizes, warnings)
	}

	over, err := render.Render(manyMirrors(30, 200), opts)
	var invalid *inputs.InvalidError
	if !errors.As(err, &invalid) || over == nil || !over.Sizes[0].Over() {
		t.Fatalf("over the limit: %v, sizes %v", err, over)
	}
	var onImage, onObjects []string
	for _, p := range invalid.Problems {
		switch p.At.Object.Kind {
		case inputs.KindImage:
			onImage = append(onImage, p.String())
		case inputs.KindImageDigestMirrorSet:
			onObjects = append(onObjects, p.At.Object.Name)
		}
	}
	if len(onImage) != 1 || !strings.Contains(onImage[0], `Image "cluster": spec: "99-master-generated-registries, 99-worker-generated-registries": `+
		`the mirror configuration renders MachineConfigs of up to `) || !strings.Contains(onImage[0], "more than the 1,572,864 bytes (1.5 MiB) etcd accepts") {
		t.Errorf("problems on the Image: %q", onImage)
	}
	// The ten largest contributors, the largest (set-000, twice the others) first.
	if len(onObjects) != 10 || onObjects[0] != "set-000" {
		t.Errorf("contributors named: %q", onObjects)
	}
	if !strings.Contains(invalid.Error(), `ImageDigestMirrorSet "set-000": spec: "99-master-generated-registries, 99-worker-generated-registries": contributes about 193,`) {
		t.Errorf("problems:\n%s", invalid.Error())
	}
}
