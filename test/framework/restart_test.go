package framework_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// storageDownTimeout bounds a request while etcd is stopped: kube-apiserver may wait for it rather than fail.
const storageDownTimeout = time.Second

func TestTheAPIServerStartsAgainOnItsPortAndTheSameClientsReconnect(t *testing.T) {
	ctx := t.Context()
	want := createConfigMap(t, "kept-across-an-api-server-restart")
	t.Cleanup(func() { startAgain(t, cp.StartAPIServer) })

	if err := cp.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	_, err := cp.Kube.CoreV1().ConfigMaps(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("with kube-apiserver stopped: Get = %v, want a connection refused", err)
	}

	if err := cp.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	assertConfigMap(t, want)
	out, _, err := cp.Kubectl(ctx, nil, "get", "configmap", "-n", want.Namespace, want.Name, "-o", "jsonpath={.metadata.uid}")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want.UID) {
		t.Errorf("kubectl with the kubeconfig of before: uid = %q, want %q", out, want.UID)
	}
}

func TestEtcdStartsAgainWithItsDataAndTheAPIServerReconnects(t *testing.T) {
	ctx := t.Context()
	want := createConfigMap(t, "kept-across-an-etcd-restart")
	t.Cleanup(func() { startAgain(t, cp.StartEtcd) })

	if err := cp.StopEtcd(); err != nil {
		t.Fatal(err)
	}
	down, cancel := context.WithTimeout(ctx, storageDownTimeout)
	defer cancel()
	if _, err := cp.Kube.CoreV1().ConfigMaps(want.Namespace).Get(down, want.Name, metav1.GetOptions{}); err == nil {
		t.Errorf("with etcd stopped: Get succeeded, want an error")
	} else {
		t.Logf("with etcd stopped: Get: %v", err)
	}

	if err := cp.StartEtcd(); err != nil {
		t.Fatal(err)
	}
	assertConfigMap(t, want)
	createConfigMap(t, "written-after-an-etcd-restart")
}

// createConfigMap creates a ConfigMap named name in the namespace "default", deleted at the end of the test.
func createConfigMap(t *testing.T, name string) *corev1.ConfigMap {
	t.Helper()
	configMaps := cp.Kube.CoreV1().ConfigMaps(metav1.NamespaceDefault)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Data:       map[string]string{"written-by": t.Name()},
	}
	created, err := configMaps.Create(t.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = configMaps.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return created
}

// assertConfigMap checks that want is stored unchanged, with the clients made before any restart.
func assertConfigMap(t *testing.T, want *corev1.ConfigMap) {
	t.Helper()
	got, err := cp.Kube.CoreV1().ConfigMaps(want.Namespace).Get(t.Context(), want.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != want.UID || got.ResourceVersion != want.ResourceVersion || got.Data["written-by"] != t.Name() {
		t.Errorf("after the restart: uid %s, resourceVersion %s, data %v; want uid %s, resourceVersion %s, data %v",
			got.UID, got.ResourceVersion, got.Data, want.UID, want.ResourceVersion, want.Data)
	}
}

// startAgain starts a part of the control plane that a failed test may have left stopped, for the next tests.
func startAgain(t *testing.T, start func() error) {
	if err := start(); err != nil {
		t.Errorf("starting again for the next tests: %v", err)
	}
}
