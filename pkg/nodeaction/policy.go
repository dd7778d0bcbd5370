package nodeaction

import (
	"errors"
	"fmt"
	"path"
	"strings"

	opv1 "github.com/openshift/api/operator/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/registries-controller/pkg/nodefiles"
)

// Paths of MCO's default node disruption policies that this project does not render (docs/semantics.md §8.2).
const (
	// kubeletAuthFile is the node's pull secret.
	kubeletAuthFile = "/var/lib/kubelet/config.json"
	// gpgNoRebootPath is the release GPG key.
	gpgNoRebootPath = "/etc/machine-config-daemon/no-reboot/containers-gpg.pub"
	// nmstateConfigDir holds first-boot-only network configuration.
	nmstateConfigDir = "/etc/nmstate/openshift"
	// userCABundlePath is the additional trusted CA bundle.
	userCABundlePath = "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt"
	// updateCATrustService refreshes the trust store from userCABundlePath.
	updateCATrustService = "coreos-update-ca-trust.service"
)

// Policy is a cluster's node disruption policies for files: for each changed file, the node takes the
// actions of the entry for its path, or else of its closest enclosing directory; a file no entry covers
// reboots the node (docs/semantics.md §8.2). Build one with DefaultPolicy, PolicyFromMachineConfiguration
// or ParsePolicy. For example, the default entry
//
//	{Path: "/etc/crio/policies", Actions: [{Type: Reload, Reload: {ServiceName: "crio.service"}}]}
//
// reloads CRI-O when /etc/crio/policies/team-a.json is added, changed or removed.
type Policy struct {
	// Files are the file entries, in the order of the cluster's list (of two entries for the same path,
	// the first is used, as the daemon does).
	Files []opv1.NodeDisruptionPolicyStatusFile
	// Source says where the entries come from, e.g. "the machine-config daemon's defaults".
	Source string
}

// DefaultPolicy returns MCO's default node disruption policies for files, what a cluster without an admin's
// spec.nodeDisruptionPolicy uses: registries.conf Special; policy.json, the registries.d and /etc/crio/policies
// directories and the release GPG key reload CRI-O; the pull secret and /etc/nmstate/openshift need nothing;
// the user CA bundle restarts coreos-update-ca-trust.service and CRI-O; a credential provider file (the directory
// /etc/kubernetes/credential-providers) restarts the kubelet, and the kubelet drop-in of the generic provider is a
// daemon-reload and a kubelet restart (docs/semantics.md §10.6). Nothing covers registries.conf.d, so a changed
// search drop-in reboots.
func DefaultPolicy() Policy {
	reload := func(service string) opv1.NodeDisruptionPolicyStatusAction {
		return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.ReloadStatusAction, Reload: &opv1.ReloadService{ServiceName: opv1.NodeDisruptionPolicyServiceName(service)}}
	}
	restart := func(service string) opv1.NodeDisruptionPolicyStatusAction {
		return opv1.NodeDisruptionPolicyStatusAction{Type: opv1.RestartStatusAction, Restart: &opv1.RestartService{ServiceName: opv1.NodeDisruptionPolicyServiceName(service)}}
	}
	daemonReload := opv1.NodeDisruptionPolicyStatusAction{Type: opv1.DaemonReloadStatusAction}
	of := func(t opv1.NodeDisruptionPolicyStatusActionType) opv1.NodeDisruptionPolicyStatusAction {
		return opv1.NodeDisruptionPolicyStatusAction{Type: t}
	}
	files := func(p string, actions ...opv1.NodeDisruptionPolicyStatusAction) opv1.NodeDisruptionPolicyStatusFile {
		return opv1.NodeDisruptionPolicyStatusFile{Path: p, Actions: actions}
	}
	return Policy{
		Source: "the machine-config daemon's defaults",
		Files: []opv1.NodeDisruptionPolicyStatusFile{
			files(kubeletAuthFile, of(opv1.NoneStatusAction)),
			files(gpgNoRebootPath, reload(crioService)),
			files(nodefiles.PolicyJSON, reload(crioService)),
			files(nodefiles.RegistriesConf, of(opv1.SpecialStatusAction)),
			files(nodefiles.RegistriesDir, reload(crioService)),
			files(nodefiles.NamespacePolicyDir, reload(crioService)),
			files(nmstateConfigDir, of(opv1.NoneStatusAction)),
			files(userCABundlePath, restart(updateCATrustService), restart(crioService)),
			files(nodefiles.CredentialProviderDir, restart(kubeletService)),
			files(nodefiles.KubeletCredentialProviderDropIn, daemonReload, restart(kubeletService)),
		},
	}
}

