package experiment

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// poolDesign returns a frozen design with practice practice stimuli, a
// qualification pool of qPool (qTrials per participant), a sanity pool of
// sPool (sTrials per participant) and one batch of perBatch main stimuli;
// every stimulus has a source of its own and the pools alternate between
// two ground truths.
func poolDesign(practice, qPool, qTrials, sPool, sTrials, perBatch int) *Design {
	d := &Design{Name: "pools", Kind: KindRecognition, Seed: 7, Masks: 4,
		Categories:          []Category{{Name: "car"}, {Name: "not car"}},
		QualificationTrials: qTrials, SanityTrials: sTrials}
	add := func(prefix string, i int, role Role) string {
		id := fmt.Sprintf("%s%d", prefix, i)
		d.Stimuli = append(d.Stimuli, Stimulus{ID: id, Role: role, SourceID: "src-" + id, GroundTruth: d.Categories[i%2].Name, IsOriginal: true})
		return id
	}
	for i := range practice {
		d.Practice = append(d.Practice, add("p", i, RolePractice))
	}
	for i := range qPool {
		d.Qualification = append(d.Qualification, add("q", i, RoleQualification))
	}
	for i := range sPool {
		d.Sanity = append(d.Sanity, add("s", i, RoleSanity))
	}
	b := Batch{ID: 0}
	for i := range perBatch {
		b.Stimuli = append(b.Stimuli, add("m", i, RoleMain))
	}
	d.Batches = []Batch{b}
	d.Freeze()
	return d
}

// TestPlanSanityPositionsUniform checks finding 2 of issue 15: a sanity
// trial's position among the main trials is drawn per participant,
// uniformly over every position but the first of the main phase (which
// borders the qualification trials). Before, every participant had the
// sanity trials at the same indices.
func TestPlanSanityPositionsUniform(t *testing.T) {
	const (
		practice, qTrials, sTrials, perBatch = 2, 3, 2, 20
		participants                         = 20000
	)
	d := poolDesign(practice, 12, qTrials, 8, sTrials, perBatch)
	start := practice + qTrials // index of the first main-phase trial
	slots := perBatch + sTrials - 1
	count := make([]int, perBatch+sTrials)
	for seq := range int64(participants) {
		plan := d.Plan(0, seq)
		if len(plan) != start+perBatch+sTrials {
			t.Fatalf("participant %d: %d trials, want %d", seq, len(plan), start+perBatch+sTrials)
		}
		for i, tr := range plan {
			if tr.Index != i {
				t.Fatalf("participant %d: trial %d has index %d", seq, i, tr.Index)
			}
			switch {
			case i < practice && tr.Role != RolePractice, i >= practice && i < start && tr.Role != RoleQualification:
				t.Fatalf("participant %d: trial %d has role %s", seq, i, tr.Role)
			case i >= start && tr.Role != RoleMain && tr.Role != RoleSanity:
				t.Fatalf("participant %d: trial %d has role %s", seq, i, tr.Role)
			}
			if tr.Role == RoleSanity {
				count[i-start]++
			}
		}
	}
	// Never next to the qualification trials.
	if count[0] != 0 {
		t.Errorf("%d sanity trials right after the last qualification trial, want 0", count[0])
	}
	// Pearson's chi-square against the uniform distribution over the
	// slots 1 … perBatch+sTrials−1: 20 degrees of freedom, whose 0.999
	// quantile is 45.31 (R: qchisq(0.999, 20)). The seed is fixed, so the
	// test is deterministic; a correct sampler fails it with probability
	// 0.001 over seeds.
	want := float64(participants*sTrials) / float64(slots)
	chi2 := 0.0
	for _, c := range count[1:] {
		chi2 += (float64(c) - want) * (float64(c) - want) / want
	}
	t.Logf("sanity positions over %d participants: %v; chi-square %.2f (df %d)", participants, count, chi2, slots-1)
	if chi2 > 45.31 {
		t.Errorf("sanity positions %v are not uniform over slots 1…%d: chi-square %.1f > 45.31 (df 20, p = 0.001)", count, slots, chi2)
	}
}

