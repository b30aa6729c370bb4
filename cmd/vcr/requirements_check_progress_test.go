package main

import (
	"strings"
	"testing"
	"time"
)

// TestCheckProgressNamesTheRun checks that the progress lines of a check
// with its reproducibility rerun (total = 2 × --bootstrap-batches) say which
// run they count, and that a check without the rerun prints plain counts.
func TestCheckProgressNamesTheRun(t *testing.T) {
	var b strings.Builder
	p := checkProgress(&b, "frost", 20, time.Now())
	for done := 1; done <= 40; done++ {
		p(done, 40)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines, want one per tenth:\n%s", len(lines), b.String())
	}
	for _, tc := range []struct {
		line int
		want string
	}{
		{0, "  frost: 4/40 batches (run 1 of 2; "},
		{4, "  frost: 20/40 batches (run 1 of 2; "},
		{5, "  frost: 24/40 batches (run 2 of 2, the reproducibility rerun; "},
		{9, "  frost: 40/40 batches (run 2 of 2, the reproducibility rerun; "},
	} {
		if !strings.HasPrefix(lines[tc.line], tc.want) {
			t.Errorf("line %d = %q, want prefix %q", tc.line, lines[tc.line], tc.want)
		}
	}

	b.Reset()
	p = checkProgress(&b, "fog", 20, time.Now())
	for done := 1; done <= 20; done++ {
		p(done, 20)
	}
	if out := b.String(); strings.Contains(out, "run ") || !strings.HasPrefix(out, "  fog: 2/20 batches (0s)") {
		t.Errorf("without the rerun: %q", out)
	}
}
