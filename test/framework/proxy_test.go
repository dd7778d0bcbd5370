package framework_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/registries-controller/test/framework"
)

func TestTheProxyCountsRequestsAndHoldsOneUntilItsClientGivesUp(t *testing.T) {
	proxy, err := cp.StartProxy(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	cfg, err := clientcmd.BuildConfigFromFlags("", proxy.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx := t.Context()
	if _, err := kube.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	held := proxy.Hold(func(r framework.Request) bool { return r.Verb == "get" && r.Resource == "configmaps" })
	getCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, err = kube.CoreV1().ConfigMaps("default").Get(getCtx, "x", metav1.GetOptions{})
	if err == nil {
		t.Fatal("a held request answered")
	}
	<-held.Done()
	if _, err := kube.CoreV1().ConfigMaps("default").Get(ctx, "x", metav1.GetOptions{}); err == nil {
		t.Fatal("want NotFound from kube-apiserver")
	}
	reqs := proxy.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests %v, want 3", reqs)
	}
	for i, want := range []framework.Request{
		{Verb: "list", Resource: "configmaps", Namespace: "default"},
		{Verb: "get", Resource: "configmaps", Namespace: "default", Name: "x", Held: true},
		{Verb: "get", Resource: "configmaps", Namespace: "default", Name: "x"},
	} {
		got := reqs[i]
		if got.Verb != want.Verb || got.Resource != want.Resource || got.Namespace != want.Namespace || got.Name != want.Name || got.Held != want.Held {
			t.Errorf("request %d: %+v, want %+v", i, got, want)
		}
	}
}
