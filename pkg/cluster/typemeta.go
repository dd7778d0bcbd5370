package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// typeMeta is a json.MetaFactory (k8s.io/apimachinery/pkg/runtime/serializer/json) that reads a document's
// top-level "apiVersion" and "kind" with a small scanner instead of encoding/json. apimachinery's JSON serializer
// asks its MetaFactory before every decode, and its SimpleMetaFactory runs json.Unmarshal over the whole document
// to read those two strings: for a MachineConfig of 1.4 MB, most of it one base64 data URL, that is a full
// validating scan per decode, twice per watch event (the {"type":...,"object":...} envelope, then the object).
// typeMeta skips every other member's value: strings by searching for their closing quote, objects and arrays by
// counting brackets, so a large string costs a bytes.IndexByte.
//
// On every document encoding/json accepts it answers as SimpleMetaFactory does (FuzzInterpret checks it): member
// names match case-insensitively (bytes.EqualFold, after unescaping), the last of duplicate members wins, a null
// value leaves what an earlier member set, a value that is not a string or null is an error, a missing member
// reads as "", the document null reads as an empty GroupVersionKind and any other non-object is an error. On
// invalid JSON it returns an error or a best effort, never more than one pass over the document; the serializer
// validates the whole document when it decodes it afterwards.
type typeMeta struct{}

var _ kjson.MetaFactory = typeMeta{}

// Interpret returns the group, version and kind of the document's top-level apiVersion and kind.
func (typeMeta) Interpret(data []byte) (*schema.GroupVersionKind, error) {
	apiVersion, kind, err := topLevelTypeMeta(data)
	if err != nil {
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	return &schema.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: kind}, nil
}

var (
	errEnd    = errors.New("unexpected end of JSON input")
	errSyntax = errors.New("invalid JSON")
)

// member names whose values topLevelTypeMeta reads
const (
	otherMember = iota
	apiVersionMember
	kindMember
)

// topLevelTypeMeta returns the string values of the top-level members apiVersion and kind of data.
func topLevelTypeMeta(data []byte) (apiVersion, kind string, err error) {
	i := skipSpace(data, 0)
	if i == len(data) {
		return "", "", errEnd
	}
	switch data[i] {
	case '{':
	case 'n':
		// json.Unmarshal of null into a struct leaves it as it is
		if bytes.HasPrefix(data[i:], []byte("null")) && skipSpace(data, i+4) == len(data) {
			return "", "", nil
		}
		return "", "", errSyntax
	default:
		return "", "", fmt.Errorf("cannot read apiVersion and kind from a JSON value that is not an object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return closed(data, i, "", "")
	}
	for {
		if i == len(data) {
			return "", "", errEnd
		}
		if data[i] != '"' {
			return "", "", errSyntax
		}
		end := skipString(data, i)
		if end < 0 {
			return "", "", errEnd
		}
		member, err := memberName(data[i:end])
		if err != nil {
			return "", "", err
		}
		i = skipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return "", "", errSyntax
		}
		i = skipSpace(data, i+1)
		end = skipValue(data, i)
		if end < 0 {
			return "", "", errEnd
		}
		if member != otherMember {
			s, null, err := stringValue(data[i:end])
			if err != nil {
				return "", "", err
			}
			switch {
			case null:
			case member == apiVersionMember:
				apiVersion = s
			default:
				kind = s
			}
		}
		i = skipSpace(data, end)
		if i == len(data) {
			return "", "", errEnd
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return closed(data, i, apiVersion, kind)
		default:
			return "", "", errSyntax
		}
	}
}

// closed returns apiVersion and kind if only whitespace follows the object's closing brace at data[i].
func closed(data []byte, i int, apiVersion, kind string) (string, string, error) {
	if skipSpace(data, i+1) != len(data) {
		return "", "", errSyntax
	}
	return apiVersion, kind, nil
}

// memberName says which of apiVersion and kind a quoted member name is, matched as encoding/json matches a struct
// field's name: after unescaping, exactly or else by bytes.EqualFold.
func memberName(quoted []byte) (int, error) {
	name := quoted[1 : len(quoted)-1]
	if !plain(name) {
		var s string
		if err := json.Unmarshal(quoted, &s); err != nil {
			return 0, err
		}
		name = []byte(s)
	} else if len(name) != len("apiVersion") && len(name) != len("kind") {
		return otherMember, nil
	}
	switch {
	case bytes.EqualFold(name, []byte("apiVersion")):
		return apiVersionMember, nil
	case bytes.EqualFold(name, []byte("kind")):
		return kindMember, nil
	}
	return otherMember, nil
}

// stringValue returns the string a JSON value holds, or null true for null; any other value is an error, as
// encoding/json's for a string field.
func stringValue(v []byte) (s string, null bool, err error) {
	switch v[0] {
	case '"':
		if raw := v[1 : len(v)-1]; plain(raw) {
			return string(raw), false, nil
		}
		err := json.Unmarshal(v, &s)
		return s, false, err
	case 'n':
		if string(v) == "null" {
			return "", true, nil
		}
	}
	return "", false, fmt.Errorf("cannot read the JSON value %.20q as a string", v)
}

// plain is true when the inside of a quoted JSON string is its value: no escape and only ASCII (encoding/json
// replaces invalid UTF-8 when it unquotes).
func plain(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// skipSpace returns the index of the first byte at or after i that is not JSON whitespace (len(data) if none).
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string that starts with the quote at data[i], or -1 if it does not end.
func skipString(data []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		// the quote ends the string unless an odd number of backslashes escapes it
		backslashes := 0
		for p := q - 1; p > i && data[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipValue returns the index after the JSON value that starts at data[i], or -1 if it does not end. Objects and
// arrays are skipped by counting brackets (strings inside them with skipString), other literals up to the next
// delimiter; skipValue does not validate what it skips.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				end := skipString(data, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	return -1
}
