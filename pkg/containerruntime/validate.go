package containerruntime

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/go-units"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// specField is the field every checked value is under.
const specField = "spec.containerRuntimeConfig"

// Limits of the API (the CRD of openshift/api 8f52beb) and of MCO (validateUserContainerRuntimeConfig).
const (
	// minPidsLimit is the smallest pids limit MCO accepts besides 0.
	minPidsLimit = 20
	// minLogSizeMax is the largest positive log size MCO refuses.
	minLogSizeMax = 8192
	// maxStorePath is the longest store path the API accepts.
	maxStorePath = 256
	// maxLayerStores and maxOtherStores are how many store paths each list may hold.
	maxLayerStores, maxOtherStores = 5, 10
)

// logLevels are the log levels MCO accepts, case-sensitive, in the order its message lists them.
var logLevels = []string{"error", "fatal", "panic", "warn", "info", "debug", "trace"}

// storePathPattern is the API's and MCO's rule for a store path.
var storePathPattern = regexp.MustCompile(`^/[a-zA-Z0-9/._-]+$`)

// Problems returns everything wrong with crc, every problem and not only MCO's first (docs/semantics.md §11.4):
// what the API server refuses (a missing spec.containerRuntimeConfig, a default runtime other than crun or runc,
// store lists too long, store paths too long or twice in a list, a selector that does not parse), what MCO refuses
// (pidsLimit, logSizeMax, a negative overlaySize, logLevel, defaultRuntime, store paths), and an overlaySize that
// containers/storage refuses on the node although MCO writes it ("10Gi": CRI-O would not start). Each problem's
// Message is MCO's own where MCO has one (StatusMessage joins them for the object's status). Store paths are
// checked whether or not the feature gate AdditionalStorageConfig is on, as MCO does.
func Problems(crc *mcfgv1.ContainerRuntimeConfig) []inputs.Problem {
	at := inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindContainerRuntimeConfig, Name: crc.Name}}
	var ps []inputs.Problem
	if sel := crc.Spec.MachineConfigPoolSelector; sel != nil {
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
			ps = append(ps, inputs.Problem{At: at.Child("spec.machineConfigPoolSelector"), Value: sel.String(),
				Message: "invalid label selector: " + err.Error(),
				Fix:     "write matchLabels, or matchExpressions with the operators In, NotIn, Exists and DoesNotExist"})
		}
	}
	spec := crc.Spec.ContainerRuntimeConfig
	if spec == nil {
		return append(ps, inputs.Problem{At: at.Child(specField), Message: "Required value",
			Fix: "set spec.containerRuntimeConfig, e.g. {logLevel: info}"})
	}
	at = at.Child(specField)
	ps = append(ps, scalarProblems(at, spec)...)
	layer, image, artifact := storePaths(spec)
	ps = append(ps, storeProblems(at.Child(".additionalLayerStores"), "AdditionalLayerStores", layer, maxLayerStores)...)
	ps = append(ps, storeProblems(at.Child(".additionalImageStores"), "AdditionalImageStores", image, maxOtherStores)...)
	ps = append(ps, storeProblems(at.Child(".additionalArtifactStores"), "AdditionalArtifactStores", artifact, maxOtherStores)...)
	return ps
}

// scalarProblems checks the scalar fields, in MCO's order.
func scalarProblems(at inputs.FieldRef, spec *mcfgv1.ContainerRuntimeConfiguration) []inputs.Problem {
	var ps []inputs.Problem
	if p := spec.PidsLimit; p != nil && *p != 0 && *p < minPidsLimit {
		ps = append(ps, inputs.Problem{At: at.Child(".pidsLimit"), Value: strconv.FormatInt(*p, 10),
			Message: fmt.Sprintf("invalid PidsLimit %d", *p),
			Fix:     fmt.Sprintf("set 0 (CRI-O's default) or at least %d; leave it out for no drop-in", minPidsLimit)})
	}
	if q := spec.LogSizeMax; q != nil && q.Value() > 0 && q.Value() <= minLogSizeMax {
		ps = append(ps, inputs.Problem{At: at.Child(".logSizeMax"), Value: q.String(),
			Message: fmt.Sprintf("invalid LogSizeMax %q, cannot be less than 8kB", q.String()),
			Fix:     "set more than 8192 bytes (e.g. 9k), or -1 for no limit"})
	}
	if q := spec.OverlaySize; q != nil {
		if q.Value() < 0 {
			ps = append(ps, inputs.Problem{At: at.Child(".overlaySize"), Value: q.String(),
				Message: fmt.Sprintf("invalid overlaySize %q, cannot be less than 0", q.String()),
				Fix:     "set a size such as 10G, or 0 to keep the node's default"})
		} else if p := overlaySizeProblem(at.Child(".overlaySize"), q.String()); p != nil {
			ps = append(ps, *p)
		}
	}
	if l := spec.LogLevel; l != "" && !slices.Contains(logLevels, l) {
		ps = append(ps, inputs.Problem{At: at.Child(".logLevel"), Value: l,
			Message: fmt.Sprintf("invalid LogLevel %q, must be one of error, fatal, panic, warn, info, debug, or trace", l),
			Fix:     "write one of those, in lower case"})
	}
	switch r := spec.DefaultRuntime; r {
	case mcfgv1.ContainerRuntimeDefaultRuntimeEmpty, mcfgv1.ContainerRuntimeDefaultRuntimeCrun, mcfgv1.ContainerRuntimeDefaultRuntimeRunc:
	default:
		ps = append(ps, inputs.Problem{At: at.Child(".defaultRuntime"), Value: string(r),
			Message: fmt.Sprintf("invalid DefaultRuntime %q, must be one of crun, runc", r),
			Fix:     "write crun (the default) or runc"})
	}
	return ps
}