// PolicyFromMachineConfiguration returns the policies of a MachineConfiguration `cluster`: its
// status.nodeDisruptionPolicyStatus.clusterPolicies, which the operator computes and the daemon reads, when
// present and up to date (status.observedGeneration equals metadata.generation); otherwise its
// spec.nodeDisruptionPolicy merged over the defaults as the operator merges them (an admin's entry replaces
// the default entry with the same path, in place; other admin entries follow the defaults, in their order).
// It fails on an action the daemon cannot run (a Reload or Restart without a service, an unknown type).
func PolicyFromMachineConfiguration(mc *opv1.MachineConfiguration) (Policy, error) {
	status := mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies
	var p Policy
	if statusPresent(status) && mc.Status.ObservedGeneration == mc.Generation {
		p = Policy{Files: status.Files, Source: fmt.Sprintf("MachineConfiguration %q status.nodeDisruptionPolicyStatus.clusterPolicies", mc.Name)}
	} else {
		p = mergeOverDefaults(mc.Spec.NodeDisruptionPolicy.Files)
		p.Source = fmt.Sprintf("MachineConfiguration %q spec.nodeDisruptionPolicy over the defaults", mc.Name)
	}
	if err := p.validate(); err != nil {
		return Policy{}, fmt.Errorf("MachineConfiguration %q: %w", mc.Name, err)
	}
	return p, nil
}

func statusPresent(s opv1.NodeDisruptionPolicyClusterStatus) bool {
	return len(s.Files) > 0 || len(s.Units) > 0 || len(s.SSHKey.Actions) > 0
}

// mergeOverDefaults merges an admin's file entries over the default ones, as the operator does.
func mergeOverDefaults(spec []opv1.NodeDisruptionPolicySpecFile) Policy {
	p := DefaultPolicy()
	defaults := len(p.Files)
	for _, f := range spec {
		status := opv1.NodeDisruptionPolicyStatusFile{Path: f.Path, Actions: []opv1.NodeDisruptionPolicyStatusAction{}}
		for _, a := range f.Actions {
			status.Actions = append(status.Actions, opv1.NodeDisruptionPolicyStatusAction{
				Type: opv1.NodeDisruptionPolicyStatusActionType(a.Type), Reload: a.Reload, Restart: a.Restart,
			})
		}
		replaced := false
		for i := range defaults {
			if p.Files[i].Path == f.Path {
				p.Files[i], replaced = status, true
				break
			}
		}
		if !replaced {
			p.Files = append(p.Files, status)
		}
	}
	return p
}

// validate reports every action the daemon cannot run.
func (p Policy) validate() error {
	var errs []error
	for i, f := range p.Files {
		for j, a := range f.Actions {
			at := fmt.Sprintf("files[%d] (%s) actions[%d]", i, f.Path, j)
			switch a.Type {
			case opv1.ReloadStatusAction:
				if a.Reload == nil || a.Reload.ServiceName == "" {
					errs = append(errs, fmt.Errorf("%s: type Reload needs reload.serviceName", at))
				}
			case opv1.RestartStatusAction:
				if a.Restart == nil || a.Restart.ServiceName == "" {
					errs = append(errs, fmt.Errorf("%s: type Restart needs restart.serviceName", at))
				}
			case opv1.RebootStatusAction, opv1.DrainStatusAction, opv1.DaemonReloadStatusAction, opv1.NoneStatusAction, opv1.SpecialStatusAction:
			default:
				errs = append(errs, fmt.Errorf("%s: unknown type %q", at, a.Type))
			}
		}
	}
	return errors.Join(errs...)
}

