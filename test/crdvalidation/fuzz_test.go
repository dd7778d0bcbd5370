package crdvalidation

import (
	"strings"
	"testing"
)

// FuzzOfflineJudgesAsTheAPIServer: the fuzzer proposes ImageDigestMirrorSets (any source, mirror, policy, an
// extra key that may be a typo of a real one, a number or a boolean where a string belongs), the real API server
// judges each with a dry run, and the offline validation must say exactly the same: verdict, field paths and
// messages. make test runs the seeds; hack/fuzz.sh runs the fuzzer.
func FuzzOfflineJudgesAsTheAPIServer(f *testing.F) {
	f.Add("quay.io/team", "mirror.example.com/team", "NeverContactSource", "", uint8(0))
	f.Add("https://quay.io/team", "mirror.example.com/team", "Sometimes", "mirorrs", uint8(0))
	f.Add("quay.io/team", "", "AllowContactingSource", "source", uint8(1))
	f.Add("*.quay.io", "mirror.example.com:5000/team", "", "mirrors", uint8(2))
	f.Add("quay.io/Team", "MIRROR.example.com", "y", "mirrorSourcePolicy", uint8(3))
	f.Fuzz(func(t *testing.T, source, mirror, policy, extra string, shape uint8) {
		source, mirror, policy = strings.ToValidUTF8(source, "?"), strings.ToValidUTF8(mirror, "?"), strings.ToValidUTF8(policy, "?")
		extra = strings.ToValidUTF8(extra, "?")
		entry := map[string]interface{}{"source": source, "mirrors": []interface{}{mirror}}
		if policy != "" {
			entry["mirrorSourcePolicy"] = policy
		}
		switch shape % 4 {
		case 1: // a number where a mirror string belongs
			entry["mirrors"] = []interface{}{int64(len(mirror))}
		case 2: // a boolean where the policy string belongs (YAML 1.1's y, on, no)
			entry["mirrorSourcePolicy"] = len(policy)%2 == 0
		case 3: // a string where the list belongs
			entry["mirrors"] = mirror
		}
		if extra != "" {
			entry[extra] = mirror
		}
		obj := func() map[string]interface{} {
			return map[string]interface{}{
				"apiVersion": "config.openshift.io/v1",
				"kind":       "ImageDigestMirrorSet",
				"metadata":   map[string]interface{}{"name": "fuzz"},
				"spec":       map[string]interface{}{"imageDigestMirrors": []interface{}{copyMap(entry)}},
			}
		}
		compare(t, dryRun(t, obj()), offline(t, obj()))
	})
}

// copyMap returns a shallow copy of m, so that the two judges never share a value either may change.
func copyMap(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		if l, ok := v.([]interface{}); ok {
			v = append([]interface{}(nil), l...)
		}
		out[k] = v
	}
	return out
}
