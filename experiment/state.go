package experiment

import (
	"fmt"
	"math"
)

// Phases of a participant (ParticipantState.Phase). Sanity trials are in
// phase PhaseMain: the client cannot tell them from main trials.
const (
	PhasePractice      = "practice"
	PhaseQualification = "qualification"
	PhaseMain          = "main"
	PhaseDone          = "done"
	PhaseScreenedOut   = "screened_out"
	// PhaseAbandoned is the phase of a participant marked abandoned (silent
	// longer than Design.Abandon): no more trials, no completion code.
	PhaseAbandoned = "abandoned"
)

// ParticipantState is where a participant stands, derived from the stored
// trials alone (State).
type ParticipantState struct {
	Phase string
	// Next is the first unanswered trial; nil when the participant is done,
	// screened out or abandoned.
	Next *Trial
	// Done is the number of answered trials, Total the number planned.
	Done, Total int
	// Status and Reason are what the participant's stored status should be;
	// the server calls Store.SetStatus when they differ.
	Status Status
	Reason string
}

// Correct reports whether response is the right answer to stim: its
// ground truth (a category, or AnswerSame / AnswerDifferent).
func Correct(d *Design, stim *Stimulus, response string) bool {
	return stim != nil && response != "" && response == stim.GroundTruth
}

// State derives a participant's state from its trials (in Index order, as
// Store.Trials returns them):
//
//   - Practice trials are never scored.
//   - Once the last qualification trial is answered, a participant with
//     fewer than d.QualificationMinCorrect correct qualification answers is
//     screened out (Phase PhaseScreenedOut, Status StatusScreenedOut).
//   - When every trial is answered, a participant who failed more than
//     d.SanityMaxFailures sanity trials is excluded (StatusExcluded), any
//     other completed (StatusCompleted); Phase is PhaseDone.
//   - Otherwise Next is the first unanswered trial and Phase follows its
//     role (sanity trials are PhaseMain); Status is StatusActive.
//
// A participant whose stored status is StatusAbandoned stays abandoned
// (PhaseAbandoned). p may be nil. Trials whose stimulus the design lacks
// count as incorrect.
func State(d *Design, p *Participant, trials []Trial) ParticipantState {
	st := ParticipantState{Total: len(trials), Status: StatusActive}
	var qualN, qualAnswered, qualCorrect, sanityN, sanityFailed int
	for i := range trials {
		t := &trials[i]
		switch t.Role {
		case RoleQualification:
			qualN++
		case RoleSanity:
			sanityN++
		}
		if t.Answer == nil {
			if st.Next == nil {
				st.Next = t
			}
			continue
		}
		st.Done++
		ok := Correct(d, d.Stimulus(t.StimulusID), t.Answer.Response)
		switch t.Role {
		case RoleQualification:
			qualAnswered++
			if ok {
				qualCorrect++
			}
		case RoleSanity:
			if !ok {
				sanityFailed++
			}
		}
	}
	if p != nil && p.Status == StatusAbandoned {
		st.Phase, st.Next, st.Status, st.Reason = PhaseAbandoned, nil, StatusAbandoned, p.Reason
		return st
	}
	if qualN > 0 && qualAnswered == qualN && qualCorrect < d.QualificationMinCorrect {
		st.Phase, st.Next, st.Status = PhaseScreenedOut, nil, StatusScreenedOut
		st.Reason = fmt.Sprintf("qualification: %d of %d correct, %d needed", qualCorrect, qualN, d.QualificationMinCorrect)
		return st
	}
	if st.Next == nil {
		st.Phase, st.Status = PhaseDone, StatusCompleted
		if sanityFailed > d.SanityMaxFailures {
			st.Status = StatusExcluded
			st.Reason = fmt.Sprintf("sanity: %d of %d failed, at most %d allowed", sanityFailed, sanityN, d.SanityMaxFailures)
		}
		return st
	}
	switch st.Next.Role {
	case RolePractice:
		st.Phase = PhasePractice
	case RoleQualification:
		st.Phase = PhaseQualification
	default:
		st.Phase = PhaseMain
	}
	return st
}

// TimingOK reports whether a stimulus measured on screen for shownMS
// milliseconds on a display refreshing at refreshHz met t.Stimulus:
// |shownMS − t.Stimulus| ≤ t.ToleranceFrames · 1000 / refreshHz (a
// ToleranceFrames ≤ 0 counts as 1 frame, DefaultToleranceFrames). It is
// false for a refresh rate outside (0, 1000] Hz and for a non-finite or
// negative shownMS.
func TimingOK(t Timing, shownMS, refreshHz float64) bool {
	if !(refreshHz > 0 && refreshHz <= 1000) || math.IsNaN(shownMS) || math.IsInf(shownMS, 0) || shownMS < 0 {
		return false
	}
	tol := t.ToleranceFrames
	if !(tol > 0) {
		tol = DefaultToleranceFrames
	}
	want := float64(t.Stimulus) / 1e6
	return math.Abs(shownMS-want) <= tol*1000/refreshHz
}
