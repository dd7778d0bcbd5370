package inputs

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
)

// Kind names, as an admin types them after `kubectl describe`.
const (
	KindImageContentSourcePolicy = "ImageContentSourcePolicy"
	KindImageDigestMirrorSet     = "ImageDigestMirrorSet"
	KindImageTagMirrorSet        = "ImageTagMirrorSet"
	KindClusterImagePolicy       = "ClusterImagePolicy"
	KindImagePolicy              = "ImagePolicy"
	KindImage                    = "Image"
	KindClusterVersion           = "ClusterVersion"
	KindFeatureGate              = "FeatureGate"
	KindMachineConfigPool        = "MachineConfigPool"
	KindInfrastructure           = "Infrastructure"
	KindCRIOCredentialProvider   = "CRIOCredentialProviderConfig"
	KindContainerRuntimeConfig   = "ContainerRuntimeConfig"
)

// Feature gates of gated input kinds: the controller watches such a kind only while its gate is on, as MCO does.
const (
	// GateSigstoreImageVerification turns on ClusterImagePolicies and ImagePolicies.
	GateSigstoreImageVerification configv1.FeatureGateName = "SigstoreImageVerification"
	// GateCRIOCredentialProviderConfig turns on the CRIOCredentialProviderConfig.
	GateCRIOCredentialProviderConfig configv1.FeatureGateName = "CRIOCredentialProviderConfig"
	// GateAdditionalStorageConfig turns on the store lists of a ContainerRuntimeConfig (additionalLayerStores,
	// additionalImageStores, additionalArtifactStores); the kind itself is not gated.
	GateAdditionalStorageConfig configv1.FeatureGateName = "AdditionalStorageConfig"
)

// Object is an API object of one of the input kinds.
type Object interface {
	metav1.Object
	runtime.Object
}

// Kind describes one kind of input object: its API names, and where Inputs holds its objects. Kinds lists them.
type Kind struct {
	// Name is the kind as written in YAML, e.g. "ImageDigestMirrorSet".
	Name string
	// GroupVersion is the API group and version the controller reads, e.g. config.openshift.io/v1.
	GroupVersion schema.GroupVersion
	// install adds the types of GroupVersion to a scheme (AddToScheme).
	install func(*runtime.Scheme) error
	// Resource is the plural resource name, e.g. "imagedigestmirrorsets".
	Resource string
	// Namespaced is true for kinds whose objects live in a namespace (ImagePolicy).
	Namespaced bool
	// Singleton is the one name that counts for kinds read as a single object (the Image "cluster"); "" when
	// every object of the kind counts.
	Singleton string
	// Snapshot is true for the kinds the cluster owns and the render reads for what they report (ClusterVersion,
	// Infrastructure, MachineConfigPool): offline, their manifests are snapshots of a cluster, often abridged to
	// the fields read, not objects to create, so they are not judged by their CRD (docs/semantics.md).
	Snapshot bool
	// Mirrors is true for the kinds that configure mirrors (ICSP, IDMS, ITMS): any of them means a rendered
	// registries.conf, and `migrate-icsp` and `preview` treat them alike.
	Mirrors bool
	// Gate is the feature gate without which objects of this kind do not count (and the controller does not
	// watch them); "" for kinds that always count.
	Gate configv1.FeatureGateName
	// Optional is true for kinds the controller works without: the gated kinds and the FeatureGate. When the API
	// server does not serve one (its CRD is missing), the outputs that do not depend on it are still written.
	Optional bool
	// Status reads and sets the status.conditions of objects of this kind, for the kinds the controller reports
	// on through their status (the signature policies, the CRIOCredentialProviderConfig); nil for the others.
	Status *StatusAccess
	// OwnStatus is true for a kind whose status the controller writes in a shape of its own, not through Status:
	// the ContainerRuntimeConfig's conditions are MCO's (docs/semantics.md §11.5).
	OwnStatus bool
	// copyStatus sets an object's status to another's; nil for kinds without status (ImageContentSourcePolicy).
	copyStatus func(dst, src Object)
	// Configures is the generated output whose rollouts are attributed to objects of this kind: the
	// configuration an admin writes gets a RolledOut event once a write it caused is live. nil for kinds that
	// only inform a render (ClusterVersion, FeatureGate, pools).
	Configures *machineconfigs.Output

	store store
}

