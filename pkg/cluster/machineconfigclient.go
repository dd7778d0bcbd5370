package cluster

import (
	"fmt"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	mcfgclient "github.com/openshift/client-go/machineconfiguration/clientset/versioned"
	mcfgscheme "github.com/openshift/client-go/machineconfiguration/clientset/versioned/scheme"
	mcfgv1client "github.com/openshift/client-go/machineconfiguration/clientset/versioned/typed/machineconfiguration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// newMachineConfigClient returns the machineconfiguration.openshift.io clientset for cfg whose v1 client
// (MachineConfigs, MachineConfigPools, ContainerRuntimeConfigs...) decodes responses and watch events with meta
// (typeMeta for NewInformers) instead of apimachinery's SimpleMetaFactory: the same objects, without a full
// encoding/json pass over every 1.4 MB MachineConfig just to read its apiVersion and kind (twice per watch event). It speaks JSON only, which is
// all the API server serves for custom resources. The generated NewForConfig cannot be given the serializer (its
// setConfigDefaults overwrites the config's), so the v1 client is built on a RESTClient of its own, sharing the
// clientset's HTTP client and rate limiter.
func newMachineConfigClient(cfg *rest.Config, meta kjson.MetaFactory) (mcfgclient.Interface, error) {
	shared := rest.CopyConfig(cfg)
	if shared.UserAgent == "" {
		shared.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	// one rate limiter for all the group clients, as the generated NewForConfigAndClient makes it
	if shared.RateLimiter == nil && shared.QPS > 0 {
		if shared.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		shared.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(shared.QPS, shared.Burst)
	}
	httpClient, err := rest.HTTPClientFor(shared)
	if err != nil {
		return nil, err
	}
	generated, err := mcfgclient.NewForConfigAndClient(shared, httpClient)
	if err != nil {
		return nil, err
	}
	v1cfg := rest.CopyConfig(shared)
	gv := mcfgv1.SchemeGroupVersion
	v1cfg.GroupVersion = &gv
	v1cfg.APIPath = "/apis"
	v1cfg.ContentType = runtime.ContentTypeJSON
	v1cfg.AcceptContentTypes = runtime.ContentTypeJSON
	v1cfg.NegotiatedSerializer = newJSONSerializer(mcfgscheme.Scheme, meta)
	rc, err := rest.RESTClientForConfigAndClient(v1cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &machineConfigClientset{Clientset: generated, v1: mcfgv1client.New(rc)}, nil
}

// machineConfigClientset is the generated clientset with its own v1 client.
type machineConfigClientset struct {
	*mcfgclient.Clientset
	v1 *mcfgv1client.MachineconfigurationV1Client
}

// MachineconfigurationV1 returns the v1 client that decodes with typeMeta.
func (c *machineConfigClientset) MachineconfigurationV1() mcfgv1client.MachineconfigurationV1Interface {
	return c.v1
}

// jsonSerializer is a runtime.NegotiatedSerializer that offers only JSON, with the serializer (for objects and
// watch envelopes alike) built on the given MetaFactory; like the generated clients' CodecFactory.WithoutConversion,
// it converts nothing and sets apiVersion and kind on what it encodes.
type jsonSerializer struct {
	scheme *runtime.Scheme
	info   runtime.SerializerInfo
}

func newJSONSerializer(scheme *runtime.Scheme, meta kjson.MetaFactory) jsonSerializer {
	s := kjson.NewSerializerWithOptions(meta, scheme, scheme, kjson.SerializerOptions{})
	return jsonSerializer{scheme: scheme, info: runtime.SerializerInfo{
		MediaType:        runtime.ContentTypeJSON,
		MediaTypeType:    "application",
		MediaTypeSubType: "json",
		EncodesAsText:    true,
		Serializer:       s,
		StreamSerializer: &runtime.StreamSerializerInfo{EncodesAsText: true, Serializer: s, Framer: kjson.Framer},
	}}
}

func (s jsonSerializer) SupportedMediaTypes() []runtime.SerializerInfo {
	return []runtime.SerializerInfo{s.info}
}

func (s jsonSerializer) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	return runtime.WithVersionEncoder{Version: gv, Encoder: e, ObjectTyper: s.scheme}
}

func (s jsonSerializer) DecoderToVersion(d runtime.Decoder, _ runtime.GroupVersioner) runtime.Decoder {
	return runtime.WithoutVersionDecoder{Decoder: d}
}
