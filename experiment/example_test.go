package experiment_test

import (
	"fmt"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

func ExampleTimingOK() {
	t := experiment.Timing{Stimulus: 200 * time.Millisecond, ToleranceFrames: 1}
	// At 60 Hz one frame is 16.7 ms: 12 frames (200 ms) pass, 13 (216.7 ms) pass, 14 do not.
	fmt.Println(experiment.TimingOK(t, 200, 60), experiment.TimingOK(t, 216.6, 60), experiment.TimingOK(t, 233.3, 60))
	// Output: true true false
}

func ExampleParseConfig() {
	cfg, err := experiment.ParseConfig([]byte("name: pilot\ntestset: vcr-out\ntask: car\ntrials_per_batch: 12\n"), "exp.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.TrialsPerBatch, *cfg.CleanPerBatch, cfg.ViewsPerBatch, cfg.CacheDir())
	_, err = experiment.ParseConfig([]byte("name: pilot\ntestset: vcr-out\ntask: car\ntiming:\n  stimulus: 200\n"), "exp.yaml")
	fmt.Println(err)
	// Output:
	// 12 3 5 exp.cache
	// exp.yaml: timing.stimulus: must be a duration in [1ms, 10s] such as "200ms" (got "200")
}

func ExampleState() {
	d := &experiment.Design{QualificationMinCorrect: 1, Stimuli: []experiment.Stimulus{
		{ID: "q0", GroundTruth: "car"}, {ID: "m0", GroundTruth: "car"},
	}}
	d.Freeze()
	trials := []experiment.Trial{
		{Index: 0, Role: experiment.RoleQualification, StimulusID: "q0", Answer: &experiment.Response{Response: "not car"}},
		{Index: 1, Role: experiment.RoleMain, StimulusID: "m0"},
	}
	st := experiment.State(d, nil, trials)
	fmt.Println(st.Phase, st.Status, st.Reason)
	// Output: screened_out screened_out qualification: 0 of 1 correct, 1 needed
}
