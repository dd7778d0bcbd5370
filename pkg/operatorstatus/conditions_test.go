package operatorstatus

import (
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/registries-controller/pkg/reasons"
)

var (
	t0   = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	opts = Options{Version: "4.22.0", Namespace: "openshift-registries-controller", GracePeriod: 5 * time.Minute}
)

// verdict is a condition as the tests expect it: status and reason.
type verdict struct {
	status configv1.ConditionStatus
	reason string
}

func (v verdict) String() string { return string(v.status) + "/" + v.reason }

var (
	fine             = verdict{configv1.ConditionTrue, reasons.AsExpected}
	notProgressing   = verdict{configv1.ConditionFalse, reasons.AsExpected}
	notDegraded      = verdict{configv1.ConditionFalse, reasons.AsExpected}
	rollingOut       = verdict{configv1.ConditionTrue, reasons.RollingOut}
	unavailableNow   = verdict{configv1.ConditionFalse, reasons.NotReady}
	degradedBy       = func(reason string) verdict { return verdict{configv1.ConditionTrue, reason} }
	notUpgradeableBy = func(reason string) verdict { return verdict{configv1.ConditionFalse, reason} }
)

// verdicts returns the Available, Progressing, Degraded and Upgradeable verdicts of r, checking their order.
func verdicts(t *testing.T, r Report) [4]verdict {
	t.Helper()
	var out [4]verdict
	order := []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable}
	if len(r.Conditions) != len(order) {
		t.Fatalf("%d conditions, want 4: %+v", len(r.Conditions), r.Conditions)
	}
	for i, c := range r.Conditions {
		if c.Type != order[i] {
			t.Fatalf("condition %d is %s, want %s", i, c.Type, order[i])
		}
		if c.Message == "" {
			t.Errorf("%s has no message", c.Type)
		}
		if !c.LastTransitionTime.IsZero() {
			t.Errorf("%s carries a lastTransitionTime; Apply sets it", c.Type)
		}
		out[i] = verdict{c.Status, c.Reason}
	}
	return out
}

func invalidSince(since time.Time) *Problem {
	return &Problem{Since: since, Objects: []string{`ImageContentSourcePolicy "team-a"`},
		Details: []string{`ImageContentSourcePolicy "team-a": spec.repositoryDigestMirrors[0].mirrors[0]: "https://m.example.com/team-a": a mirror must not carry a scheme`}}
}

