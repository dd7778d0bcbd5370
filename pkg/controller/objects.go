package controller

import (
	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/openshift/registries-controller/pkg/registries"
)

// Scheme knows every kind the controller records events about; the event recorder needs it to
// reference objects that come from informers without their type metadata.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(configv1.Install(s))
	utilruntime.Must(operatorv1alpha1.Install(s))
	utilruntime.Must(mcfgv1.Install(s))
	return s
}

// lookupObject returns the cached object a problem or warning names, or nil when it is gone.
func (c *Controller) lookupObject(ref registries.ObjectRef) runtime.Object {
	var obj runtime.Object
	var err error
	switch ref.Kind {
	case registries.KindImageContentSourcePolicy:
		obj, err = c.icsps.Get(ref.Name)
	case registries.KindImageDigestMirrorSet:
		obj, err = c.idmss.Get(ref.Name)
	case registries.KindImageTagMirrorSet:
		obj, err = c.itmss.Get(ref.Name)
	case registries.KindImage:
		obj, err = c.images.Get(ref.Name)
	case registries.KindClusterVersion:
		obj, err = c.versions.Get(ref.Name)
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	return obj
}
