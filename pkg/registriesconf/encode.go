package registriesconf

import (
	"bytes"
	"fmt"

	"github.com/BurntSushi/toml"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
)

// Encode returns the TOML encoding of conf, byte for byte what github.com/BurntSushi/toml's Encoder writes
// for it (the encoding the machine-config operator uses, so existing clusters' bytes are kept). A search
// list and one registry with a digest-only mirror, for instance, give:
//
//	unqualified-search-registries = ["registry.access.redhat.com", "docker.io"]
//	short-name-mode = ""
//	additional-layer-store-auth-helper = ""
//
//	[[registry]]
//	  prefix = ""
//	  location = "quay.io/openshift-release-dev/ocp-release"
//
//	  [[registry.mirror]]
//	    location = "mirror.example.com/ocp/release"
//	    pull-from-mirror = "digest-only"
//
// Encode writes every field of the configuration itself, into one buffer of the exact size, except in two
// cases that it hands to BurntSushi's encoder: a nil conf, and a conf whose short-name Aliases map is not
// nil (an [aliases] table, which no rendered file has). Either way the bytes are the same.
func Encode(conf *sysregistriesv2.V2RegistriesConf) ([]byte, error) {
	if !fastPathCovers(conf) {
		return encodeWithBurntSushi(conf)
	}
	return appendDocument(make([]byte, 0, documentLen(conf)), conf), nil
}

// fastPathCovers reports whether appendDocument writes conf exactly as BurntSushi's encoder does. It does
// for every field but the short-name aliases.
func fastPathCovers(conf *sysregistriesv2.V2RegistriesConf) bool {
	return conf != nil && conf.Aliases == nil
}

// encodeWithBurntSushi is the encoding Encode reproduces, used for what the fast path leaves out.
func encodeWithBurntSushi(conf *sysregistriesv2.V2RegistriesConf) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(conf); err != nil {
		return nil, fmt.Errorf("encoding registries configuration: %w", err)
	}
	return buf.Bytes(), nil
}

// How BurntSushi's encoder lays out a V2RegistriesConf (vendor/github.com/BurntSushi/toml/encode.go,
// eStruct): the fields that are not tables come first, in struct order, then the tables. A nil slice is
// left out; a non-nil one is written even when empty (none of the top-level fields is omitempty), and so
// is an empty Registries, as "registry = []", since an empty slice of structs is not a table array. The
// two strings are always written. Every [[registry]] starts with an empty line (something has always been
// written before it: the two strings), its keys are indented by two spaces and each [[registry.mirror]]
// starts with an empty line and is indented by two, its keys by four. In a registry and a mirror, every key
// but "prefix" is omitempty: an empty string or a false bool is left out.
const (
	emptyRegistryList = "registry = []\n"
	registryHeader    = "\n[[registry]]\n"
	mirrorHeader      = "\n  [[registry.mirror]]\n"
	registryIndent    = "  "
	mirrorIndent      = "    "
	keyValueSeparator = " = "
	arraySeparator    = ", "
	trueValue         = "true"
)

// appendDocument appends the encoding of conf, whose Aliases must be nil, to dst.
func appendDocument(dst []byte, conf *sysregistriesv2.V2RegistriesConf) []byte {
	if conf.Registries != nil && len(conf.Registries) == 0 {
		dst = append(dst, emptyRegistryList...)
	}
	dst = appendStringArray(dst, "unqualified-search-registries", conf.UnqualifiedSearchRegistries)
	dst = appendStringArray(dst, "credential-helpers", conf.CredentialHelpers)
	dst = appendString(dst, "", "short-name-mode", conf.ShortNameMode)
	dst = appendString(dst, "", "additional-layer-store-auth-helper", conf.AdditionalLayerStoreAuthHelper)
	for i := range conf.Registries {
		dst = appendRegistry(dst, &conf.Registries[i])
	}
	return dst
}

// documentLen is the length of appendDocument's output.
func documentLen(conf *sysregistriesv2.V2RegistriesConf) int {
	n := 0
	if conf.Registries != nil && len(conf.Registries) == 0 {
		n += len(emptyRegistryList)
	}
	n += stringArrayLen("unqualified-search-registries", conf.UnqualifiedSearchRegistries)
	n += stringArrayLen("credential-helpers", conf.CredentialHelpers)
	n += stringLen("", "short-name-mode", conf.ShortNameMode)
	n += stringLen("", "additional-layer-store-auth-helper", conf.AdditionalLayerStoreAuthHelper)
	for i := range conf.Registries {
		n += registryLen(&conf.Registries[i])
	}
	return n
}

// appendRegistry appends one [[registry]] table, its mirrors included.
func appendRegistry(dst []byte, r *sysregistriesv2.Registry) []byte {
	dst = append(dst, registryHeader...)
	dst = appendString(dst, registryIndent, "prefix", r.Prefix)
	dst = appendEndpoint(dst, registryIndent, &r.Endpoint)
	dst = appendTrue(dst, registryIndent, "blocked", r.Blocked)
	dst = appendTrue(dst, registryIndent, "mirror-by-digest-only", r.MirrorByDigestOnly)
	for i := range r.Mirrors {
		dst = append(dst, mirrorHeader...)
		dst = appendEndpoint(dst, mirrorIndent, &r.Mirrors[i])
	}
	return dst
}

