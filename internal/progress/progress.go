// Package progress renders a one-line progress bar (done/total, percentage,
// rate and estimated time left) on a terminal, redrawn in place with a
// carriage return at a limited rate. Libraries report progress through
// callbacks; only the command line draws bars.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// DefaultInterval is the shortest time between two redraws: at most 10
// updates per second.
const DefaultInterval = 100 * time.Millisecond

// IsTerminal reports whether w is a terminal (an *os.File on a TTY).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Options configures a Bar. The zero value is usable.
type Options struct {
	// Label is printed before the bar, e.g. "scoring".
	Label string
	// Interval is the shortest time between redraws (DefaultInterval if 0).
	Interval time.Duration
	// Width is the number of cells of the bar itself (20 if 0).
	Width int
	// Now returns the current time (time.Now if nil); tests pass a fake clock.
	Now func() time.Time
}

// Bar is a progress bar for total units of work. Its methods are safe for
// concurrent use. A nil *Bar is valid and draws nothing, so callers can
// disable progress output by passing nil.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	total    int
	done     int
	opt      Options
	start    time.Time
	last     time.Time // time of the last redraw
	drawn    bool      // at least one redraw happened
	drawnAt  int       // done at the last redraw
	lastLen  int       // length of the last line, to blank leftovers
	finished bool
}

// New returns a bar for total units that draws on w, starting its clock now.
func New(w io.Writer, total int, opt Options) *Bar {
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if opt.Width <= 0 {
		opt.Width = 20
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Bar{w: w, total: total, opt: opt, start: opt.Now()}
}

// Add records n more units done and redraws the bar if the interval has
// passed since the last redraw, or if the work is complete.
func (b *Bar) Add(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	now := b.opt.Now()
	if b.drawn && now.Sub(b.last) < b.opt.Interval && b.done < b.total {
		return
	}
	b.draw(now)
}

// Finish draws the final state and ends the line. Later calls do nothing.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if !b.drawn || b.drawnAt != b.done {
		b.draw(b.opt.Now())
	}
	fmt.Fprintln(b.w)
}

func (b *Bar) draw(now time.Time) {
	b.last, b.drawn, b.drawnAt = now, true, b.done
	line := Render(b.opt.Label, b.done, b.total, now.Sub(b.start), b.opt.Width)
	pad := ""
	if n := b.lastLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	b.lastLen = len(line)
	fmt.Fprint(b.w, "\r"+line+pad)
}

// Render returns the text of a bar for done of total units after elapsed
// time: label, bar, done/total, percentage, rate and ETA, e.g.
//
//	scoring [########            ] 412/1000  41%  52.3/s  ETA 0:11
//
// The rate and ETA are left out until some work is done.
func Render(label string, done, total int, elapsed time.Duration, width int) string {
	var sb strings.Builder
	if label != "" {
		sb.WriteString(label)
		sb.WriteByte(' ')
	}
	frac := 0.0
	if total > 0 {
		frac = min(1, max(0, float64(done)/float64(total)))
	}
	cells := int(frac * float64(width))
	sb.WriteByte('[')
	sb.WriteString(strings.Repeat("#", cells))
	sb.WriteString(strings.Repeat(" ", width-cells))
	sb.WriteByte(']')
	fmt.Fprintf(&sb, " %d/%d %3.0f%%", done, total, 100*frac)
	if done > 0 && elapsed > 0 {
		rate := float64(done) / elapsed.Seconds()
		fmt.Fprintf(&sb, "  %s/s", formatRate(rate))
		if done < total {
			eta := time.Duration(float64(total-done) / rate * float64(time.Second))
			fmt.Fprintf(&sb, "  ETA %s", formatDuration(eta))
		} else {
			fmt.Fprintf(&sb, "  in %s", formatDuration(elapsed))
		}
	}
	return sb.String()
}

func formatRate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	default:
		return fmt.Sprintf("%.2f", r)
	}
}

// formatDuration writes d rounded to seconds as m:ss or h:mm:ss.
func formatDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	h, m := s/3600, s/60%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s%60)
	}
	return fmt.Sprintf("%d:%02d", m, s%60)
}
