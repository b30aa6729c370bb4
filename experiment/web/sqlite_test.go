package web

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// TestSQLite runs the participant flows against the real SQLite store:
// a full run to completion, a screen-out, a resume in another browser, a
// duplicate and an out-of-order answer, another participant's stimulus,
// and the admin export.
func TestSQLite(t *testing.T) {
	d := testDesign(t)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "exp.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Init(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, experiment.ServerConfig{AdminToken: testAdminToken, MaxPlacesPerIP: -1, JoinsPerMinutePerIP: 1e6}, d, st)

	a := e.client()
	a.join("PROLIFIC_PID=sq1")
	s0 := a.state()
	if res, _ := a.respondRaw(answer(1, "cat"), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("out of order: %d", res.StatusCode)
	}
	if res, _ := a.respondRaw(answer(0, e.truth(s0.Trial.Images[0])), nil); res.StatusCode != 200 {
		t.Fatalf("respond: %d", res.StatusCode)
	}
	if res, _ := a.respondRaw(answer(0, "dog"), nil); res.StatusCode != http.StatusConflict {
		t.Errorf("duplicate: %d", res.StatusCode)
	}
	// Resume in another browser.
	a2 := e.client()
	a2.join("PROLIFIC_PID=sq1")
	if s := a2.state(); s.Done != 1 || s.Trial.Index != 1 {
		t.Fatalf("resumed state %+v", s)
	}
	b := e.client()
	b.join("PROLIFIC_PID=sq2")
	sb := b.state()
	if res, _ := a2.get(sb.Trial.Images[0]); res.StatusCode != http.StatusNotFound {
		t.Errorf("other participant's stimulus: %d", res.StatusCode)
	}
	if res, _ := a2.get(sb.Trial.Mask); res.StatusCode != http.StatusNotFound {
		t.Errorf("other participant's mask: %d", res.StatusCode)
	}
	if fin := a2.finish(nil); fin.Phase != "done" || fin.Completion.Code != "C0DE123" {
		t.Errorf("final %+v", fin)
	}
	if fin := b.finish(func(phase string) bool { return phase == "qualification" }); fin.Phase != "screened_out" || fin.Completion.Code != "SCREEN9" {
		t.Errorf("screened out %+v", fin)
	}
	statuses := map[string]experiment.Status{}
	st.Participants(context.Background(), func(p *experiment.Participant) error {
		statuses[p.ExternalID] = p.Status
		return nil
	})
	if statuses["sq1"] != experiment.StatusCompleted || statuses["sq2"] != experiment.StatusScreenedOut {
		t.Errorf("statuses %v", statuses)
	}
	// Full: batch 0 is held by sq1 (completed); sq2's screen-out freed
	// batch 1, so one more joins, and then nobody.
	e.client().join("PROLIFIC_PID=sq3")
	c := e.client()
	v := c.consentForm("PROLIFIC_PID=sq4")
	v.Set("consent", "yes")
	if res, _ := c.postForm("/join", v, nil); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("join a full study: %d", res.StatusCode)
	}

	admin := e.client()
	if res := admin.adminLogin(testAdminToken, nil); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login %d", res.StatusCode)
	}
	res, body := admin.get("/admin/export.csv")
	if res.StatusCode != 200 || strings.Count(body, "\n") != 1+9+5 || !strings.Contains(body, "stim") {
		t.Errorf("export %d:\n%s", res.StatusCode, body)
	}
	if res, body := admin.get("/admin/api/progress"); res.StatusCode != 200 || !strings.Contains(body, `"completed":1`) {
		t.Errorf("progress %d %s", res.StatusCode, body)
	}
	noSecrets(t, e, append(append(a.bodies, a2.bodies...), b.bodies...))
}
