package render

// MachineConfig exposes machineConfig to the tests of the Ignition encoding.
var MachineConfig = machineConfig