// StatusAccess reads and sets an object's status.conditions.
type StatusAccess struct {
	// Conditions returns the object's status.conditions (shared with the object: read them only).
	Conditions func(Object) []metav1.Condition
	// WithConditions returns a deep copy of the object whose status.conditions are conds.
	WithConditions func(o Object, conds []metav1.Condition) Object
}

// conditionsAt returns the StatusAccess of a kind whose conditions are at field.
func conditionsAt[T any, P interface {
	*T
	Object
}](field func(P) *[]metav1.Condition) *StatusAccess {
	return &StatusAccess{
		Conditions: func(o Object) []metav1.Condition { return *field(o.(P)) },
		WithConditions: func(o Object, conds []metav1.Condition) Object {
			cp := o.DeepCopyObject().(P)
			*field(cp) = conds
			return cp
		},
	}
}

// statusAt returns the copyStatus of a kind whose status is at field.
func statusAt[T any, P interface {
	*T
	Object
}, S any](field func(P) *S) func(dst, src Object) {
	return func(dst, src Object) {
		var status S
		if src != nil {
			status = *field(src.DeepCopyObject().(P))
		}
		*field(dst.(P)) = status
	}
}

// CopyStatus sets dst's status to a copy of src's, or to none when src is nil; it does nothing for a kind without
// status. dst and src are objects of the kind. `kubectl apply` leaves an object so: the status subresource of every
// input kind makes the API server ignore the status a manifest holds.
func (k *Kind) CopyStatus(dst, src Object) {
	if k.copyStatus != nil {
		k.copyStatus(dst, src)
	}
}

// store is how Inputs holds the objects of one kind.
type store interface {
	new() Object
	add(in *Inputs, o Object)
	remove(in *Inputs, namespace, name string) bool
	list(in *Inputs) []Object
	// clip makes the next add to in allocate, so that in's lists stop sharing an array with another's.
	clip(in *Inputs)
}

