package storetest

import (
	"fmt"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// Corruptions are the corruption names NewDesign cycles through ("" is a
// clean original).
var Corruptions = []string{"", "gaussian_noise", "defocus_blur", "jpeg"}

// NewDesign returns a frozen recognition design with batches batches of
// perBatch main stimuli, each shown to views participants, plus 2 practice,
// 3 qualification and 2 sanity stimuli. Main stimulus k of batch b is
// "m<b>_<k>" with corruption Corruptions[k%len(Corruptions)], made from
// source image "main<(b+k)%perBatch>": each source appears in many batches
// but never twice in one, as Build arranges them. The practice,
// qualification and sanity stimuli have sources of their own. name makes
// designs with otherwise equal settings differ in Hash.
func NewDesign(name string, batches, perBatch, views int) *experiment.Design {
	d := &experiment.Design{
		Name: name, Kind: experiment.KindRecognition, Seed: 42,
		Categories: []experiment.Category{{Name: "cat", Key: "c"}, {Name: "dog", Key: "d"}},
		Timing: experiment.Timing{Fixation: 500 * time.Millisecond, Stimulus: 200 * time.Millisecond,
			Mask: 200 * time.Millisecond, Response: 1500 * time.Millisecond, ToleranceFrames: 1},
		ViewsPerBatch: views, QualificationMinCorrect: 2, SanityMaxFailures: 1,
		Abandon: 30 * time.Minute, Masks: 8, MaskSeed: 7,
	}
	n := 0
	add := func(id, source string, role experiment.Role, corruption string) string {
		n++
		src := n
		d.Stimuli = append(d.Stimuli, experiment.Stimulus{ID: id, Role: role, SourceID: source,
			Dataset: "imagefolder", Path: id + ".png", Corruption: corruption, TestSetID: src,
			DV: float64(src%10) / 10, GroundTruth: d.Categories[src%2].Name, IsOriginal: corruption == ""})
		return id
	}
	for i := range 2 {
		d.Practice = append(d.Practice, add(fmt.Sprintf("p%d", i), fmt.Sprintf("practice%d", i), experiment.RolePractice, ""))
	}
	for i := range 3 {
		d.Qualification = append(d.Qualification, add(fmt.Sprintf("q%d", i), fmt.Sprintf("qual%d", i), experiment.RoleQualification, ""))
	}
	for i := range 2 {
		d.Sanity = append(d.Sanity, add(fmt.Sprintf("s%d", i), fmt.Sprintf("sanity%d", i), experiment.RoleSanity, ""))
	}
	for b := range batches {
		batch := experiment.Batch{ID: b}
		for k := range perBatch {
			batch.Stimuli = append(batch.Stimuli, add(fmt.Sprintf("m%d_%d", b, k), fmt.Sprintf("main%d", (b+k)%perBatch), experiment.RoleMain, Corruptions[k%len(Corruptions)]))
		}
		d.Batches = append(d.Batches, batch)
	}
	d.Freeze()
	return d
}