func TestTheConditionsSayWhatTheControllerKnows(t *testing.T) {
	now := t0.Add(time.Hour)
	for _, tc := range []struct {
		name string
		s    Snapshot
		want [4]verdict
		// recheck is when the report changes by time alone; zero for never.
		recheck time.Time
	}{
		{
			name: "a synced controller with nothing wrong is available and nothing else",
			s:    Snapshot{Synced: true},
			want: [4]verdict{fine, notProgressing, notDegraded, fine},
		},
		{
			name: "invalid input within the grace period is not reported yet, and the report is due when it ends",
			s:    Snapshot{Synced: true, Invalid: invalidSince(now.Add(-time.Minute))},
			want: [4]verdict{fine, notProgressing, notDegraded, fine}, recheck: now.Add(4 * time.Minute),
		},
		{
			name: "invalid input past the grace period degrades and blocks minor upgrades",
			s:    Snapshot{Synced: true, Invalid: invalidSince(now.Add(-5 * time.Minute))},
			want: [4]verdict{fine, notProgressing, degradedBy(reasons.InvalidMirrorConfiguration), notUpgradeableBy(reasons.InvalidMirrorConfiguration)},
		},
		{
			name: "failing syncs past the grace period degrade",
			s: Snapshot{Synced: true, Failing: &Problem{Since: now.Add(-10 * time.Minute),
				Details: []string{`update MachineConfig 99-worker-generated-registries: forbidden`}}},
			want: [4]verdict{fine, notProgressing, degradedBy(reasons.SyncFailing), notUpgradeableBy(reasons.SyncFailing)},
		},
		{
			name: "failing syncs within the grace period are a transient error",
			s:    Snapshot{Synced: true, Failing: &Problem{Since: now.Add(-time.Second), Details: []string{"connection refused"}}},
			want: [4]verdict{fine, notProgressing, notDegraded, fine}, recheck: now.Add(5*time.Minute - time.Second),
		},
		{
			name: "a MachineConfig too large degrades at once: no retry helps",
			s: Snapshot{Synced: true, TooLarge: &Problem{Since: now, Objects: []string{`MachineConfig "99-worker-generated-registries"`},
				Details: []string{"2700000 bytes of Ignition config, more than the API server accepts in one request"}}},
			want: [4]verdict{fine, notProgressing, degradedBy(reasons.MachineConfigTooLarge), notUpgradeableBy(reasons.MachineConfigTooLarge)},
		},
		{
			name: "a write rolling out is progressing",
			s:    Snapshot{Synced: true, Rollouts: []Rollout{{Pool: "master"}, {Pool: "worker"}}},
			want: [4]verdict{fine, rollingOut, notDegraded, fine},
		},
		{
			name: "a pool degraded during the rollout degrades, and only the other pool is progressing",
			s:    Snapshot{Synced: true, Rollouts: []Rollout{{Pool: "master"}, {Pool: "worker", Degraded: "NodeDegraded: Node worker-1 is reporting: \"boom\""}}},
			want: [4]verdict{fine, rollingOut, degradedBy(reasons.RolloutDegraded), notUpgradeableBy(reasons.RolloutDegraded)},
		},
		{
			name: "the most pressing problem gives the reason: too large before failing before invalid before a degraded pool",
			s: Snapshot{Synced: true, Invalid: invalidSince(t0), Failing: &Problem{Since: t0, Details: []string{"x"}},
				TooLarge: &Problem{Since: now, Details: []string{"y"}}, Rollouts: []Rollout{{Pool: "worker", Degraded: "z"}}},
			want: [4]verdict{fine, notProgressing, degradedBy(reasons.MachineConfigTooLarge), notUpgradeableBy(reasons.MachineConfigTooLarge)},
		},
		{
			name: "a readiness problem past the grace period makes the controller unavailable",
			s:    Snapshot{Synced: true, NotReady: &Problem{Since: now.Add(-6 * time.Minute), Details: []string{"the API server does not serve ImageTagMirrorSet"}}},
			want: [4]verdict{unavailableNow, notProgressing, notDegraded, fine},
		},
		{
			name: "a readiness problem past the grace period is reported before any sync could run",
			s:    Snapshot{NotReady: &Problem{Since: now.Add(-6 * time.Minute), Details: []string{"the API server does not serve ImageTagMirrorSet"}}},
			want: [4]verdict{unavailableNow, notProgressing, notDegraded, fine},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Desired(tc.s, opts, now)
			if !ok {
				t.Fatal("nothing to report")
			}
			if got := verdicts(t, r); got != tc.want {
				t.Errorf("Available, Progressing, Degraded, Upgradeable = %v, want %v", got, tc.want)
			}
			if !r.Recheck.Equal(tc.recheck) {
				t.Errorf("recheck at %v, want %v", r.Recheck, tc.recheck)
			}
		})
	}
}

func TestNothingIsReportedBeforeTheFirstSync(t *testing.T) {
	for _, s := range []Snapshot{
		{},
		{NotReady: &Problem{Since: t0, Details: []string{"informer caches not synced yet"}}},
		{Invalid: invalidSince(t0.Add(-time.Hour))},
	} {
		if r, ok := Desired(s, opts, t0.Add(time.Minute)); ok {
			t.Errorf("%+v: reported %+v before the first sync and within the grace period", s, r)
		}
	}
}

func TestTheMessagesNameTheObjectsAndTheFix(t *testing.T) {
	now := t0.Add(10 * time.Minute)
	s := Snapshot{Synced: true, Invalid: invalidSince(t0),
		Rollouts: []Rollout{{Pool: "worker", Degraded: `NodeDegraded: Node worker-1 is reporting: "disk full"`}}}
	r, _ := Desired(s, opts, now)
	want := `The mirror configuration has been invalid since 2026-12-01T10:00:00Z, so no MachineConfig follows it and ` +
		`the nodes keep the last valid one: ImageContentSourcePolicy "team-a": spec.repositoryDigestMirrors[0].mirrors[0]: ` +
		`"https://m.example.com/team-a": a mirror must not carry a scheme. Fix ImageContentSourcePolicy "team-a"; ` +
		"`oc describe` shows each object's problems as InvalidMirrorConfiguration events.\n" +
		`The mirror configuration cannot roll out to pool worker, which is degraded: NodeDegraded: Node worker-1 is ` +
		"reporting: \"disk full\". Fix the pool (`oc describe machineconfigpool worker`); its nodes keep their previous " +
		"configuration until then."
	if got := r.Conditions[2].Message; got != want {
		t.Errorf("Degraded message:\n%s\nwant:\n%s", got, want)
	}
	if got := r.Conditions[3].Message; !strings.HasPrefix(got, "Minor upgrades wait until the nodes can receive the mirror configuration again") ||
		!strings.HasSuffix(got, want) {
		t.Errorf("Upgradeable message does not quote the problems: %s", got)
	}

	progressing, _ := Desired(Snapshot{Synced: true, Rollouts: []Rollout{{Pool: "master"}, {Pool: "worker"}}}, opts, now)
	wantProgressing := "Rolling out the mirror configuration to pools master, worker: the machine-config operator updates the " +
		"nodes one by one (`oc get machineconfigpool master worker`; `registries-controller wait` blocks until they all run it)."
	if got := progressing.Conditions[1].Message; got != wantProgressing {
		t.Errorf("Progressing message:\n%s\nwant:\n%s", got, wantProgressing)
	}
}

