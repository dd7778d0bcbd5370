// Package nodefiles names the files this project writes on a node, holds the contents a node has when they are
// not written (its base files), and the type of a set of rendered files. It is the one place those paths and
// contents are defined: the render, the node-side classifier and the tools all use it.
//
//	files := nodefiles.Files{{Path: nodefiles.RegistriesConf, Data: conf}}
//	data, written := files.Get(nodefiles.PolicyJSON) // nil, false: the node keeps nodefiles.Base(nodefiles.PolicyJSON)
package nodefiles

import (
	"bytes"
	"path"
	"slices"
	"strings"
)

// Node paths of the rendered files.
const (
	// RegistriesConf is containers/image's registries configuration: mirrors, blocked and insecure registries.
	RegistriesConf = "/etc/containers/registries.conf"
	// PolicyJSON is the signature policy: allowed and blocked registries, signature requirements.
	PolicyJSON = "/etc/containers/policy.json"
	// SearchRegistries is the drop-in that sets the unqualified-search registries.
	SearchRegistries = "/etc/containers/registries.conf.d/01-image-searchRegistries.conf"
	// SigstoreRegistries is the registries.d file that turns on sigstore signature attachments per scope.
	SigstoreRegistries = "/etc/containers/registries.d/sigstore-registries.yaml"
	// NamespacePolicyDir holds one policy.json per namespace with ImagePolicies: CRI-O uses it instead of
	// PolicyJSON for that namespace's pods.
	NamespacePolicyDir = "/etc/crio/policies"
	// RegistriesDir is the directory of registries.d files (signature storage per registry).
	RegistriesDir = "/etc/containers/registries.d"
	// DropInDir is the directory of registries.conf drop-ins.
	DropInDir = "/etc/containers/registries.conf.d"
	// CredentialProviderDir holds the kubelet's credential provider configurations, one file per platform
	// ("ecr-credential-provider.yaml" on AWS, "generic-credential-provider.yaml" where there is no cloud provider).
	CredentialProviderDir = "/etc/kubernetes/credential-providers"
	// KubeletCredentialProviderDropIn is the kubelet unit drop-in that gives the kubelet the generic credential
	// provider configuration on platforms without a cloud provider of their own.
	KubeletCredentialProviderDropIn = "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf"
	// StorageConf is containers/storage's configuration (overlay size, additional stores), which a
	// ContainerRuntimeConfig replaces.
	StorageConf = "/etc/containers/storage.conf"
	// CRIODropInPrefix starts the path of each CRI-O drop-in a ContainerRuntimeConfig writes, e.g.
	// "/etc/crio/crio.conf.d/01-ctrcfg-logLevel": after CRI-O's 00-default, which they override.
	CRIODropInPrefix = "/etc/crio/crio.conf.d/01-ctrcfg-"
)

// NamespacePolicy returns the path of a namespace's policy: "/etc/crio/policies/team-a.json".
func NamespacePolicy(namespace string) string { return NamespacePolicyDir + "/" + namespace + ".json" }

// IsNamespacePolicy reports whether p is a namespace policy path, and returns the namespace.
func IsNamespacePolicy(p string) (namespace string, ok bool) {
	if path.Dir(p) != NamespacePolicyDir || path.Ext(p) != ".json" {
		return "", false
	}
	return strings.TrimSuffix(path.Base(p), ".json"), true
}

// BaseSearchRegistries is the search list of the node's base registries.conf, which a rendered registries.conf
// starts from and keeps.
var BaseSearchRegistries = []string{"registry.access.redhat.com", "docker.io"}

// baseRegistriesConf is the node's /etc/containers/registries.conf when no MachineConfig replaces it:
// "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']".
var baseRegistriesConf = []byte("unqualified-search-registries = ['" + strings.Join(BaseSearchRegistries, "', '") + "']\n")

// basePolicyJSON is the node's /etc/containers/policy.json when no MachineConfig replaces it: the template every
// pool's base MachineConfig writes (4-space indent, no trailing newline). The render decodes it and starts from it.
var basePolicyJSON = []byte(`{
    "default": [
        {
            "type": "insecureAcceptAnything"
        }
    ],
    "transports":
        {
            "docker-daemon":
                {
                    "": [{"type":"insecureAcceptAnything"}]
                }
        }
}`)

// BaseRegistriesDFiles are the registries.d files the node's OS ships (RHEL's containers-common), by name. A key
// the render writes into SigstoreRegistries that one of these also defines makes containers/image refuse the
// whole directory, failing every pull on the node.
var BaseRegistriesDFiles = map[string][]byte{
	"registry.access.redhat.com.yaml": []byte("docker:\n" +
		"     registry.access.redhat.com:\n" +
		"         sigstore: https://access.redhat.com/webassets/docker/content/sigstore\n"),
	"registry.redhat.io.yaml": []byte("docker:\n" +
		"     registry.redhat.io:\n" +
		"         sigstore: https://registry.redhat.io/containers/sigstore\n"),
}

// Base returns the contents the node has at path when no MachineConfig writes it: a copy of its base file, or
// nil when the node has no file there (the search drop-in, the registries.d file, namespace policies).
func Base(p string) []byte {
	switch p {
	case RegistriesConf:
		return slices.Clone(baseRegistriesConf)
	case PolicyJSON:
		return slices.Clone(basePolicyJSON)
	}
	return nil
}

// File is one file as it lands on a node.
type File struct {
	// Path is the absolute node path, e.g. RegistriesConf.
	Path string
	// Data is the file's contents.
	Data []byte
}

// Equal reports whether f and o are the same path with the same contents.
func (f File) Equal(o File) bool { return f.Path == o.Path && bytes.Equal(f.Data, o.Data) }

// Files are the files one MachineConfig writes, in the order it lists them. A path that is not listed is not
// written: the node keeps its base file there, or has none.
type Files []File

// Get returns the contents written at p, and whether p is written.
func (fs Files) Get(p string) ([]byte, bool) {
	for _, f := range fs {
		if f.Path == p {
			return f.Data, true
		}
	}
	return nil, false
}

// Content returns what the node has at p: the written contents, or the base file, or nil when there is none.
func (fs Files) Content(p string) []byte {
	if data, ok := fs.Get(p); ok {
		return data
	}
	return Base(p)
}

// Paths returns the written paths, in order.
func (fs Files) Paths() []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

// Under returns the written files whose path is in dir (at any depth), in order.
func (fs Files) Under(dir string) Files {
	var out Files
	for _, f := range fs {
		if strings.HasPrefix(f.Path, dir+"/") {
			out = append(out, f)
		}
	}
	return out
}
