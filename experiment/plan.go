package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Plan returns the trials of participant number seq assigned to batch (−1:
// none): the practice trials in design order; QualificationTrials
// qualification stimuli drawn from the Qualification pool, in random order;
// then the batch's stimuli shuffled, with SanityTrials sanity stimuli drawn
// from the Sanity pool at random positions among them (see sanitySlots).
// Pool draws are spread over the stimuli's ground truths (drawFrom), so a
// participant's qualification trials are not all one answer. Each trial
// draws a noise mask. The plan is a pure function of (d.Seed, seq, batch)
// and the design: a store can rebuild it after a crash, and two
// participants differ only through seq. Token is left empty for the store
// to fill. Plan panics if batch is out of range.
func (d *Design) Plan(batch int, seq int64) []Trial {
	rng := rand.New(rand.NewPCG(d.Seed, uint64(seq)*0x9e3779b97f4a7c15+1))
	var out []Trial
	add := func(role Role, id string) {
		m := 0
		if d.Masks > 1 {
			m = rng.IntN(d.Masks)
		}
		out = append(out, Trial{Index: len(out), Role: role, StimulusID: id, Mask: m})
	}
	for _, id := range d.Practice {
		add(RolePractice, id)
	}
	for _, id := range d.drawFrom(rng, d.Qualification, d.QualificationTrials) {
		add(RoleQualification, id)
	}
	var main []string
	if batch >= 0 {
		if batch >= len(d.Batches) {
			panic(fmt.Sprintf("experiment: batch %d out of range [0, %d)", batch, len(d.Batches)))
		}
		main = append(main, d.Batches[batch].Stimuli...)
	}
	rng.Shuffle(len(main), func(i, j int) { main[i], main[j] = main[j], main[i] })
	s := d.drawFrom(rng, d.Sanity, d.SanityTrials)
	slot := sanitySlots(rng, len(main), len(s))
	next, k := 0, 0
	for i := range len(main) + len(s) {
		if k < len(s) && slot[k] == i {
			add(RoleSanity, s[k])
			k++
		} else {
			add(RoleMain, main[next])
			next++
		}
	}
	return out
}

// sanitySlots returns the positions, ascending, of k sanity trials among
// the n+k trials of the main phase: k distinct positions drawn uniformly
// from 1 … n+k−1, so each sanity trial is equally likely at every position
// except the first, which borders the practice and qualification trials
// (with n = 0 there is nothing else to place: 0 … k−1).
func sanitySlots(rng *rand.Rand, n, k int) []int {
	if n == 0 {
		out := make([]int, k)
		for i := range out {
			out[i] = i
		}
		return out
	}
	// A partial Fisher–Yates shuffle of 1 … n+k−1 draws k of them
	// without replacement, each k-subset equally likely.
	cand := make([]int, n+k-1)
	for i := range cand {
		cand[i] = i + 1
	}
	for i := range k {
		j := i + rng.IntN(len(cand)-i)
		cand[i], cand[j] = cand[j], cand[i]
	}
	out := cand[:k]
	slices.Sort(out)
	return out
}

// drawFrom returns k stimuli of pool (all of it when k is 0 or larger than
// the pool) in random order. They are taken in turn from the pool's
// ground truths, in random order, and within one ground truth at random,
// so that a participant's draw spreads over the answers as evenly as the
// pool allows.
func (d *Design) drawFrom(rng *rand.Rand, pool []string, k int) []string {
	if k <= 0 || k > len(pool) {
		k = len(pool)
	}
	var truths []string
	groups := map[string][]string{}
	for _, id := range pool {
		gt := ""
		if st := d.Stimulus(id); st != nil {
			gt = st.GroundTruth
		}
		if _, ok := groups[gt]; !ok {
			truths = append(truths, gt)
		}
		groups[gt] = append(groups[gt], id)
	}
	rng.Shuffle(len(truths), func(i, j int) { truths[i], truths[j] = truths[j], truths[i] })
	for _, gt := range truths {
		g := slices.Clone(groups[gt])
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		groups[gt] = g
	}
	out := make([]string, 0, k)
	for i := 0; len(out) < k; i++ {
		for _, gt := range truths {
			if g := groups[gt]; i < len(g) && len(out) < k {
				out = append(out, g[i])
			}
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Stimulus returns the stimulus with the id, or nil. It is fast after
// Freeze and safe for concurrent use as long as d is not modified.
func (d *Design) Stimulus(id string) *Stimulus {
	if d.index == nil {
		for i := range d.Stimuli {
			if d.Stimuli[i].ID == id {
				return &d.Stimuli[i]
			}
		}
		return nil
	}
	if i, ok := d.index[id]; ok {
		return &d.Stimuli[i]
	}
	return nil
}

// Freeze indexes the stimuli and computes Hash; call it once the design is
// complete, before sharing it between goroutines.
func (d *Design) Freeze() {
	d.index = make(map[string]int, len(d.Stimuli))
	for i := range d.Stimuli {
		d.index[d.Stimuli[i].ID] = i
	}
	d.ComputeHash()
}

// ComputeHash sets d.Hash to the SHA-256 of d's canonical JSON with Hash
// empty (Root is not part of it) and returns it.
func (d *Design) ComputeHash() string {
	c := *d
	c.Hash = ""
	c.index = nil
	b, err := json.Marshal(&c)
	if err != nil {
		panic("experiment: design does not marshal: " + err.Error())
	}
	sum := sha256.Sum256(b)
	d.Hash = hex.EncodeToString(sum[:])
	return d.Hash
}
