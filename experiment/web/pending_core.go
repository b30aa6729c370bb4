package web

// Temporary stand-ins for experiment.State, experiment.TimingOK and
// experiment.MaskPNG until the core branch lands; replaced by calls to
// them then.

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/vcr-bench/vcr/experiment"
)

type participantState struct {
	Phase       string
	Next        *experiment.Trial
	Done, Total int
	Status      experiment.Status
	Reason      string
}

func stateOf(d *experiment.Design, p *experiment.Participant, trials []experiment.Trial) participantState {
	st := participantState{Total: len(trials), Status: experiment.StatusActive}
	qual, qualOK, qualDone := 0, 0, 0
	sanityFail := 0
	for i := range trials {
		t := &trials[i]
		if t.Answer == nil {
			if st.Next == nil {
				st.Next = t
			}
			if t.Role == experiment.RoleQualification {
				qual++
			}
			continue
		}
		st.Done++
		stim := d.Stimulus(t.StimulusID)
		ok := stim != nil && t.Answer.Response == stim.GroundTruth
		switch t.Role {
		case experiment.RoleQualification:
			qual++
			qualDone++
			if ok {
				qualOK++
			}
		case experiment.RoleSanity:
			if !ok {
				sanityFail++
			}
		}
	}
	if qual > 0 && qualDone == qual && qualOK < d.QualificationMinCorrect {
		st.Phase, st.Next, st.Status = phaseScreenedOut, nil, experiment.StatusScreenedOut
		st.Reason = fmt.Sprintf("qualification: %d of %d correct", qualOK, qual)
		return st
	}
	if st.Next == nil {
		st.Phase, st.Status = phaseDone, experiment.StatusCompleted
		if sanityFail > d.SanityMaxFailures {
			st.Status, st.Reason = experiment.StatusExcluded, fmt.Sprintf("sanity: %d failed", sanityFail)
		}
		return st
	}
	st.Phase = string(st.Next.Role)
	if st.Next.Role == experiment.RoleSanity {
		st.Phase = string(experiment.RoleMain)
	}
	return st
}

func timingOK(t experiment.Timing, shownMS, refreshHz float64) bool {
	tol := t.ToleranceFrames
	if tol == 0 {
		tol = 1
	}
	return math.Abs(shownMS-float64(t.Stimulus.Milliseconds())) <= tol*1000/refreshHz
}

func maskPNG(d *experiment.Design, i, w, h int) []byte {
	rng := rand.New(rand.NewPCG(d.MaskSeed, uint64(i)))
	img := image.NewGray(image.Rect(0, 0, w, h))
	for k := range img.Pix {
		img.Pix[k] = uint8(rng.IntN(256))
	}
	img.Set(0, 0, color.Gray{})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func export(ctx context.Context, s experiment.Store, d *experiment.Design, w io.Writer) (struct{}, error) {
	cw := csv.NewWriter(w)
	cw.Write([]string{"participant", "trial", "role", "stimulus_id", "corruption", "dv", "ground_truth", "response", "correct", "rt_ms", "shown_ms", "timing_ok"})
	ext := map[int64]string{}
	s.Participants(ctx, func(p *experiment.Participant) error { ext[p.ID] = p.ExternalID; return nil })
	err := s.Answered(ctx, func(t *experiment.Trial) error {
		st := d.Stimulus(t.StimulusID)
		return cw.Write([]string{ext[t.Participant], strconv.Itoa(t.Index), string(t.Role), st.ID, st.Corruption,
			strconv.FormatFloat(st.DV, 'g', -1, 64), st.GroundTruth, t.Answer.Response,
			strconv.FormatBool(t.Answer.Response == st.GroundTruth), strconv.FormatFloat(t.Answer.RTms, 'g', -1, 64),
			strconv.FormatFloat(t.Answer.ShownMS, 'g', -1, 64), strconv.FormatBool(t.Answer.TimingOK)})
	})
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	return struct{}{}, err
}
