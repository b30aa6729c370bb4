package robustness

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// OverlapTol is the slack of the band-overlap test: bands pinned to the
// same anchor (zero width) differ by rounding only, and must count as
// overlapping.
const OverlapTol = 1e-9

// Property selects a curve of an Estimate.
type Property int

const (
	AccuracyCurve    Property = iota // s_a
	ConsistencyCurve                 // s_p
)

func (e *Estimate) curve(p Property) *Curve {
	if p == ConsistencyCurve {
		return &e.Consistency
	}
	return &e.Accuracy
}

// SimilarityTable is the pairwise "visually similar" relation of corruptions
// for one subject (normally humans).
type SimilarityTable struct {
	Corruptions []string
	// Similar[i][j]: the 83 % bands of i and j overlap (within OverlapTol)
	// at every grid point of their common covered range (true on the diagonal).
	Similar [][]bool
	// Gap[i][j] is the largest separation between the two bands over that
	// range, max_v (max(lo_i, lo_j) − min(hi_i, hi_j)); ≤ 0 means overlap
	// everywhere. NaN when the covered ranges share no grid point.
	Gap [][]float64
	// Classes are the maximal cliques of the similarity graph (sets of
	// mutually similar corruptions), each sorted, largest first; a corruption
	// similar to no other forms a class of its own. Cliques may share members.
	Classes [][]string
	// Components are the connected components (the transitive closure),
	// for reference: they can join corruptions that are not similar.
	Components [][]string
	Warnings   []error
}

// Similarity compares the 83 % bands of the chosen curve of every estimate
// (one per corruption, all with bootstrap bands on the same grid). Two bands
// overlap at grid point v when max(lo_i, lo_j) ≤ min(hi_i, hi_j); they are
// compared only at grid points inside both curves' Covered ranges, where the
// curves rest on data rather than on extrapolation. Estimates with different
// VIF flavours return ErrVIFMismatch unless opt.AllowVIFMismatch.
func Similarity(ests []*Estimate, p Property, opt CompareOptions) (*SimilarityTable, error) {
	t := &SimilarityTable{}
	n := len(ests)
	for i, e := range ests {
		c := e.curve(p)
		if c.Lo83 == nil {
			return nil, fmt.Errorf("robustness: similarity needs bootstrap bands; %s/%s has none", e.Subject, e.Corruption)
		}
		if len(c.Grid) != len(ests[0].curve(p).Grid) {
			return nil, fmt.Errorf("robustness: similarity needs one grid; %s/%s has %d points, %s/%s %d",
				e.Subject, e.Corruption, len(c.Grid), ests[0].Subject, ests[0].Corruption, len(ests[0].curve(p).Grid))
		}
		if e.VIFMethod != ests[0].VIFMethod {
			err := fmt.Errorf("%w: %s uses %q, %s uses %q", ErrVIFMismatch, e.Corruption, e.VIFMethod, ests[0].Corruption, ests[0].VIFMethod)
			if !opt.AllowVIFMismatch {
				return nil, err
			}
			t.Warnings = append(t.Warnings, err)
		}
		t.Corruptions = append(t.Corruptions, ests[i].Corruption)
	}
	t.Similar = make([][]bool, n)
	t.Gap = make([][]float64, n)
	for i := range n {
		t.Similar[i] = make([]bool, n)
		t.Gap[i] = make([]float64, n)
	}
	for i := range n {
		for j := i; j < n; j++ {
			g := bandGap(ests[i].curve(p), ests[j].curve(p))
			t.Gap[i][j], t.Gap[j][i] = g, g
			s := g <= OverlapTol // NaN (no common range) is not similar
			t.Similar[i][j], t.Similar[j][i] = s, s
			if math.IsNaN(g) && i != j {
				t.Warnings = append(t.Warnings, fmt.Errorf("robustness: %s and %s cover no common Δv range", t.Corruptions[i], t.Corruptions[j]))
			}
		}
	}
	for i := range n {
		t.Similar[i][i] = true
	}
	for _, c := range maximalCliques(t.Similar) {
		t.Classes = append(t.Classes, t.names(c))
	}
	for _, c := range components(t.Similar) {
		t.Components = append(t.Components, t.names(c))
	}
	return t, nil
}

func (t *SimilarityTable) names(idx []int) []string {
	s := make([]string, len(idx))
	for k, i := range idx {
		s[k] = t.Corruptions[i]
	}
	sort.Strings(s)
	return s
}

// bandGap is max over the common covered grid points of
// max(lo_a, lo_b) − min(hi_a, hi_b).
func bandGap(a, b *Curve) float64 {
	lo := math.Max(a.Covered[0], b.Covered[0])
	hi := math.Min(a.Covered[1], b.Covered[1])
	g := math.NaN()
	for k, v := range a.Grid {
		if v < lo-1e-12 || v > hi+1e-12 {
			continue
		}
		d := math.Max(a.Lo83[k], b.Lo83[k]) - math.Min(a.Hi83[k], b.Hi83[k])
		if math.IsNaN(g) || d > g {
			g = d
		}
	}
	return g
}

// maximalCliques lists the maximal cliques (Bron & Kerbosch, 1973, with
// pivoting), each sorted, ordered by size (largest first) then by members.
func maximalCliques(adj [][]bool) [][]int {
	var out [][]int
	var bk func(r, p, x []int)
	bk = func(r, p, x []int) {
		if len(p) == 0 && len(x) == 0 {
			c := slices.Clone(r)
			sort.Ints(c)
			out = append(out, c)
			return
		}
		pivot := -1
		best := -1
		for _, u := range append(slices.Clone(p), x...) {
			k := 0
			for _, v := range p {
				if adj[u][v] && u != v {
					k++
				}
			}
			if k > best {
				best, pivot = k, u
			}
		}
		for _, v := range slices.Clone(p) {
			if pivot >= 0 && adj[pivot][v] && pivot != v {
				continue
			}
			var np, nx []int
			for _, w := range p {
				if w != v && adj[v][w] {
					np = append(np, w)
				}
			}
			for _, w := range x {
				if w != v && adj[v][w] {
					nx = append(nx, w)
				}
			}
			bk(append(slices.Clone(r), v), np, nx)
			p = slices.DeleteFunc(p, func(w int) bool { return w == v })
			x = append(x, v)
		}
	}
	all := make([]int, len(adj))
	for i := range all {
		all[i] = i
	}
	bk(nil, all, nil)
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return slices.Compare(out[i], out[j]) < 0
	})
	return out
}

// components lists the connected components, ordered by smallest member.
func components(adj [][]bool) [][]int {
	n := len(adj)
	seen := make([]bool, n)
	var out [][]int
	for s := range n {
		if seen[s] {
			continue
		}
		var c []int
		stack := []int{s}
		seen[s] = true
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			c = append(c, u)
			for v := range n {
				if adj[u][v] && !seen[v] {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
		sort.Ints(c)
		out = append(out, c)
	}
	return out
}
