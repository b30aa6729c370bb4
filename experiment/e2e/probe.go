package e2e

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// ProbeJS is injected into every page before its own scripts. It records,
// independently of the app's own measurement, every canvas drawImage call
// with the image's URL path and the timestamp of the animation frame it
// was drawn in (document.timeline.currentTime, which equals the
// requestAnimationFrame timestamp of the frame), and the timestamp of
// every animation frame (its own requestAnimationFrame loop). The stimulus
// is on screen from the frame that drew /stim/… to the frame that drew
// the mask over it.
const ProbeJS = `(() => {
  if (window.__vcrProbe) return;
  const P = { draws: [], frames: [] };
  window.__vcrProbe = P;
  const tick = (ts) => {
    P.frames.push(ts);
    if (P.frames.length > 20000) P.frames.splice(0, 10000);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  const proto = CanvasRenderingContext2D.prototype;
  const draw = proto.drawImage;
  proto.drawImage = function (img, ...rest) {
    const src = (img && (img.currentSrc || img.src)) || '';
    const path = src ? new URL(src, location.href).pathname : '';
    const frame = document.timeline.currentTime;
    const last = P.draws[P.draws.length - 1];
    if (!last || last.path !== path || last.frame !== frame) {
      P.draws.push({ path, frame, now: performance.now() });
    }
    return draw.call(this, img, ...rest);
  };
})();`

// InstallProbe makes the tab of ctx run ProbeJS in every document it
// loads from now on.
func InstallProbe(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: ProbeJS})
		return err
	}))
}

// ProbeDraw is one recorded drawImage call.
type ProbeDraw struct {
	Path  string  `json:"path"`
	Frame float64 `json:"frame"` // animation frame timestamp, ms
	Now   float64 `json:"now"`   // performance.now() at the call, ms
}

// ProbeData is what ProbeJS recorded in the current document.
type ProbeData struct {
	Draws  []ProbeDraw `json:"draws"`
	Frames []float64   `json:"frames"`
}

// ReadProbe returns the probe's records of the current document.
func ReadProbe(ctx context.Context) (*ProbeData, error) {
	p, err := chromedp.Run(ctx, chromedp.Evaluate[*ProbeData](`window.__vcrProbe || null`))
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("the page has no probe (InstallProbe before navigating)")
	}
	return p, nil
}

// FrameMS returns the median interval between the animation frames the
// probe saw (0 with fewer than 10 frames).
func (p *ProbeData) FrameMS() float64 {
	if len(p.Frames) < 10 {
		return 0
	}
	d := make([]float64, 0, len(p.Frames)-1)
	for i := 1; i < len(p.Frames); i++ {
		d = append(d, p.Frames[i]-p.Frames[i-1])
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

// StimulusShown is the probe's measurement of one stimulus presentation.
type StimulusShown struct {
	Token   string  // the trial token of the stimulus URL
	OnMS    float64 // frame timestamp of the frame that drew the stimulus
	ShownMS float64 // until the frame that drew the mask
	// Frames is the number of animation frames the probe's own loop saw
	// in [On, On+Shown): the display frames the stimulus was up for.
	Frames int
}

// LastStimulus returns the last stimulus presentation whose mask has been
// drawn, or ok false when there is none.
func (p *ProbeData) LastStimulus() (s StimulusShown, ok bool) {
	for i := len(p.Draws) - 1; i >= 0; i-- {
		d := p.Draws[i]
		if !strings.HasPrefix(d.Path, "/stim/") {
			continue
		}
		for _, m := range p.Draws[i+1:] {
			if strings.HasPrefix(m.Path, "/mask/") {
				parts := strings.Split(d.Path, "/")
				s = StimulusShown{Token: parts[2], OnMS: d.Frame, ShownMS: m.Frame - d.Frame}
				for _, f := range p.Frames {
					if f >= d.Frame && f < m.Frame {
						s.Frames++
					}
				}
				return s, true
			}
		}
	}
	return s, false
}

// LastStimulusToken returns the token of the last stimulus drawn, or "".
func (p *ProbeData) LastStimulusToken() string {
	for i := len(p.Draws) - 1; i >= 0; i-- {
		if strings.HasPrefix(p.Draws[i].Path, "/stim/") {
			return strings.Split(p.Draws[i].Path, "/")[2]
		}
	}
	return ""
}

// withinFrame reports whether |got − want| is at most one frame of
// frameMS plus a little slack for timestamp rounding.
func withinFrame(got, want, frameMS float64) bool {
	return math.Abs(got-want) <= frameMS+0.5
}