// Kinds are the input kinds, in the order summaries list them.
var Kinds = []*Kind{
	{Name: KindImageContentSourcePolicy, Configures: machineconfigs.Registries, GroupVersion: operatorv1alpha1.GroupVersion, install: operatorv1alpha1.Install, Resource: "imagecontentsourcepolicies", Mirrors: true,
		store: listOf(func(in *Inputs) *[]*operatorv1alpha1.ImageContentSourcePolicy { return &in.ImageContentSourcePolicies })},
	{Name: KindImageDigestMirrorSet, Configures: machineconfigs.Registries, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "imagedigestmirrorsets", Mirrors: true,
		copyStatus: statusAt(func(o *configv1.ImageDigestMirrorSet) *configv1.ImageDigestMirrorSetStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*configv1.ImageDigestMirrorSet { return &in.ImageDigestMirrorSets })},
	{Name: KindImageTagMirrorSet, Configures: machineconfigs.Registries, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "imagetagmirrorsets", Mirrors: true,
		copyStatus: statusAt(func(o *configv1.ImageTagMirrorSet) *configv1.ImageTagMirrorSetStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*configv1.ImageTagMirrorSet { return &in.ImageTagMirrorSets })},
	{Name: KindClusterImagePolicy, Configures: machineconfigs.Registries, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "clusterimagepolicies",
		Gate: GateSigstoreImageVerification, Optional: true,
		Status:     conditionsAt(func(o *configv1.ClusterImagePolicy) *[]metav1.Condition { return &o.Status.Conditions }),
		copyStatus: statusAt(func(o *configv1.ClusterImagePolicy) *configv1.ClusterImagePolicyStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*configv1.ClusterImagePolicy { return &in.ClusterImagePolicies })},
	{Name: KindImagePolicy, Configures: machineconfigs.Registries, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "imagepolicies", Namespaced: true,
		Gate: GateSigstoreImageVerification, Optional: true,
		Status:     conditionsAt(func(o *configv1.ImagePolicy) *[]metav1.Condition { return &o.Status.Conditions }),
		copyStatus: statusAt(func(o *configv1.ImagePolicy) *configv1.ImagePolicyStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*configv1.ImagePolicy { return &in.ImagePolicies })},
	{Name: KindImage, Configures: machineconfigs.Registries, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "images", Singleton: ImageConfigName,
		copyStatus: statusAt(func(o *configv1.Image) *configv1.ImageStatus { return &o.Status }),
		store:      singleton(func(in *Inputs) **configv1.Image { return &in.Image })},
	{Name: KindClusterVersion, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "clusterversions", Singleton: ClusterVersionName, Snapshot: true,
		copyStatus: statusAt(func(o *configv1.ClusterVersion) *configv1.ClusterVersionStatus { return &o.Status }),
		store:      singleton(func(in *Inputs) **configv1.ClusterVersion { return &in.ClusterVersion })},
	{Name: KindFeatureGate, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "featuregates", Singleton: FeatureGateName, Optional: true,
		copyStatus: statusAt(func(o *configv1.FeatureGate) *configv1.FeatureGateStatus { return &o.Status }),
		store:      singleton(func(in *Inputs) **configv1.FeatureGate { return &in.FeatureGate })},
	{Name: KindMachineConfigPool, GroupVersion: mcfgv1.GroupVersion, install: mcfgv1.Install, Resource: "machineconfigpools", Snapshot: true,
		copyStatus: statusAt(func(o *mcfgv1.MachineConfigPool) *mcfgv1.MachineConfigPoolStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*mcfgv1.MachineConfigPool { return &in.Pools })},
	{Name: KindInfrastructure, GroupVersion: configv1.GroupVersion, install: configv1.Install, Resource: "infrastructures", Singleton: InfrastructureName, Snapshot: true,
		copyStatus: statusAt(func(o *configv1.Infrastructure) *configv1.InfrastructureStatus { return &o.Status }),
		store:      singleton(func(in *Inputs) **configv1.Infrastructure { return &in.Infrastructure })},
	{Name: KindCRIOCredentialProvider, Configures: machineconfigs.CredentialProviders, GroupVersion: configv1.GroupVersion, install: configv1.Install,
		Resource: "criocredentialproviderconfigs", Singleton: CRIOCredentialProviderConfigName, Gate: GateCRIOCredentialProviderConfig, Optional: true,
		Status: conditionsAt(func(o *configv1.CRIOCredentialProviderConfig) *[]metav1.Condition { return &o.Status.Conditions }),
		copyStatus: statusAt(func(o *configv1.CRIOCredentialProviderConfig) *configv1.CRIOCredentialProviderConfigStatus {
			return &o.Status
		}),
		store: singleton(func(in *Inputs) **configv1.CRIOCredentialProviderConfig { return &in.CRIOCredentialProviderConfig })},
	{Name: KindContainerRuntimeConfig, Configures: machineconfigs.ContainerRuntime, GroupVersion: mcfgv1.GroupVersion, install: mcfgv1.Install,
		Resource: "containerruntimeconfigs", OwnStatus: true,
		copyStatus: statusAt(func(o *mcfgv1.ContainerRuntimeConfig) *mcfgv1.ContainerRuntimeConfigStatus { return &o.Status }),
		store:      listOf(func(in *Inputs) *[]*mcfgv1.ContainerRuntimeConfig { return &in.ContainerRuntimeConfigs })},
}

// AddToScheme adds the types of every input kind's API group to s, e.g. for an event recorder, which must know
// the type of an object an informer returns without type metadata.
func AddToScheme(s *runtime.Scheme) error {
	for _, k := range Kinds {
		if err := k.install(s); err != nil {
			return fmt.Errorf("%s: %w", k.Name, err)
		}
	}
	return nil
}

// KindNamed returns the kind with the given name ("ImageDigestMirrorSet"), or nil.
func KindNamed(name string) *Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// KindOf returns the kind of a manifest's apiVersion and kind, or nil. Only the group must match: a manifest
// of another version of the same kind is decoded into the version the controller reads.
func KindOf(apiVersion, kind string) *Kind {
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	for _, k := range Kinds {
		if k.Name == kind && k.GroupVersion.Group == group {
			return k
		}
	}
	return nil
}

// GroupVersionResource returns the resource the controller lists and watches.
func (k *Kind) GroupVersionResource() schema.GroupVersionResource {
	return k.GroupVersion.WithResource(k.Resource)
}

// New returns an empty object of the kind, to decode into.
func (k *Kind) New() Object { return k.store.new() }

// Counts reports whether an object of this kind with this name is read at all: every object, or only the
// singleton's name.
func (k *Kind) Counts(name string) bool { return k.Singleton == "" || name == k.Singleton }

// Objects returns the objects of the kind that in holds.
func (k *Kind) Objects(in *Inputs) []Object { return k.store.list(in) }

