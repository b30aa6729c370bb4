package imageio_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestPNGEncoderBytes checks that PNGEncoder writes the same bytes as the
// build it was first measured with (commit 16807c0, which wrote the files of
// earlier vcr generate runs): the SHA-256 digests below are of that build's
// files. The images cover clean natural-looking images (code lengths up to
// the 15-bit limit), light to strong noise, pure noise (stored blocks),
// odd widths and images of one to many 65,535-byte blocks.
func TestPNGEncoderBytes(t *testing.T) {
	cases := []struct {
		w, h  int
		sigma float64 // -1: uniform random bytes
		want  string
	}{
		{224, 224, 0, "868d700da6d2c40f83412ff933e7fcbe86248311424cb4c6bfe46a9870abb895"},
		{224, 224, 0.02, "e97ff4bde242eb88a8c6f513c5d76f6f9e3d5d09eb8fd23000a2987ccc13c032"},
		{224, 224, 0.08, "b3b0ee9a73a22a8f1bd9b8398819b52c855fd020fa2f4b3b642ab7bb81005dba"},
		{500, 375, 0, "0d6cf9ae9045c5966ff1015e814754cbbf49183136177ba006d716d2bd04f027"},
		{500, 375, 0.08, "e2adcb86d6f584168acffbab953b6d2618ea3e52b1b2bf266d4f8dfe55137dbf"},
		{500, 375, 0.3, "fed14fcc337030a099f4fe9a361f1fd854b643feedcf69bf3b50d4215308663a"},
		{333, 101, -1, "75620fe757457bf9f1064e75ab9c7549e01bc05d0ee64fef442ca5652821e9d2"},
		{1, 1, 0, "246c8fb73121ab8076d39318a2c99e6602bf57bf56aac2b94426688e6f9656c5"},
		{7, 5, 0.1, "5206e9319609fe18fb7dfc1e99ed9dbf69e97ebf89c51836e1dc4878216113dc"},
		{97, 301, 0.01, "20e13478f1f0b95c15f6448c48f946da846df421d795d2c616a6312a810c72ae"},
	}
	var e imageio.PNGEncoder
	for i, tc := range cases {
		m := testimg.Natural(tc.w, tc.h, uint64(20+i))
		rng := rand.New(rand.NewPCG(uint64(i), 9))
		pix := make([]byte, 3*tc.w*tc.h)
		for p := range tc.w * tc.h {
			for c := range 3 {
				if tc.sigma < 0 {
					pix[3*p+c] = byte(rng.Uint32())
					continue
				}
				v := float64(m.Ch[c][p]) + tc.sigma*rng.NormFloat64()
				pix[3*p+c] = imageio.To8(float32(min(1, max(0, v))), imageio.Round)
			}
		}
		var buf bytes.Buffer
		if err := e.EncodeRGB8(&buf, pix, tc.w, tc.h); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		if got := hex.EncodeToString(sum[:]); got != tc.want {
			t.Errorf("%s: SHA-256 %s, want %s (%d bytes)", fmt.Sprintf("%d×%d σ=%v", tc.w, tc.h, tc.sigma), got, tc.want, buf.Len())
		}
	}
}
