package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/vcr-bench/vcr/experiment/loadtest"
)

var screenshots = flag.String("screenshots", "", "save the screenshots of TestScreenshots as PNG files in this `folder` (default: a temporary folder)")

// TestScreenshots takes screenshots of the participant pages (consent,
// instructions, an interstitial, a trial's stimulus, its noise mask and
// the answer buttons, the completion page) and of the admin pages (login,
// dashboard with progress and accuracy-vs-Δv curves after 80 simulated
// participants whose accuracy falls with Δv). The trial screenshots come
// from a second server whose stimulus and mask stay up 0.7 s each, so the
// screenshot catches them. Each PNG must decode and must not be a blank
// page. Save them with
//
//	go test ./experiment/e2e -run TestScreenshots -args -screenshots "$PWD/docs/img/experiment"
func TestScreenshots(t *testing.T) {
	chromium := needChromium(t)
	out := *screenshots
	if out == "" {
		out = t.TempDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	d, err := TinyDesign(dir, DesignOptions{
		Batches: 21, PerBatch: 4, ViewsPerBatch: 4,
		Practice: 1, Qualification: 1, Sanity: 1,
		QualificationMinCorrect: 0, SanityMaxFailures: 1, Seed: 5, Size: 224,
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Completion.RedirectURL = "" // stay on the completion page
	d.Freeze()
	s := openTestStore(t, dir)
	srv, err := StartServer(ctx, d, s, LoadTestServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// A second server whose stimulus and mask stay up 0.7 s, for the
	// screenshots of a trial.
	slowDir := t.TempDir()
	slow, err := TinyDesign(slowDir, DesignOptions{Batches: 1, PerBatch: 4, ViewsPerBatch: 1, Practice: 1, Seed: 5, Size: 224})
	if err != nil {
		t.Fatal(err)
	}
	slow.Timing.Stimulus = 700 * time.Millisecond
	slow.Timing.Mask = 700 * time.Millisecond
	slow.Freeze()
	slowSrv, err := StartServer(ctx, slow, openTestStore(t, slowDir), LoadTestServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer slowSrv.Close()

	// 80 simulated participants fill the dashboard; they answer right
	// with probability 1 − 0.9·Δv, so the curves fall.
	rep, err := loadtest.Run(ctx, loadtest.Config{
		URL: srv.URL, Participants: 80, Concurrency: 20, IDPrefix: "shot", Seed: 3, SkipImages: true,
		Answer: func(st *loadtest.State, rng *rand.Rand) string {
			tok := strings.Split(st.Trial.Images[0], "/")[2]
			tr, err := s.TrialByToken(ctx, tok)
			if err != nil {
				return st.Categories[0].Name
			}
			stim := d.Stimulus(tr.StimulusID)
			if rng.Float64() < 1-0.9*stim.DV {
				return stim.GroundTruth
			}
			return st.Categories[rng.IntN(len(st.Categories))].Name
		},
	})
	if err != nil || rep.Err() != nil {
		t.Fatalf("filling the study: %v %v", err, rep.Err())
	}

	bctx, stop := NewBrowser(ctx, chromium, 960, 720)
	defer stop()
	if err := InstallProbe(bctx); err != nil {
		t.Fatal(err)
	}
	var saved []string
	shot := func(name string) {
		t.Helper()
		b, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		checkScreenshot(t, name, b)
		p := filepath.Join(out, name+".png")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		saved = append(saved, fmt.Sprintf("%s (%d KB)", p, len(b)/1024))
	}
	waitDraw := func(prefix string) {
		t.Helper()
		if _, err := chromedp.Run(bctx, chromedp.Poll[bool](fmt.Sprintf(`(() => { const d = window.__vcrProbe.draws; return d.length > 0 && d[d.length-1].path.startsWith(%q); })()`, prefix),
			chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
			t.Fatalf("waiting for a %s draw: %v", prefix, err)
		}
		time.Sleep(150 * time.Millisecond) // presented
	}
	must := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	must("consent", chromedp.Navigate(srv.URL+"/?PROLIFIC_PID=screenshot-1&STUDY_ID=s&SESSION_ID=x"), chromedp.WaitVisible(chromedp.ID("consent-submit")))
	shot("consent")
	must("join", chromedp.Click(chromedp.ID("consent-box")), chromedp.Click(chromedp.ID("consent-submit")), chromedp.WaitVisible(chromedp.ID("instructions")))
	must("start enabled", waitJS(`!document.getElementById('start').disabled`, 20*time.Second))
	shot("instructions")
	must("start", chromedp.Click(chromedp.ID("start")), chromedp.WaitVisible(chromedp.CSS("#buttons .interstitial")))
	shot("interstitial")
	// Answer the rest (practice feedback, interstitials) to the end.
	for steps := 0; steps < 40; steps++ {
		ui, err := waitUI(bctx)
		if err != nil {
			t.Fatal(err)
		}
		if ui.State == "done" {
			break
		}
		switch ui.State {
		case "pause":
			must("continue", chromedp.KeyEvent(" "))
			waitGone(t, bctx, `!!document.querySelector('#buttons .interstitial') && !document.getElementById('buttons').hidden`)
		case "answer":
			must("answer", chromedp.KeyEvent(d.Categories[steps%len(d.Categories)].Key))
			waitGone(t, bctx, `!document.getElementById('buttons').hidden && !!document.querySelector('#buttons button.answer')`)
		case "start":
			t.Fatal("unexpected start button")
		}
	}
	must("done", chromedp.WaitVisible(chromedp.ID("code")))
	shot("done")

	must("slow consent", chromedp.Navigate(slowSrv.URL+"/?PROLIFIC_PID=screenshot-2&STUDY_ID=s&SESSION_ID=y"), chromedp.WaitVisible(chromedp.ID("consent-submit")),
		chromedp.Click(chromedp.ID("consent-box")), chromedp.Click(chromedp.ID("consent-submit")), chromedp.WaitVisible(chromedp.ID("instructions")),
		waitJS(`!document.getElementById('start').disabled`, 20*time.Second), chromedp.Click(chromedp.ID("start")),
		chromedp.WaitVisible(chromedp.CSS("#buttons .interstitial")), chromedp.KeyEvent(" "))
	waitDraw("/stim/")
	shot("trial-stimulus")
	waitDraw("/mask/")
	shot("trial-mask")
	// The hidden button bar keeps its layout (visibility: hidden), so wait
	// for the app to unhide it, not for the element to have a box.
	must("buttons", waitJS(`!document.getElementById('buttons').hidden && !!document.querySelector('#buttons button.answer')`, 20*time.Second))
	time.Sleep(150 * time.Millisecond)
	shot("trial-buttons")

	must("admin login", chromedp.Navigate(srv.URL+"/admin/login"), chromedp.WaitVisible(chromedp.CSS(`input[name="token"]`)))
	shot("admin-login")
	must("admin", chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), AdminToken), chromedp.Submit(chromedp.CSS(`input[name="token"]`)),
		chromedp.WaitVisible(chromedp.ID("curves")))
	must("admin data", waitJS(`document.querySelectorAll('#curves figure img').length > 0 && [...document.querySelectorAll('#curves figure img')].every((i) => i.complete && i.naturalWidth > 0)`, 20*time.Second))
	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	checkScreenshot(t, "admin", full)
	if err := os.WriteFile(filepath.Join(out, "admin.png"), full, 0o644); err != nil {
		t.Fatal(err)
	}
	saved = append(saved, fmt.Sprintf("%s (%d KB)", filepath.Join(out, "admin.png"), len(full)/1024))
	t.Logf("saved %d screenshots:\n%s", len(saved), strings.Join(saved, "\n"))
}

// checkScreenshot fails the test unless b is a PNG of at least 400×300
// pixels that is not a single flat colour.
func checkScreenshot(t *testing.T, name string, b []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s is not a PNG", name)
	}
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	r := m.Bounds()
	if r.Dx() < 400 || r.Dy() < 300 {
		t.Fatalf("screenshot %s is %v, too small", name, r)
	}
	colors := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y && len(colors) < 16; y += 7 {
		for x := r.Min.X; x < r.Max.X; x += 7 {
			c := m.At(x, y)
			rr, g, bb, _ := c.RGBA()
			colors[[3]uint32{rr >> 8, g >> 8, bb >> 8}] = true
		}
	}
	if len(colors) < 3 {
		t.Errorf("screenshot %s is (almost) blank: %d colours", name, len(colors))
	}

}

// waitJS is an action that waits until the JavaScript expression is
// truthy.
func waitJS(expr string, timeout time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(10*time.Millisecond))(ctx, t)
		return err
	})
}