func TestAProblemWithManyDetailsQuotesFiveAndCountsTheRest(t *testing.T) {
	p := &Problem{Since: t0}
	for i := range 8 {
		p.Objects = append(p.Objects, fmt.Sprintf("ImageDigestMirrorSet %q", fmt.Sprint("o", i)))
		p.Details = append(p.Details, fmt.Sprintf("problem %d", i))
	}
	r, _ := Desired(Snapshot{Synced: true, Invalid: p}, opts, t0.Add(time.Hour))
	msg := r.Conditions[2].Message
	if !strings.Contains(msg, "problem 0; problem 1; problem 2; problem 3; problem 4; and 3 more.") || strings.Contains(msg, "problem 5") {
		t.Errorf("details not bounded: %s", msg)
	}
	if !strings.Contains(msg, `Fix ImageDigestMirrorSet "o0", ImageDigestMirrorSet "o1",`) || !strings.Contains(msg, `and ImageDigestMirrorSet "o7";`) {
		t.Errorf("objects not all named: %s", msg)
	}
}

func TestTheVersionIsReportedOnceASyncCompleted(t *testing.T) {
	r, _ := Desired(Snapshot{Synced: true}, opts, t0)
	if len(r.Versions) != 1 || r.Versions[0] != (configv1.OperandVersion{Name: "operator", Version: "4.22.0"}) {
		t.Errorf("versions %+v, want operator 4.22.0", r.Versions)
	}
	r, _ = Desired(Snapshot{NotReady: &Problem{Since: t0, Details: []string{"x"}}}, opts, t0.Add(time.Hour))
	if r.Versions != nil {
		t.Errorf("versions %+v reported before any sync: the new version is not at level yet", r.Versions)
	}
	noVersion := opts
	noVersion.Version = ""
	if r, _ = Desired(Snapshot{Synced: true}, noVersion, t0); r.Versions != nil {
		t.Errorf("versions %+v without RELEASE_VERSION", r.Versions)
	}
}

func TestTheRelatedObjectsAreTheNamespaceTheInputKindsAndTheGeneratedMachineConfigs(t *testing.T) {
	r, _ := Desired(Snapshot{Synced: true}, opts, t0)
	if r.RelatedObjects != nil {
		t.Errorf("related objects %+v before any render: the object's are kept", r.RelatedObjects)
	}
	r, _ = Desired(Snapshot{Synced: true, MachineConfigs: []string{"99-master-generated-registries", "99-worker-generated-registries"}}, opts, t0)
	want := []configv1.ObjectReference{
		{Group: "", Resource: "namespaces", Name: "openshift-registries-controller"},
		{Group: "operator.openshift.io", Resource: "imagecontentsourcepolicies"},
		{Group: "config.openshift.io", Resource: "imagedigestmirrorsets"},
		{Group: "config.openshift.io", Resource: "imagetagmirrorsets"},
		{Group: "config.openshift.io", Resource: "clusterimagepolicies"},
		{Group: "config.openshift.io", Resource: "imagepolicies"},
		{Group: "config.openshift.io", Resource: "images", Name: "cluster"},
		{Group: "config.openshift.io", Resource: "criocredentialproviderconfigs", Name: "cluster"},
		{Group: "machineconfiguration.openshift.io", Resource: "containerruntimeconfigs"},
		{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs", Name: "99-master-generated-registries"},
		{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs", Name: "99-worker-generated-registries"},
	}
	if fmt.Sprint(r.RelatedObjects) != fmt.Sprint(want) {
		t.Errorf("related objects:\n%+v\nwant:\n%+v", r.RelatedObjects, want)
	}
}
