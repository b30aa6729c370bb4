package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// ErrNoChromium is returned by Chromium when no browser is found.
var ErrNoChromium = errors.New("no Chromium found: set VCR_CHROMIUM or put chromium, chromium-browser or google-chrome on PATH")

// Chromium returns the path of the browser to drive: $VCR_CHROMIUM if set,
// else the first of chromium, chromium-browser, google-chrome and
// google-chrome-stable on PATH.
func Chromium() (string, error) {
	if p := os.Getenv("VCR_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.Join(ErrNoChromium, err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// NewBrowser starts headless Chromium at path with a window of w×h CSS
// pixels and returns a chromedp context for its first tab; cancel stops
// the browser. The flags are those a container needs (no sandbox, no GPU).
// Headless Chromium runs requestAnimationFrame at 60 Hz with these flags;
// do not add --disable-frame-rate-limit, which makes it run unthrottled
// (docs/experiment-testing.md).
func NewBrowser(parent context.Context, path string, w, h int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.WindowSize(w, h),
		chromedp.Flag("mute-audio", true),
	)
	actx, cancelA := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	return ctx, func() { cancelC(); cancelA() }
}
