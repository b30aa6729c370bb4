package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		label       string
		done, total int
		elapsed     time.Duration
		want        string
	}{
		// 4 of 10 in 2 s: 2/s, 6 left → 3 s.
		{"scoring", 4, 10, 2 * time.Second, "scoring [########            ] 4/10  40%  2.00/s  ETA 0:03"},
		{"", 0, 10, 0, "[                    ] 0/10   0%"},
		// 1000 of 1000 in 75 s: 13.3/s, finished.
		{"x", 1000, 1000, 75 * time.Second, "x [####################] 1000/1000 100%  13.3/s  in 1:15"},
		// 1 of 100000 after 1 s: 99999 s left = 27:46:39.
		{"", 1, 100000, time.Second, "[                    ] 1/100000   0%  1.00/s  ETA 27:46:39"},
		{"", 500, 1000, 2 * time.Second, "[##########          ] 500/1000  50%  250/s  ETA 0:02"},
		// Empty work list.
		{"", 0, 0, time.Second, "[                    ] 0/0   0%"},
	} {
		if got := Render(tc.label, tc.done, tc.total, tc.elapsed, 20); got != tc.want {
			t.Errorf("Render(%q, %d, %d, %v) =\n%q, want\n%q", tc.label, tc.done, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

// fakeClock is a clock the test advances by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBarRateLimit(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var buf bytes.Buffer
	b := New(&buf, 100, Options{Label: "scoring", Now: clk.Now})
	// 50 updates 10 ms apart = 0.5 s: at most 10 redraws per second, so
	// the first update and one per 100 ms: 5 or 6 redraws, not 50.
	for range 50 {
		clk.Advance(10 * time.Millisecond)
		b.Add(1)
	}
	draws := strings.Count(buf.String(), "\r")
	if draws < 5 || draws > 6 {
		t.Errorf("%d redraws in 0.5 s, want 5 or 6:\n%q", draws, buf.String())
	}
	// Completion is always drawn, whatever the interval.
	clk.Advance(time.Millisecond)
	b.Add(50)
	out := buf.String()
	last := out[strings.LastIndex(out, "\r")+1:]
	if !strings.HasPrefix(last, "scoring [####################] 100/100 100%") {
		t.Errorf("final line %q", last)
	}
	b.Finish()
	b.Finish() // idempotent
	if !strings.HasSuffix(buf.String(), "\n") || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("Finish should end the line once: %q", buf.String())
	}
}

func TestBarBlanksLeftovers(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	var buf bytes.Buffer
	b := New(&buf, 10, Options{Now: clk.Now, Width: 4})
	clk.Advance(time.Second)
	b.Add(1) // "... 1.00/s  ETA 0:09"
	clk.Advance(time.Hour)
	b.Add(9) // complete: shorter rate text
	lines := strings.Split(buf.String(), "\r")[1:]
	if len(lines) != 2 {
		t.Fatalf("want 2 redraws, got %q", buf.String())
	}
	if len(lines[1]) < len(lines[0]) {
		t.Errorf("second line %q is shorter than the first %q: leftovers not blanked", lines[1], lines[0])
	}
}

func TestNilBar(t *testing.T) {
	var b *Bar
	b.Add(1)
	b.Finish()
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	f, err := openTemp(t)
	if err != nil {
		t.Fatal(err)
	}
	if IsTerminal(f) {
		t.Error("a regular file is not a terminal")
	}
}

func openTemp(t *testing.T) (*os.File, error) {
	f, err := os.CreateTemp(t.TempDir(), "progress")
	if err == nil {
		t.Cleanup(func() { f.Close() })
	}
	return f, err
}
