package testset

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
)

// VCRPROBE="size;name;p1,p2,..;p1,p2,.."
func TestZZProbe(t *testing.T) {
	spec := os.Getenv("VCRPROBE")
	if spec == "" {
		t.Skip()
	}
	parts := strings.Split(spec, ";")
	size, _ := strconv.Atoi(parts[0])
	c, err := corrupt.Lookup(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	p := newPipeline(size, 8)
	for _, ps := range parts[2:] {
		var params []float64
		for _, f := range strings.Split(ps, ",") {
			v, _ := strconv.ParseFloat(f, 64)
			params = append(params, v)
		}
		var s, mn, mx float64 = 0, 1, 0
		for k := range p.imgs {
			dv := p.dv(t, c, k, params, corrupt.NewRand(1, uint64(k)))
			s += dv
			mn, mx = min(mn, dv), max(mx, dv)
		}
		fmt.Printf("%s %v: mean Δv %.3f [%.3f, %.3f]\n", c.Name, params, s/float64(len(p.imgs)), mn, mx)
	}
}
