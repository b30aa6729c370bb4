package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/imagenetc"
	"github.com/vcr-bench/vcr/internal/imagenetctest"
)

// TestAnalyzeImageNetC is the contract: vcr analyze on results with a
// severity column whose per-corruption mean errors equal AlexNet's (exact
// counts) writes imagenet_c.json with mce = 100, summary.json's
// imagenet_c, imagenet_c.csv, and prints the mCE; a report HTML built from
// the folder has the ImageNet-C section.
func TestAnalyzeImageNetC(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "alexlike", "results.csv")
	os.MkdirAll(filepath.Dir(res), 0o755)
	if _, err := imagenetctest.WriteResults(res, imagenetc.Benchmark, 1, 1); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "A")
	code, stdout, errOut := runCmd(t, "analyze", "--results", res, "--out", out, "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Models []struct {
			Model string             `json:"model"`
			MCE   *float64           `json:"mce"`
			CE    map[string]float64 `json:"ce"`
		} `json:"models"`
	}
	data, err := os.ReadFile(filepath.Join(out, "imagenet_c.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 1 || rep.Models[0].MCE == nil || *rep.Models[0].MCE != 100 || rep.Models[0].CE["jpeg_compression"] != 100 {
		t.Fatalf("imagenet_c.json: %s", data)
	}
	var sum struct {
		ImageNetC struct {
			Models []struct {
				MCE *float64 `json:"mce"`
			} `json:"models"`
		} `json:"imagenet_c"`
	}
	data, _ = os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(data, &sum); err != nil || len(sum.ImageNetC.Models) != 1 || *sum.ImageNetC.Models[0].MCE != 100 {
		t.Errorf("summary.json imagenet_c: %v %s", err, data)
	}
	if _, err := os.Stat(filepath.Join(out, "imagenet_c.csv")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stdout, "ImageNet-C") || !strings.Contains(stdout, "100.0") {
		t.Errorf("stdout lacks the ImageNet-C table:\n%s", stdout)
	}
	if !strings.Contains(errOut, "imagenet_c.json, imagenet_c.csv") {
		t.Errorf("stderr does not list the ImageNet-C files: %s", errOut)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, errOut := runCmd(t, "report", "--out", page, out); code != 0 {
		t.Fatalf("vcr report: exit %d: %s", code, errOut)
	}
	html, _ := os.ReadFile(page)
	if !strings.Contains(string(html), `id="imagenet-c"`) || !strings.Contains(string(html), "100.0") {
		t.Error("report.html lacks the ImageNet-C section with mCE 100.0")
	}
}