// ParsePolicy reads a MachineConfiguration, YAML or JSON (e.g. `oc get machineconfiguration cluster -o
// yaml`), and returns its policies as PolicyFromMachineConfiguration does.
func ParsePolicy(data []byte) (Policy, error) {
	mc := &opv1.MachineConfiguration{}
	if err := yaml.Unmarshal(data, mc); err != nil {
		return Policy{}, fmt.Errorf("not a MachineConfiguration: %w", err)
	}
	if mc.Kind != "MachineConfiguration" {
		return Policy{}, fmt.Errorf("kind %q is not MachineConfiguration", mc.Kind)
	}
	return PolicyFromMachineConfiguration(mc)
}

// lookup returns the entry that covers a node path: the path's own entry, or else the entry of its closest
// enclosing directory (the longest entry path that is a whole-component prefix: /etc/crio/pol does not cover
// /etc/crio/policies/a.json). Of two matches of the same length the first wins, as in the daemon.
func (p Policy) lookup(nodePath string) (opv1.NodeDisruptionPolicyStatusFile, bool) {
	var best opv1.NodeDisruptionPolicyStatusFile
	found := false
	for _, f := range p.Files {
		covers := nodePath == f.Path || strings.HasPrefix(path.Clean(nodePath), path.Clean(f.Path)+"/")
		if covers && (!found || len(f.Path) > len(best.Path)) {
			best, found = f, true
		}
	}
	return best, found
}

// actionFor returns what the node does for a change of nodePath, and a phrase naming the entry used, e.g.
// `node disruption policy "/etc/containers/policy.json": Reload crio.service`. registriesSafe says whether
// every registries.conf change is safe: a Special action reloads CRI-O and drains unless it is.
func (p Policy) actionFor(nodePath string, registriesSafe bool) (Action, string) {
	entry, ok := p.lookup(nodePath)
	if !ok {
		return reboot, "no node disruption policy covers it, so the node reboots"
	}
	a := none
	var names []string
	for _, x := range entry.Actions {
		a = merge(a, statusAction(x, registriesSafe))
		names = append(names, describeStatusAction(x))
	}
	if len(names) == 0 {
		names = []string{"no action"}
	}
	return a, fmt.Sprintf("node disruption policy %q: %s", entry.Path, strings.Join(names, ", "))
}

// statusAction is what one policy action does (docs/semantics.md §8.2, §8.3).
func statusAction(x opv1.NodeDisruptionPolicyStatusAction, registriesSafe bool) Action {
	switch x.Type {
	case opv1.RebootStatusAction:
		return reboot
	case opv1.DrainStatusAction:
		return Action{Drain: true}
	case opv1.ReloadStatusAction:
		return Action{Steps: []Step{{Kind: StepReload, Service: string(x.Reload.ServiceName)}}}
	case opv1.RestartStatusAction:
		return Action{Steps: []Step{{Kind: StepRestart, Service: string(x.Restart.ServiceName)}}}
	case opv1.DaemonReloadStatusAction:
		return Action{Steps: []Step{{Kind: StepDaemonReload}}}
	case opv1.SpecialStatusAction:
		if registriesSafe {
			return reloadCRIO
		}
		return drainAndReloadCRIO
	}
	return none
}

func describeStatusAction(x opv1.NodeDisruptionPolicyStatusAction) string {
	switch {
	case x.Type == opv1.ReloadStatusAction && x.Reload != nil:
		return fmt.Sprintf("Reload %s", x.Reload.ServiceName)
	case x.Type == opv1.RestartStatusAction && x.Restart != nil:
		return fmt.Sprintf("Restart %s", x.Restart.ServiceName)
	}
	return string(x.Type)
}
