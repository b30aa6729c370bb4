package analysis_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vcr-bench/vcr/analysis"
	"github.com/vcr-bench/vcr/results"
)

// ExampleRun analyses a results table whose dv column is by vcr-py (the
// default of vcr generate) against the built-in ICSE 2022 ImageNet human
// data, labelled with vifvec: the models' Δv comes from the dv_vifvec column.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "vcr-example")
	defer os.RemoveAll(dir)
	var b strings.Builder
	b.WriteString("id,source,corruption,dv,vif_method,dv_vifvec,pred_clean,pred_corrupted,correct_clean,correct_corrupted,consistent\n")
	for i := range 2000 {
		v := float64(i%1000) / 1000 // dv_vifvec
		ok := i%1000 < 1000-int(900*v*v)
		c := map[bool]string{true: "1", false: "0"}[ok]
		fmt.Fprintf(&b, "%d,img%d,frost,%g,vcr-py,%g,car,car,1,%s,%s\n", i, i%100, min(1, v+0.05), v, c, c)
	}
	path := filepath.Join(dir, "resnet50", "results.csv")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(b.String()), 0o644)

	opt := analysis.DefaultOptions()
	opt.Results = []results.File{{Path: path}}
	opt.Human = "builtin:icse2022-imagenet"
	opt.Bootstrap = 0
	res, err := analysis.Run(context.Background(), opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := res.Analysis
	s := a.Summary()
	m := s.Models[0]
	fmt.Printf("%s on %s: Δv by %s (column dv_%s), n = %d, Δv covered %.4f–%.4f, HMRI_a computed: %t\n",
		m.Model, m.Corruption, s.VIFMethod, s.DVMethod, m.N, m.DVCovered[0], m.DVCovered[1], m.HMRIa != nil)
	// Output:
	// resnet50 on frost: Δv by vifvec (column dv_vifvec), n = 2000, Δv covered 0.0000–0.9875, HMRI_a computed: true
}