// overlaySizeProblem returns a problem when containers/storage's overlay driver refuses size, which MCO writes
// into storage.conf as the quantity's canonical string: the driver parses it with go-units' RAMInBytes, which
// knows the suffixes k, m, g, t, p (all binary) with an optional "b" or "ib", and not "Ki", "Mi", "Gi" (a
// quantity of 1024Mi is written "1Gi"). The fix names the size the driver reads as the same number of bytes.
func overlaySizeProblem(at inputs.FieldRef, size string) *inputs.Problem {
	if _, err := units.RAMInBytes(size); err == nil {
		return nil
	}
	fix := "write the size in bytes or with a suffix containers/storage reads (k, M, G, T, which it reads as powers of 1024), e.g. 10G"
	if n, suffix, ok := binarySuffixed(size); ok {
		fix = fmt.Sprintf("write %s%s: containers/storage reads it as the same %s bytes", n, suffix, size)
	}
	return &inputs.Problem{At: at, Value: size,
		Message: fmt.Sprintf("containers/storage refuses the size %q that storage.conf would get, and CRI-O would not start on the pool's nodes", size),
		Fix:     fix}
}

// binarySuffixed returns the number and the suffix containers/storage reads as the same power of 1024 for a
// quantity with a binary suffix: "10Gi" gives "10", "G".
func binarySuffixed(size string) (n, suffix string, ok bool) {
	for _, s := range []struct{ quantity, storage string }{{"Ki", "k"}, {"Mi", "M"}, {"Gi", "G"}, {"Ti", "T"}, {"Pi", "P"}} {
		if num, found := strings.CutSuffix(size, s.quantity); found {
			return num, s.storage, true
		}
	}
	return "", "", false
}

// storePaths returns the paths of the three store lists of spec: layer, image and artifact stores.
func storePaths(spec *mcfgv1.ContainerRuntimeConfiguration) (layer, image, artifact []string) {
	for _, s := range spec.AdditionalLayerStores {
		layer = append(layer, string(s.Path))
	}
	for _, s := range spec.AdditionalImageStores {
		image = append(image, string(s.Path))
	}
	for _, s := range spec.AdditionalArtifactStores {
		artifact = append(artifact, string(s.Path))
	}
	return layer, image, artifact
}

// storeProblems checks one store list: its length and each path (MCO's checks, then the API's length and
// duplicate rules).
func storeProblems(at inputs.FieldRef, word string, paths []string, maxItems int) []inputs.Problem {
	var ps []inputs.Problem
	if len(paths) > maxItems {
		ps = append(ps, inputs.Problem{At: at, Value: strconv.Itoa(len(paths)),
			Message: fmt.Sprintf("Too many: %d: must have at most %d items", len(paths), maxItems),
			Fix:     fmt.Sprintf("list at most %d paths", maxItems)})
	}
	for i, p := range paths {
		field := at.Child(fmt.Sprintf("[%d].path", i))
		switch {
		case p == "":
			ps = append(ps, inputs.Problem{At: field, Message: fmt.Sprintf("invalid %s: path must not be empty", word),
				Fix: "write an absolute path, e.g. /var/lib/stargz-store"})
		case !storePathPattern.MatchString(p):
			ps = append(ps, inputs.Problem{At: field, Value: p,
				Message: fmt.Sprintf("invalid %s path %q: must be an absolute path containing only alphanumeric characters, '/', '.', '_', and '-'", word, p),
				Fix:     "write an absolute path of those characters, e.g. /var/lib/stargz-store (\":ref\" is appended to layer stores for you)"})
		case strings.Contains(p, "//"):
			ps = append(ps, inputs.Problem{At: field, Value: p,
				Message: fmt.Sprintf("invalid %s path %q: must not contain consecutive forward slashes", word, p),
				Fix:     "write each / once"})
		case len(p) > maxStorePath:
			ps = append(ps, inputs.Problem{At: field, Value: p,
				Message: fmt.Sprintf("Too long: may not be more than %d bytes", maxStorePath),
				Fix:     "use a shorter path"})
		case slices.Index(paths, p) < i:
			ps = append(ps, inputs.Problem{At: field, Value: p,
				Message: fmt.Sprintf("%s must not contain duplicate paths", lowerFirst(word)),
				Fix:     fmt.Sprintf("list it once (it is also %s)", at.Child(fmt.Sprintf("[%d].path", slices.Index(paths, p))).Field)})
		}
	}
	return ps
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// StatusMessage returns the message of the Failure condition of an object with problems ps: "Error: " and each
// problem's message, one a line, as MCO words its validation errors (it reports the first scalar one only).
func StatusMessage(ps []inputs.Problem) string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Message
		if p.Message == "Required value" {
			msgs[i] = p.At.Field + ": Required value"
		}
	}
	return "Error: " + strings.Join(msgs, "\n")
}
