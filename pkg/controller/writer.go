package controller

import (
	"context"
	"encoding/json"
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/openshift/client-go/machineconfiguration/clientset/versioned/scheme"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned/typed/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// metadataAnswer asks the API server to answer a request with the object's metadata alone (the server-side
// transformation kube-apiserver applies to GET, LIST and WATCH for `kubectl get -o name` and the metadata client, and
// to a create's or an update's answer as well).
const metadataAnswer = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"

// metadataWriter is the client the controller writes MachineConfigs with: its Create and Update ask for the
// metadata of the object written instead of the whole of it. A generated MachineConfig at the scale of a
// disconnected cluster is 1.4 MB: the API server would encode it once more per write to answer, and the controller
// decode it (about 40 ms of CPU for the two pools' writes of one change at 5,000 objects, on the cores the API
// server is storing them with), only to read its metadata. What the controller keeps of a write (the
// resourceVersion, the object its events name) is the object sent with the metadata the API server gave it.
// Everything else (Get, Delete) is the generated client's.
type metadataWriter struct {
	mcfgclient.MachineConfigsGetter
	client rest.Interface
}

// newMetadataWriter returns the MachineConfig writer of a generated client.
func newMetadataWriter(c mcfgclient.MachineconfigurationV1Interface) mcfgclient.MachineConfigsGetter {
	return metadataWriter{MachineConfigsGetter: c, client: c.RESTClient()}
}

func (w metadataWriter) MachineConfigs() mcfgclient.MachineConfigInterface {
	return metadataMachineConfigs{MachineConfigInterface: w.MachineConfigsGetter.MachineConfigs(), client: w.client}
}

type metadataMachineConfigs struct {
	mcfgclient.MachineConfigInterface
	client rest.Interface
}

func (m metadataMachineConfigs) Create(ctx context.Context, mc *mcfgv1.MachineConfig, opts metav1.CreateOptions) (*mcfgv1.MachineConfig, error) {
	return written(mc, m.client.Post().Resource("machineconfigs").VersionedParams(&opts, scheme.ParameterCodec).Body(mc).
		SetHeader("Accept", metadataAnswer).Do(ctx))
}

func (m metadataMachineConfigs) Update(ctx context.Context, mc *mcfgv1.MachineConfig, opts metav1.UpdateOptions) (*mcfgv1.MachineConfig, error) {
	return written(mc, m.client.Put().Resource("machineconfigs").Name(mc.Name).VersionedParams(&opts, scheme.ParameterCodec).Body(mc).
		SetHeader("Accept", metadataAnswer).Do(ctx))
}

// written returns the MachineConfig the API server stored for a write of sent, from its answer: sent's spec with
// the metadata the server answered (its resourceVersion, UID, generation, managed fields...). The server stores
// the spec as sent: a MachineConfig has no defaults, and the controller writes no field the CRD's schema prunes.
// An API server that answers with the whole object (one without the transformation) is read all the same.
func written(sent *mcfgv1.MachineConfig, res rest.Result) (*mcfgv1.MachineConfig, error) {
	if err := res.Error(); err != nil { // the API server's Status, as the generated client returns it
		return nil, err
	}
	body, _ := res.Raw()
	var answer metav1.PartialObjectMetadata
	if err := json.Unmarshal(body, &answer); err != nil {
		return nil, fmt.Errorf("reading the API server's answer to a write of MachineConfig %s: %w", sent.Name, err)
	}
	out := *sent
	out.TypeMeta = metav1.TypeMeta{APIVersion: mcfgv1.GroupVersion.String(), Kind: "MachineConfig"}
	out.ObjectMeta = answer.ObjectMeta
	return &out, nil
}