func registryLen(r *sysregistriesv2.Registry) int {
	n := len(registryHeader)
	n += stringLen(registryIndent, "prefix", r.Prefix)
	n += endpointLen(registryIndent, &r.Endpoint)
	n += trueLen(registryIndent, "blocked", r.Blocked)
	n += trueLen(registryIndent, "mirror-by-digest-only", r.MirrorByDigestOnly)
	for i := range r.Mirrors {
		n += len(mirrorHeader) + endpointLen(mirrorIndent, &r.Mirrors[i])
	}
	return n
}

// appendEndpoint appends the keys of an endpoint: a registry's own or a mirror's.
func appendEndpoint(dst []byte, indent string, e *sysregistriesv2.Endpoint) []byte {
	dst = appendNonEmptyString(dst, indent, "location", e.Location)
	dst = appendTrue(dst, indent, "insecure", e.Insecure)
	return appendNonEmptyString(dst, indent, "pull-from-mirror", e.PullFromMirror)
}

func endpointLen(indent string, e *sysregistriesv2.Endpoint) int {
	return nonEmptyStringLen(indent, "location", e.Location) +
		trueLen(indent, "insecure", e.Insecure) +
		nonEmptyStringLen(indent, "pull-from-mirror", e.PullFromMirror)
}

// appendKey appends `indent + key + " = "`. The keys are Go constants that TOML takes bare.
func appendKey(dst []byte, indent, key string) []byte {
	dst = append(dst, indent...)
	dst = append(dst, key...)
	return append(dst, keyValueSeparator...)
}

func keyLen(indent, key string) int { return len(indent) + len(key) + len(keyValueSeparator) }

// appendString appends a string key, `  prefix = "quay.io"`, and a newline.
func appendString(dst []byte, indent, key, value string) []byte {
	dst = appendQuoted(appendKey(dst, indent, key), value)
	return append(dst, '\n')
}

func stringLen(indent, key, value string) int { return keyLen(indent, key) + quotedLen(value) + 1 }

// appendNonEmptyString appends a string key unless the value is empty (omitempty).
func appendNonEmptyString(dst []byte, indent, key, value string) []byte {
	if value == "" {
		return dst
	}
	return appendString(dst, indent, key, value)
}

func nonEmptyStringLen(indent, key, value string) int {
	if value == "" {
		return 0
	}
	return stringLen(indent, key, value)
}

// appendTrue appends `  blocked = true` and a newline when the value is true; false is left out
// (omitempty).
func appendTrue(dst []byte, indent, key string, value bool) []byte {
	if !value {
		return dst
	}
	dst = append(appendKey(dst, indent, key), trueValue...)
	return append(dst, '\n')
}

func trueLen(indent, key string, value bool) int {
	if !value {
		return 0
	}
	return keyLen(indent, key) + len(trueValue) + 1
}

// appendStringArray appends a top-level array of strings, `key = ["a", "b"]` (`key = []` when empty), and a
// newline; nothing when values is nil.
func appendStringArray(dst []byte, key string, values []string) []byte {
	if values == nil {
		return dst
	}
	dst = append(appendKey(dst, "", key), '[')
	for i, v := range values {
		if i > 0 {
			dst = append(dst, arraySeparator...)
		}
		dst = appendQuoted(dst, v)
	}
	return append(dst, ']', '\n')
}

func stringArrayLen(key string, values []string) int {
	if values == nil {
		return 0
	}
	n := keyLen("", key) + len("[]\n")
	for i, v := range values {
		if i > 0 {
			n += len(arraySeparator)
		}
		n += quotedLen(v)
	}
	return n
}

// appendQuoted appends s as a TOML basic string, escaped as BurntSushi's encoder does (its
// dblQuotedReplacer): byte by byte, so that non-ASCII text, and even invalid UTF-8, is copied as is.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	done := 0
	for i := 0; i < len(s); i++ {
		if esc := basicStringEscapes[s[i]]; esc != "" {
			dst = append(dst, s[done:i]...)
			dst = append(dst, esc...)
			done = i + 1
		}
	}
	dst = append(dst, s[done:]...)
	return append(dst, '"')
}

func quotedLen(s string) int {
	n := len(s) + len(`""`)
	for i := 0; i < len(s); i++ {
		if esc := basicStringEscapes[s[i]]; esc != "" {
			n += len(esc) - 1
		}
	}
	return n
}

// basicStringEscapes maps each byte that BurntSushi's encoder escapes in a string to its escape: the quote
// and the backslash, the control characters (the five with a short form as `\n`, the others, and DEL, as
// `\u001b`, in lowercase hex). Other bytes, UTF-8 sequences included, are written unchanged.
var basicStringEscapes = func() (t [256]string) {
	for b := range 0x20 {
		t[b] = fmt.Sprintf(`\u%04x`, b)
	}
	t[0x7f] = `\u007f`
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'] = `\"`, `\\`
	return t
}()