// Add adds o, an object of the kind (as returned by New or a lister), replacing an object with the same
// namespace and name. Objects of a singleton kind with another name are not read and are not added.
func (in *Inputs) Add(k *Kind, o Object) {
	if !k.Counts(o.GetName()) {
		return
	}
	k.store.remove(in, o.GetNamespace(), o.GetName())
	k.store.add(in, o)
}

// AddUnique adds o as Add does, for a caller that knows in holds no object of the kind with o's namespace and name,
// e.g. one filling in from an informer's cache, whose keys are unique. It skips Add's search for an object to
// replace: filling in 5,000 objects with Add takes 12.5 million comparisons of names (85 ms of every sync of a
// cluster of that size, measured in test/integration's BenchmarkScaleBurst).
func (in *Inputs) AddUnique(k *Kind, o Object) {
	if k.Counts(o.GetName()) {
		k.store.add(in, o)
	}
}

// Remove removes the object of kind k with this namespace and name, and reports whether there was one.
func (in *Inputs) Remove(k *Kind, namespace, name string) bool {
	return k.store.remove(in, namespace, name)
}

// Get returns the object ref names, or nil.
func (in *Inputs) Get(ref ObjectRef) Object {
	k := KindNamed(ref.Kind)
	if k == nil {
		return nil
	}
	for _, o := range k.store.list(in) {
		if o.GetName() == ref.Name && o.GetNamespace() == ref.Namespace {
			return o
		}
	}
	return nil
}

// Clone returns a copy of in that Add and Remove can change without changing in; the objects are shared.
func (in *Inputs) Clone() *Inputs {
	out := *in
	for _, k := range Kinds {
		k.store.clip(&out)
	}
	return &out
}

// Summary says in one line what in holds, e.g. "1 Image, 2 ImageDigestMirrorSets"; "no input objects" when empty.
func (in *Inputs) Summary() string {
	var parts []string
	for _, k := range Kinds {
		if n := len(k.store.list(in)); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.Name))
		}
	}
	if len(parts) == 0 {
		return "no input objects"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// MirrorObjects returns how many objects of the mirror kinds in holds.
func (in *Inputs) MirrorObjects() int {
	n := 0
	for _, k := range Kinds {
		if k.Mirrors {
			n += len(k.store.list(in))
		}
	}
	return n
}

// listStore holds the objects of a kind read as a list, in a slice field of Inputs.
type listStore[T any, P interface {
	*T
	Object
}] struct {
	field func(*Inputs) *[]P
}

func listOf[T any, P interface {
	*T
	Object
}](field func(*Inputs) *[]P) store {
	return listStore[T, P]{field: field}
}

func (s listStore[T, P]) new() Object { return P(new(T)) }

func (s listStore[T, P]) add(in *Inputs, o Object) {
	f := s.field(in)
	*f = append(*f, o.(P))
}

func (s listStore[T, P]) remove(in *Inputs, namespace, name string) bool {
	f := s.field(in)
	i := slices.IndexFunc(*f, func(o P) bool { return o.GetName() == name && o.GetNamespace() == namespace })
	if i < 0 {
		return false
	}
	*f = slices.Delete(slices.Clone(*f), i, i+1) // the slice may be shared with a caller's
	return true
}

func (s listStore[T, P]) clip(in *Inputs) {
	f := s.field(in)
	*f = slices.Clip(*f)
}

func (s listStore[T, P]) list(in *Inputs) []Object {
	f := s.field(in)
	out := make([]Object, len(*f))
	for i, o := range *f {
		out[i] = o
	}
	return out
}

// singletonStore holds the one object of a singleton kind, in a pointer field of Inputs.
type singletonStore[T any, P interface {
	*T
	Object
}] struct {
	field func(*Inputs) *P
}

func singleton[T any, P interface {
	*T
	Object
}](field func(*Inputs) *P) store {
	return singletonStore[T, P]{field: field}
}

func (s singletonStore[T, P]) new() Object { return P(new(T)) }

func (s singletonStore[T, P]) add(in *Inputs, o Object) { *s.field(in) = o.(P) }

func (s singletonStore[T, P]) remove(in *Inputs, _, name string) bool {
	f := s.field(in)
	if *f == nil || (*f).GetName() != name {
		return false
	}
	*f = nil
	return true
}

func (s singletonStore[T, P]) clip(*Inputs) {}

func (s singletonStore[T, P]) list(in *Inputs) []Object {
	if o := *s.field(in); o != nil {
		return []Object{o}
	}
	return nil
}
