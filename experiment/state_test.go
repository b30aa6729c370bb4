package experiment

import (
	"math"
	"strings"
	"testing"
	"time"
)

// stateDesign has stimuli p0 (practice), q0…q2 (qualification), m0…m2
// (main) and s0…s1 (sanity), all with ground truth "a".
func stateDesign() *Design {
	d := &Design{QualificationMinCorrect: 2, SanityMaxFailures: 1}
	for _, id := range []string{"p0", "q0", "q1", "q2", "m0", "m1", "m2", "s0", "s1"} {
		d.Stimuli = append(d.Stimuli, Stimulus{ID: id, GroundTruth: "a"})
	}
	d.Freeze()
	return d
}

// stateTrials returns the plan p0 q0 q1 q2 m0 s0 m1 s1 m2 with the given
// answers ("" = unanswered).
func stateTrials(answers ...string) []Trial {
	plan := []struct {
		role Role
		id   string
	}{{RolePractice, "p0"}, {RoleQualification, "q0"}, {RoleQualification, "q1"}, {RoleQualification, "q2"},
		{RoleMain, "m0"}, {RoleSanity, "s0"}, {RoleMain, "m1"}, {RoleSanity, "s1"}, {RoleMain, "m2"}}
	var ts []Trial
	for i, p := range plan {
		t := Trial{Participant: 1, Index: i, Role: p.role, StimulusID: p.id}
		if i < len(answers) && answers[i] != "" {
			t.Answer = &Response{Response: answers[i]}
		}
		ts = append(ts, t)
	}
	return ts
}

func TestState(t *testing.T) {
	d := stateDesign()
	for _, tc := range []struct {
		name    string
		answers []string
		status  Status
		phase   string
		next    int // −1: nil
		done    int
		reason  string
	}{
		{"new", nil, StatusActive, PhasePractice, 0, 0, ""},
		{"practice wrong is not scored", []string{"b"}, StatusActive, PhaseQualification, 1, 1, ""},
		{"qualification in progress, 2 wrong", []string{"a", "b", "b"}, StatusActive, PhaseQualification, 3, 3, ""},
		{"qualification failed", []string{"a", "b", "b", "a"}, StatusScreenedOut, PhaseScreenedOut, -1, 4, "qualification: 1 of 3 correct, 2 needed"},
		{"qualification passed", []string{"b", "a", "b", "a"}, StatusActive, PhaseMain, 4, 4, ""},
		{"sanity trial is phase main", []string{"a", "a", "a", "a", "x"}, StatusActive, PhaseMain, 5, 5, ""},
		{"completed, one sanity failure allowed", []string{"a", "a", "a", "a", "x", "b", "x", "a", "x"}, StatusCompleted, PhaseDone, -1, 9, ""},
		{"excluded, two sanity failures", []string{"a", "a", "a", "a", "x", "b", "x", "b", "x"}, StatusExcluded, PhaseDone, -1, 9, "sanity: 2 of 2 failed, at most 1 allowed"},
		{"two failures but not finished", []string{"a", "a", "a", "a", "x", "b", "x", "b"}, StatusActive, PhaseMain, 8, 8, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := State(d, &Participant{Status: StatusActive}, stateTrials(tc.answers...))
			if st.Status != tc.status || st.Phase != tc.phase || st.Done != tc.done || st.Total != 9 || st.Reason != tc.reason {
				t.Errorf("state = %+v, want status %s phase %s done %d reason %q", st, tc.status, tc.phase, tc.done, tc.reason)
			}
			if (st.Next == nil) != (tc.next < 0) || (st.Next != nil && st.Next.Index != tc.next) {
				t.Errorf("next = %+v, want index %d", st.Next, tc.next)
			}
		})
	}
	st := State(d, &Participant{Status: StatusAbandoned}, stateTrials("a"))
	if st.Status != StatusAbandoned || st.Phase != PhaseAbandoned || st.Next != nil {
		t.Errorf("abandoned: %+v", st)
	}
	// No qualification trials: never screened out.
	d0 := stateDesign()
	d0.QualificationMinCorrect = 0
	if st := State(d0, nil, stateTrials("a", "b", "b", "b")); st.Status != StatusActive || st.Phase != PhaseMain {
		t.Errorf("min correct 0: %+v", st)
	}
}

func TestCorrect(t *testing.T) {
	d := stateDesign()
	s := d.Stimulus("m0")
	if !Correct(d, s, "a") || Correct(d, s, "b") || Correct(d, s, "") || Correct(d, nil, "a") {
		t.Error("Correct")
	}
}

func TestTimingOK(t *testing.T) {
	tm := Timing{Stimulus: 200 * time.Millisecond, ToleranceFrames: 1}
	for _, tc := range []struct {
		shown, hz float64
		want      bool
	}{
		// One frame at 60 Hz is 16.67 ms.
		{200, 60, true}, {216.6, 60, true}, {183.4, 60, true}, {216.8, 60, false}, {183.2, 60, false},
		// At 144 Hz one frame is 6.94 ms.
		{206.9, 144, true}, {207, 144, false},
		{200, 0, false}, {200, -60, false}, {200, math.NaN(), false}, {math.NaN(), 60, false}, {math.Inf(1), 60, false},
		{-1, 60, false}, {200, 5000, false},
	} {
		if got := TimingOK(tm, tc.shown, tc.hz); got != tc.want {
			t.Errorf("TimingOK(200ms ±1 frame, %v ms, %v Hz) = %v, want %v", tc.shown, tc.hz, got, tc.want)
		}
	}
	tm.ToleranceFrames = 2
	if !TimingOK(tm, 233, 60) || TimingOK(tm, 234, 60) {
		t.Error("two frames of tolerance at 60 Hz is 33.3 ms")
	}
	tm.ToleranceFrames = 0 // the default, one frame
	if !TimingOK(tm, 216, 60) || TimingOK(tm, 217, 60) {
		t.Error("tolerance 0 should mean one frame")
	}
}

func TestStateReasonMentionsNumbers(t *testing.T) {
	st := State(stateDesign(), nil, stateTrials("a", "b", "b", "b"))
	if !strings.Contains(st.Reason, "0 of 3") {
		t.Errorf("reason %q", st.Reason)
	}
}
