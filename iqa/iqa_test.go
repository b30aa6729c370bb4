package iqa

import (
	"errors"
	"testing"

	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestIdenticalPairZeroDV checks the contract that an unchanged image has
// Δv = 0 exactly under every method, while VIF is reported as computed.
func TestIdenticalPairZeroDV(t *testing.T) {
	g := GrayFrom(testimg.Natural(96, 80, 4))
	for _, m := range Methods {
		r, err := NewScorer(m).Score(g, g)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if r.DV != 0 || r.Method != m {
			t.Errorf("%s: identical pair gives Δv = %g (method %q), want exactly 0", m, r.DV, r.Method)
		}
		if d := r.VIF - 1; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: identical pair VIF = %v, want 1 within 1e-9", m, r.VIF)
		}
	}
}

func TestDV(t *testing.T) {
	for _, tc := range []struct{ vif, want float64 }{
		{1, 0}, {1.3, 0}, {0.25, 0.75}, {0, 1}, {-0.5, 1},
	} {
		if got := DV(tc.vif); got != tc.want {
			t.Errorf("DV(%v) = %v, want %v", tc.vif, got, tc.want)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods {
		if got, err := ParseMethod(string(m)); err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("ssim"); err == nil {
		t.Error("ParseMethod(ssim) succeeded")
	}
}

func TestSizeMismatch(t *testing.T) {
	a, b := NewGray(40, 30), NewGray(40, 31)
	for _, m := range Methods {
		if _, err := NewScorer(m).Score(a, b); !errors.Is(err, ErrSize) {
			t.Errorf("%s: error %v, want ErrSize", m, err)
		}
	}
}
