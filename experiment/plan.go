package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// Plan returns the trials of participant number seq assigned to batch (−1:
// none): the practice trials in design order, the qualification trials
// shuffled, then the batch's stimuli shuffled with the sanity trials spread
// evenly among them (the first never before the second main trial). Each
// trial draws a noise mask. The order is a pure function of (d.Seed, seq,
// batch); Token is left empty for the store to fill. Plan panics if batch
// is out of range.
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
	q := append([]string(nil), d.Qualification...)
	rng.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	for _, id := range q {
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
	s := append([]string(nil), d.Sanity...)
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	// Sanity trial k goes after main trial floor((k+1)·n/(len(s)+1)), so
	// they are spread evenly and none comes first.
	next := 0
	for i, id := range main {
		add(RoleMain, id)
		for next < len(s) && (next+1)*len(main) <= (i+1)*(len(s)+1) && i > 0 {
			add(RoleSanity, s[next])
			next++
		}
	}
	for ; next < len(s); next++ {
		add(RoleSanity, s[next])
	}
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