// TestPlanPools checks that qualification and sanity stimuli are drawn per
// participant from their pools: the right numbers, no source twice in a
// plan, every pool image used about equally often, draws differing between
// participants and spread over the ground truths.
func TestPlanPools(t *testing.T) {
	const participants = 4000
	d := poolDesign(1, 20, 4, 10, 2, 12)
	use := map[string]int{}
	qSets := map[string]bool{}
	for seq := range int64(participants) {
		plan := d.Plan(0, seq)
		seen := map[string]int{}
		var q []string
		truths := map[string]int{}
		n := map[Role]int{}
		for _, tr := range plan {
			st := d.Stimulus(tr.StimulusID)
			if st == nil {
				t.Fatalf("participant %d: unknown stimulus %s", seq, tr.StimulusID)
			}
			if st.Role != tr.Role {
				t.Fatalf("participant %d trial %d: stimulus %s of role %s as a %s trial", seq, tr.Index, st.ID, st.Role, tr.Role)
			}
			if j, dup := seen[st.SourceID]; dup {
				t.Fatalf("participant %d: source %s in trials %d and %d", seq, st.SourceID, j, tr.Index)
			}
			seen[st.SourceID] = tr.Index
			n[tr.Role]++
			if tr.Role == RoleQualification || tr.Role == RoleSanity {
				use[st.ID]++
			}
			if tr.Role == RoleQualification {
				q = append(q, st.ID)
				truths[st.GroundTruth]++
			}
		}
		if n[RolePractice] != 1 || n[RoleQualification] != 4 || n[RoleSanity] != 2 || n[RoleMain] != 12 {
			t.Fatalf("participant %d: trials per role %v, want practice 1, qualification 4, sanity 2, main 12", seq, n)
		}
		// The pool alternates car / not car: 4 draws are 2 of each.
		if truths["car"] != 2 || truths["not car"] != 2 {
			t.Errorf("participant %d: qualification answers %v, want 2 car and 2 not car", seq, truths)
		}
		slices.Sort(q)
		qSets[strings.Join(q, ",")] = true
	}
	// 4 of 20 in two strata of 10: C(10,2)² = 2025 possible sets; 4000
	// participants see most of them.
	if len(qSets) < 1000 {
		t.Errorf("%d distinct qualification sets among %d participants, want ≥ 1000", len(qSets), participants)
	}
	// Each qualification image is drawn with probability 4/20, each sanity
	// image 2/10: about 800 times each. ±15% is more than 6 standard
	// deviations of Binomial(4000, 0.2) (sd 25.3).
	for _, id := range slices.Concat(d.Qualification, d.Sanity) {
		if c := use[id]; c < 680 || c > 920 {
			t.Errorf("pool image %s drawn %d times in %d plans, want about 800", id, c, participants)
		}
	}
}

// TestPlanDeterministic: a plan is a pure function of (seed, participant,
// batch), whatever was planned before; other participants get other plans.
func TestPlanDeterministic(t *testing.T) {
	d := poolDesign(2, 30, 5, 10, 2, 20)
	first := map[int64][]Trial{}
	for seq := range int64(50) {
		first[seq] = d.Plan(0, seq)
	}
	distinct := map[string]bool{}
	for seq := int64(49); seq >= 0; seq-- {
		again := d.Plan(0, seq)
		if !reflect.DeepEqual(again, first[seq]) {
			t.Fatalf("participant %d: two plans differ:\n%v\n%v", seq, first[seq], again)
		}
		distinct[fmt.Sprint(again)] = true
	}
	if len(distinct) != 50 {
		t.Errorf("%d distinct plans for 50 participants", len(distinct))
	}
	// A copy of the design (as the store's StoredDesign returns) plans the
	// same.
	c := *d
	c.index = nil
	if !reflect.DeepEqual(c.Plan(0, 7), first[7]) {
		t.Error("a copy of the design plans differently")
	}
	// Another seed, other plans.
	c.Seed++
	if reflect.DeepEqual(c.Plan(0, 7), first[7]) {
		t.Error("another seed gave the same plan")
	}
}

// TestPlanWholePool: with QualificationTrials and SanityTrials 0 (designs
// made before pools, and pools no larger than the draw), every participant
// gets the whole pools.
func TestPlanWholePool(t *testing.T) {
	d := poolDesign(1, 3, 0, 2, 0, 6)
	for seq := range int64(20) {
		var q, s []string
		for _, tr := range d.Plan(0, seq) {
			switch tr.Role {
			case RoleQualification:
				q = append(q, tr.StimulusID)
			case RoleSanity:
				s = append(s, tr.StimulusID)
			}
		}
		slices.Sort(q)
		slices.Sort(s)
		if !slices.Equal(q, d.Qualification) || !slices.Equal(s, d.Sanity) {
			t.Errorf("participant %d: qualification %v, sanity %v; want the whole pools %v, %v", seq, q, s, d.Qualification, d.Sanity)
		}
	}
	// No main trials (batch −1): the sanity trials follow the
	// qualification trials.
	plan := d.Plan(-1, 0)
	if len(plan) != 6 || plan[4].Role != RoleSanity || plan[5].Role != RoleSanity {
		t.Errorf("plan without a batch: %v", plan)
	}
}
