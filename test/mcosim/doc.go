// Package mcosim plays the machine-config-operator (MCO) for tests that run against a bare API server
// (test/framework): as seen through the API, it renders each MachineConfigPool's MachineConfigs into a
// rendered config and rolls simulated machines to it, so that rollout feedback can be tested end to end.
//
// Render controller. For every pool, the MachineConfigs its spec.machineConfigSelector matches (rendered-*
// left out) are merged as MCO merges them, with Ignition's own merge in MCO's order (pkg/renderedconfig: the
// worker role's first, then by name; a later file replaces an earlier one at its path). The result, Ignition
// 3.5.0 as encoding/json writes it, becomes the MachineConfig
// rendered-<pool>-<hash>, with hash the first 32 hex digits of the SHA-256 of its spec.config, owned by the
// pool and annotated machineconfiguration.openshift.io/generated-by-controller-version; the pool's
// spec.configuration names it, with the merged MachineConfigs as its source. A pool nothing selects is
// RenderDegraded. Like MCO's template controller, the simulator also creates a MachineConfig 00-<pool> for
// each built-in pool, writing BaseFilePath, so that a pool has a rendered config before anything else
// exists (Options.NoBaseConfigs leaves it out); Options.RenderedBytes adds 01-<pool>-padding, sized so that
// the rendered MachineConfig is as large as a real cluster's.
//
// Daemons. Each pool has simulated machines (Options.Nodes, DefaultNodes). Machines that never ran a config
// boot on the pool's spec.configuration at once, as after an install. When spec.configuration changes, the
// machines update spec.maxUnavailable (default 1) at a time, one step per Options.StepDelay, and the status,
// written through the status subresource, reports what MCO reports. With 3 machines and a new rendered
// config B replacing A:
//
//	observedGeneration  configuration  updated ready unavailable  Updated Updating
//	new                 A              0       0     1            False   True     (worker-0 updating)
//	new                 A              1       1     1            False   True     (worker-1 updating)
//	new                 A              2       2     1            False   True     (worker-2 updating)
//	new                 B              3       3     0            True    False
//
// status.configuration keeps the old config until every machine runs the new one. A change during a
// rollout supersedes it: the updating machine finishes and then every machine goes on to the newest config.
// Pause and Resume hold and release a rollout, as spec.paused does (which the simulator honours too);
// Degrade makes a machine fail and stops the rollout, Heal lets it go on; SetNodes changes the machine
// count.
//
// Usage, with cp a *framework.ControlPlane whose built-in pools exist:
//
//	sim := mcosim.StartForTest(t, cp.MachineConfig, mcosim.Options{StepDelay: 50 * time.Millisecond})
//	// ... the controller writes 99-worker-generated-registries ...
//	rendered, err := sim.WaitUpdated(ctx, "worker")
//	if err != nil {
//		t.Fatal(err)
//	}
//	files, err := sim.RenderedFiles(ctx, "worker")
//	// files["/etc/containers/registries.conf"] is what every worker runs, from rendered.
//
// Run one simulator at a time against an API server: two would fight over the pools' status.
package mcosim
