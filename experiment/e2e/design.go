package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/imageio"
	"github.com/vcr-bench/vcr/internal/testimg"
)

// DesignOptions sizes a hand-made test design (TinyDesign).
type DesignOptions struct {
	Batches       int // main batches (default 4)
	PerBatch      int // main stimuli per batch (default 4)
	ViewsPerBatch int // participants per batch (default 2)
	Practice      int // practice trials
	Qualification int // qualification trials
	Sanity        int // sanity trials
	// QualificationMinCorrect and SanityMaxFailures are copied to the
	// design as they are (0: random answers pass qualification).
	QualificationMinCorrect int
	SanityMaxFailures       int
	// Images is the number of distinct image files (default 8) and Size
	// their width and height in pixels (default 128).
	Images int
	Size   int
	Seed   uint64
}

// Categories of the test designs: four classes with keyboard shortcuts.
var testCategories = []experiment.Category{
	{Name: "car", Label: "Car", Key: "c"},
	{Name: "cat", Label: "Cat", Key: "t"},
	{Name: "dog", Label: "Dog", Key: "d"},
	{Name: "boat", Label: "Boat", Key: "b"},
}

// TinyDesign writes a few procedurally generated PNG images into dir and
// returns a frozen recognition design over them, built by hand (not by
// experiment.Build, so that the load and browser tests depend only on the
// Design type): o.Batches batches of o.PerBatch main stimuli, each batch
// showing source images s0 … s{PerBatch−1} once (the same sources in
// every batch, with different nominal corruptions, so a participant who
// saw two batches would repeat sources), and practice, qualification and
// sanity stimuli on reserved sources. The timeline is the issue's: 500 ms
// fixation, 200 ms stimulus, 200 ms mask, unlimited response window.
func TinyDesign(dir string, o DesignOptions) (*experiment.Design, error) {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Batches, 4)
	def(&o.PerBatch, 4)
	def(&o.ViewsPerBatch, 2)
	def(&o.Images, 8)
	def(&o.Size, 128)
	if o.Practice < 0 || o.Qualification < 0 || o.Sanity < 0 {
		return nil, fmt.Errorf("e2e: negative trial counts in %+v", o)
	}
	imgDir := filepath.Join(dir, "images")
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return nil, err
	}
	files := make([]string, o.Images)
	for i := range files {
		files[i] = fmt.Sprintf("images/img%02d.png", i)
		m := testimg.Natural(o.Size, o.Size, o.Seed*1000+uint64(i)+1)
		if err := imageio.Save(filepath.Join(dir, files[i]), m, imageio.EncodeOptions{}); err != nil {
			return nil, err
		}
	}
	d := &experiment.Design{
		Name:       "e2e test design",
		Kind:       experiment.KindRecognition,
		Seed:       o.Seed,
		Root:       dir,
		Categories: append([]experiment.Category(nil), testCategories...),
		Timing: experiment.Timing{
			Fixation:        500 * time.Millisecond,
			Stimulus:        200 * time.Millisecond,
			Mask:            200 * time.Millisecond,
			InterTrial:      300 * time.Millisecond,
			ToleranceFrames: 1,
		},
		ViewsPerBatch:           o.ViewsPerBatch,
		QualificationMinCorrect: o.QualificationMinCorrect,
		SanityMaxFailures:       o.SanityMaxFailures,
		Abandon:                 time.Hour,
		Masks:                   4,
		MaskSeed:                o.Seed + 7,
		Completion: experiment.Completion{
			Code:          "C0MPL3TE",
			RedirectURL:   "https://app.prolific.com/submissions/complete?cc=C0MPL3TE",
			ScreenOutCode: "SCR33N",
		},
	}
	n := 0
	add := func(role experiment.Role, source string, corruption string, dv float64) string {
		id := fmt.Sprintf("%c%05d", role[0], n)
		st := experiment.Stimulus{
			ID:          id,
			Role:        role,
			SourceID:    source,
			Dataset:     "imagefolder",
			Path:        files[n%len(files)],
			Corruption:  corruption,
			TestSetID:   n,
			DV:          dv,
			VIFMethod:   "pixel",
			GroundTruth: testCategories[n%len(testCategories)].Name,
			IsOriginal:  corruption == "",
		}
		if st.IsOriginal {
			st.TestSetID, st.DV = -1, 0
		} else {
			st.Params = fmt.Sprintf("sigma=%.3f", dv)
		}
		d.Stimuli = append(d.Stimuli, st)
		n++
		return id
	}
	corruptions := []string{"", "gaussian_noise", "gaussian_blur", "contrast"}
	for b := 0; b < o.Batches; b++ {
		batch := experiment.Batch{ID: b}
		for k := 0; k < o.PerBatch; k++ {
			c := corruptions[(b+k)%len(corruptions)]
			dv := 0.0
			if c != "" {
				dv = float64((b*o.PerBatch+k)%10+1) / 11
			}
			batch.Stimuli = append(batch.Stimuli, add(experiment.RoleMain, fmt.Sprintf("s%d", k), c, dv))
		}
		d.Batches = append(d.Batches, batch)
	}
	for i := 0; i < o.Practice; i++ {
		d.Practice = append(d.Practice, add(experiment.RolePractice, fmt.Sprintf("p%d", i), "", 0))
	}
	for i := 0; i < o.Qualification; i++ {
		d.Qualification = append(d.Qualification, add(experiment.RoleQualification, fmt.Sprintf("q%d", i), "", 0))
	}
	for i := 0; i < o.Sanity; i++ {
		d.Sanity = append(d.Sanity, add(experiment.RoleSanity, fmt.Sprintf("c%d", i), "", 0))
	}
	d.Freeze()
	return d, nil
}
