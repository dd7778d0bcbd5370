// Package registries contains shared infrastructure to build/update /etc/containers/registries.conf
// based on cluster-wide configuration.
//
// NOTE: This has users outside of the machine-config-operator repository!
package registries
