package controller

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/openshift/registries-controller/pkg/inputs"
)

// Scheme knows every kind the controller records events about (the input kinds, whose API groups hold the
// MachineConfigs too); the event recorder needs it to reference objects that come from informers without their
// type metadata.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(inputs.AddToScheme(s))
	return s
}
