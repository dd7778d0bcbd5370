// Command recorder stands in for kubelet image credential provider plugins in the tests of
// test/kubeletcreds. Installed under a provider's name in the kubelet's plugin directory, it appends the
// CredentialProviderRequest the kubelet sends on stdin, with the name it was run as and its arguments, as one
// JSON line to the file $KUBELETCREDS_RECORD, and answers like the plugin it stands for:
//
//   - as crio-credential-provider, like CRI-O's plugin: no credentials, cache key type Registry;
//   - under any other name, like a cloud provider: credentials for the image's registry, with the plugin's
//     name as the user name, so that the test sees whose credentials the kubelet keeps.
//
// Unless $KUBELETCREDS_FAITHFUL is set, every answer carries a zero cache duration, so that the kubelet runs
// the plugin for every image instead of answering from its cache.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// record is one line of the record file.
type record struct {
	Provider string          `json:"provider"`
	Args     []string        `json:"args"`
	Request  json.RawMessage `json:"request"`
}

const (
	apiVersion  = "credentialprovider.kubelet.k8s.io/v1"
	crioPlugin  = "crio-credential-provider"
	recordEnv   = "KUBELETCREDS_RECORD"
	faithfulEnv = "KUBELETCREDS_FAITHFUL"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "recorder:", err)
		os.Exit(1)
	}
}

func run() error {
	name := filepath.Base(os.Args[0])
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var req struct {
		Image string `json:"image"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("request %q: %w", raw, err)
	}
	line, err := json.Marshal(record{Provider: name, Args: os.Args[1:], Request: raw})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(os.Getenv(recordEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	resp := map[string]any{"kind": "CredentialProviderResponse", "apiVersion": apiVersion}
	if name == crioPlugin {
		resp["cacheKeyType"] = "Registry"
	} else {
		registry, _, _ := strings.Cut(req.Image, "/")
		resp["cacheKeyType"] = "Image"
		resp["auth"] = map[string]any{registry: map[string]string{"username": name, "password": "from-" + name}}
	}
	if os.Getenv(faithfulEnv) == "" {
		resp["cacheDuration"] = "0s"
	}
	return json.NewEncoder(os.Stdout).Encode(resp)
}
