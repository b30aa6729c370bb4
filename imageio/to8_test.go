package imageio

import (
	"math"
	"math/rand/v2"
	"testing"
)

// to8Ref is To8 written straight from its definition: ⌊v·255 + ½⌋ (Round)
// or ⌊v·255⌋ (Truncate), computed exactly in float64 (a float32 times 255
// needs 32 significant bits), clipped to 0…255, NaN giving 0.
func to8Ref(v float32, r Rounding) uint8 {
	if math.IsNaN(float64(v)) {
		return 0
	}
	x := float64(v) * 255
	if r == Round {
		x += 0.5
	}
	x = math.Floor(x)
	switch {
	case x < 0:
		return 0
	case x > 255:
		return 255
	}
	return uint8(x)
}

// TestTo8Bits checks To8 (its branch-free form) against to8Ref, for both
// roundings, on every float32 bit pattern within 4096 ulps of each rounding
// threshold (k−½)/255 and k/255, on every 1021st bit pattern of all 2³²
// (all signs, exponents, NaN payloads and infinities), on 2²⁰ random
// patterns and on the special values.
func TestTo8Bits(t *testing.T) {
	check := func(b uint32) {
		v := math.Float32frombits(b)
		for _, r := range []Rounding{Round, Truncate} {
			if got, want := To8(v, r), to8Ref(v, r); got != want {
				t.Fatalf("To8(%v [%#08x], %d) = %d, want %d", v, b, r, got, want)
			}
		}
	}
	for k := -1; k <= 257; k++ {
		for _, th := range []float64{(float64(k) - 0.5) / 255, float64(k) / 255} {
			b := math.Float32bits(float32(th))
			for d := uint32(0); d <= 4096; d++ {
				check(b + d)
				check(b - d)
			}
		}
	}
	for b := uint64(0); b < 1<<32; b += 1021 {
		check(uint32(b))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		check(rng.Uint32())
	}
	for _, v := range []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 254.5 / 255, 255.5 / 255, math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e10, -1e10, 3e9 / 255, -3e9 / 255} {
		check(math.Float32bits(v))
	}
	check(0x7fc00001) // a NaN with a payload
	check(0xffc00000) // a negative NaN
}
