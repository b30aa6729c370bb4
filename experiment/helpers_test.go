package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vcr-bench/vcr/corrupt"
	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
	"github.com/vcr-bench/vcr/iqa"
	"github.com/vcr-bench/vcr/testset"
)

// Test-set fixture: a class-folder dataset of procedurally generated
// natural images (internal/testimg) in four of the 16 categories plus one
// ImageNet class outside them (n01440764, tench), corrupted by the real
// vcr generate pipeline (testset.Generate, pixel-domain VIF).
var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureErr  error
)

// fixtureClasses are the dataset's class folders; perClass images each.
var fixtureClasses = []string{"bird", "car", "cat", "dog", "n01440764"}

const (
	fixturePerClass = 6
	fixtureN        = 40 // draws per corruption
)

var fixtureCorruptions = []string{"gaussian_noise", "gaussian_blur"}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// fixture returns the folder holding "data" (the dataset) and "ts" (the
// test set). Tests must not modify it; copyFixture gives a private copy.
func fixture(t testing.TB) string {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "vcr-experiment-test-")
		if fixtureErr != nil {
			return
		}
		fixtureErr = makeFixture(fixtureDir)
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureDir
}

func makeFixture(dir string) error {
	data := filepath.Join(dir, "data")
	for c, class := range fixtureClasses {
		cd := filepath.Join(data, class)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			return err
		}
		for i := range fixturePerClass {
			m := testimg.Natural(40, 40, uint64(100*c+i))
			if err := imageio.Save(filepath.Join(cd, fmt.Sprintf("img%d.png", i)), m, imageio.EncodeOptions{}); err != nil {
				return err
			}
		}
	}
	src, err := dataset.Open(dataset.Spec{Path: data})
	if err != nil {
		return err
	}
	var cs []*corrupt.Corruption
	for _, n := range fixtureCorruptions {
		c, err := corrupt.Lookup(n)
		if err != nil {
			return err
		}
		cs = append(cs, c)
	}
	_, err = testset.Generate(context.Background(), testset.Config{
		Source: src, Corruptions: cs, N: fixtureN, Seed: 3, Method: iqa.Pixel,
		Out: filepath.Join(dir, "ts"), Workers: 2, Version: "test",
	})
	return err
}

// copyFixture copies the fixture into a fresh temporary folder.
func copyFixture(t testing.TB) string {
	t.Helper()
	src := fixture(t)
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// testConfig returns a valid recognition config on the fixture, with its
// cache in a fresh temporary folder.
func testConfig(t testing.TB, dir string) *Config {
	t.Helper()
	yaml := fmt.Sprintf(`
name: test
seed: 11
testset: %s
cache: %s
task: imagenet16
trials_per_batch: 6
clean_per_batch: 2
views_per_batch: 3
practice: 1
qualification: 2
qualification_min_correct: 1
sanity: 2
sanity_max_failures: 1
`, filepath.Join(dir, "ts"), t.TempDir())
	cfg, err := ParseConfig([]byte(yaml), filepath.Join(t.TempDir(), "exp.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func build(t testing.TB, cfg *Config) (*Design, *BuildSummary) {
	t.Helper()
	d, sum, err := BuildWithSummary(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d, sum
}
