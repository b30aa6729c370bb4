package corrupt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// TestExtendedAcceptsSeverities applies every ImageNet-C severity of every
// corruption in the catalogue through the path of 'vcr corrupt --extended
// --param name=value': the values are written as 'vcr generate
// --imagenet-c' writes them into a manifest's params column (JSON), read
// back, formatted as --param assignments and parsed by the Extended copy's
// ParseParams; the parsed vector must equal the severity and apply to an
// image with a result in [0, 1]. Before the accepted domain was widened,
// glass_blur iterations 2 and 3, fog decay 1.4, snow blur_sigma 4 and
// gaussian_blur sigma 6 were refused.
func TestExtendedAcceptsSeverities(t *testing.T) {
	src := testimg.Natural(40, 32, 1)
	dst := imageio.New(src.Width, src.Height)
	n := 0
	for _, c := range All() {
		e := c.Extended()
		for s, sev := range c.Severities {
			js, err := json.Marshal(c.Named(sev))
			if err != nil {
				t.Fatal(err)
			}
			var named map[string]float64
			if err := json.Unmarshal(js, &named); err != nil {
				t.Fatal(err)
			}
			var assign []string
			for _, name := range c.ParamNames() {
				assign = append(assign, fmt.Sprintf("%s=%s", name, json.Number(fmt.Sprint(named[name]))))
			}
			p, err := e.ParseParams(assign, nil)
			if err != nil {
				t.Errorf("%s severity %d (%v): %v", c.Name, s+1, assign, err)
				continue
			}
			for i := range p {
				if p[i] != sev[i] {
					t.Errorf("%s severity %d: parsed %s = %v, want %v", c.Name, s+1, c.Params[i].Name, p[i], sev[i])
				}
			}
			if err := e.Check(p); err != nil {
				t.Errorf("%s severity %d: Extended().Check: %v", c.Name, s+1, err)
			}
			e.Apply(dst, src, p, NewRand(1, uint64(s)))
			for ch := range 3 {
				for _, v := range dst.Ch[ch] {
					if !(v >= 0 && v <= 1) || math.IsNaN(float64(v)) {
						t.Fatalf("%s severity %d: output value %v outside [0, 1]", c.Name, s+1, v)
					}
				}
			}
			n++
		}
	}
	if n < 5*15 {
		t.Errorf("applied %d severities, want at least the 75 of ImageNet-C's 15 corruptions", n)
	}
}

// TestExtendedSamplingUnchanged checks that widening what Extended accepts
// leaves what it samples (targeted sampling's domain) and the uniform
// sampling domain alone, and that a value outside both the target range
// and every severity is still refused.
func TestExtendedSamplingUnchanged(t *testing.T) {
	for _, name := range []string{"glass_blur", "fog", "snow", "gaussian_blur"} {
		c, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		e := c.Extended()
		for i, p := range c.Params {
			if e.Params[i] != p.Target() {
				t.Errorf("%s: Extended().Params[%d] = %+v, want the target range %+v", name, i, e.Params[i], p.Target())
			}
		}
		for k := range uint64(200) {
			if err := c.Check(c.Sample(NewRand(4, k))); err != nil {
				t.Fatalf("%s: uniform draw outside the domain: %v", name, err)
			}
		}
	}
	g, _ := Lookup("glass_blur")
	if g.Check([]float64{0.7, 1, 2}) == nil {
		t.Error("glass_blur iterations=2 accepted by the uniform domain; only --extended should accept it")
	}
	var de *DomainError
	if _, err := g.Extended().ParseParams([]string{"sigma=0.7", "max_delta=1", "iterations=4"}, nil); !errors.As(err, &de) || de.Param.Name != "iterations" {
		t.Errorf("glass_blur iterations=4 (beyond every ImageNet-C severity) with Extended: error %v, want a DomainError for iterations", err)
	}
}
