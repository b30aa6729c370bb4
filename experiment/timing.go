package experiment

import (
	"fmt"
	"math"
	"time"
)

// LatencyBound is the most time CheckTiming allows, beyond the fixation
// and the claimed response time, between the server sending a trial's mask
// and the answer arriving: the mask's download and decoding, the browser's
// wait for the next display frames and the answer's upload. Three seconds
// cover a slow mobile connection; a participant who lets a trial wait
// longer (the client fetches the images only once the page is visible, just
// before the fixation) is no longer measured by the claimed times.
const LatencyBound = 3 * time.Second

// CheckTiming says why the timing claims of an answer r are not plausible,
// or "" when they are. stimServed and maskServed are when the server last
// served the trial's image and mask (zero: never), r.At when the answer
// arrived (the server's clock throughout). The client cannot be trusted;
// what it claims must agree with itself, with the trial protocol and with
// what the server saw:
//
//   - the stimulus and the mask were fetched, before the answer;
//   - frames is shown_ms at refresh_hz, to within one frame;
//   - the answer came after the stimulus and the mask (the answer buttons
//     appear when the mask ends): rt_ms ≥ shown_ms + mask_ms − one frame;
//   - a design with a mask of at least one frame showed one: mask_ms ≥
//     (mask frames − tolerance) frames;
//   - the answer arrived at most fixation + rt_ms + LatencyBound after the
//     mask was served (the client shows the fixation once both images are
//     loaded; the stimulus onset follows it).
//
// No lower bound on the arrival is checked: several server processes
// share no clock to the millisecond, and a response time claimed too long
// gains a forger nothing.
func CheckTiming(t Timing, r *Response, stimServed, maskServed time.Time) string {
	frame := 1000 / r.RefreshHz // ms
	tol := t.ToleranceFrames
	if !(tol > 0) {
		tol = DefaultToleranceFrames
	}
	maskFrames := math.Round(float64(t.Mask) / 1e6 / frame)
	switch {
	case stimServed.IsZero():
		return "implausible timing: the stimulus was never fetched"
	case maskServed.IsZero():
		return "implausible timing: the mask was never fetched"
	case r.At.Before(stimServed) || r.At.Before(maskServed):
		return "implausible timing: answered before the images were fetched"
	case !(r.RefreshHz > 0) || math.Abs(float64(r.Frames)-r.ShownMS/frame) > 1:
		return fmt.Sprintf("implausible timing: %d frames do not make %s ms at %s Hz", r.Frames, fnum(r.ShownMS), fnum(r.RefreshHz))
	case r.RTms < r.ShownMS+r.MaskMS-frame:
		return fmt.Sprintf("implausible timing: rt_ms %s is shorter than the stimulus and mask (%s + %s ms) before the answer buttons", fnum(r.RTms), fnum(r.ShownMS), fnum(r.MaskMS))
	case maskFrames >= 1 && r.MaskMS < (maskFrames-tol)*frame:
		return fmt.Sprintf("implausible timing: mask shown %s ms, the design's mask is %d ms", fnum(r.MaskMS), t.Mask.Milliseconds())
	}
	if late := r.At.Sub(maskServed) - t.Fixation - time.Duration(r.RTms*float64(time.Millisecond)); late > LatencyBound {
		return fmt.Sprintf("implausible timing: the answer arrived %s after the mask was served, %s more than fixation + rt_ms %s allow",
			r.At.Sub(maskServed).Round(time.Millisecond), (late - LatencyBound).Round(time.Millisecond), fnum(r.RTms))
	}
	return ""
}
