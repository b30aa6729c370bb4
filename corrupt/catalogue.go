package corrupt

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vcr-bench/vcr/imageio"

	"github.com/vcr-bench/vcr/internal/suggest"
)

// Family groups corruptions as ImageNet-C does.
type Family string

const (
	Noise    Family = "noise"
	Blur     Family = "blur"
	Colour   Family = "colour"
	Weather  Family = "weather"
	Digital  Family = "digital"
	Geometry Family = "geometric"
)

// Kind says which values a parameter takes.
type Kind int

const (
	// Continuous parameters take any real value in [Min, Max].
	Continuous Kind = iota
	// Integer parameters take the integers in [Min, Max].
	Integer
	// Odd parameters take the odd integers in [Min, Max] (kernel sizes).
	Odd
)

func (k Kind) String() string {
	switch k {
	case Integer:
		return "integer"
	case Odd:
		return "odd_integer"
	}
	return "continuous"
}

// MarshalJSON writes the kind as its name.
func (k Kind) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// Param describes one named parameter and its sampling domain.
type Param struct {
	Name string  `json:"name"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Kind Kind    `json:"kind"`
	// Trend is +1 when larger values corrupt more, −1 when smaller values
	// corrupt more, 0 when the parameter is not monotone (an angle, a hue shift).
	Trend int `json:"trend"`
	// Doc says what the parameter does and where its domain comes from.
	Doc string `json:"doc"`
	// TargetMin and TargetMax widen the domain for Δv-targeted sampling
	// only (testset.NewTargeted; `vcr corrupt --extended`), where the
	// published domain [Min, Max] cannot reach small Δv: shot noise's
	// λ ∈ [1, 5] never gets below Δv ≈ 0.7, and larger λ — the same
	// operation, weaker — reaches Δv ≈ 0. Zero means the same as Min
	// (TargetMin) or Max (TargetMax); when set, the target range contains
	// [Min, Max]. Sample, Check and ParseParams keep [Min, Max]; Target,
	// CheckTarget and Extended use the target range. Rows of a targeted test
	// set record the parameters actually used, which may lie outside [Min, Max].
	TargetMin float64 `json:"target_min,omitempty"`
	TargetMax float64 `json:"target_max,omitempty"`
	// TargetLog asks targeted sampling to explore the target range on a log
	// scale: it spans decades, and Δv changes per decade (λ from 1 to 10⁶).
	TargetLog bool `json:"target_log,omitempty"`
}

// Target returns p with [Min, Max] replaced by its target range (see
// TargetMin) and the target fields cleared except TargetLog.
func (p Param) Target() Param {
	if p.TargetMin != 0 {
		p.Min = p.TargetMin
	}
	if p.TargetMax != 0 {
		p.Max = p.TargetMax
	}
	p.TargetMin, p.TargetMax = 0, 0
	return p
}

// Widened reports whether p's target range is wider than [Min, Max].
func (p Param) Widened() bool {
	t := p.Target()
	return t.Min != p.Min || t.Max != p.Max
}

// Contains reports whether v is a valid value of p: inside [Min, Max] and, for
// integer kinds, integral (and odd for Odd).
func (p Param) Contains(v float64) bool {
	if math.IsNaN(v) || v < p.Min || v > p.Max {
		return false
	}
	switch p.Kind {
	case Integer:
		return v == math.Trunc(v)
	case Odd:
		return v == math.Trunc(v) && math.Mod(math.Abs(v), 2) == 1
	}
	return true
}

// DomainString formats the domain for messages, e.g. "[0.0001, 1]" or "odd integers in [3, 15]".
func (p Param) DomainString() string {
	r := "[" + fmtNum(p.Min) + ", " + fmtNum(p.Max) + "]"
	switch p.Kind {
	case Integer:
		return "integers in " + r
	case Odd:
		return "odd integers in " + r
	}
	return r
}

// TargetString formats the target range for listings, e.g. "[1, 1e+06]
// log"; empty when it is not wider than the domain.
func (p Param) TargetString() string {
	if !p.Widened() {
		return ""
	}
	t := p.Target()
	s := "[" + fmtNum(t.Min) + ", " + fmtNum(t.Max) + "]"
	if p.TargetLog {
		s += " log"
	}
	return s
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// sample draws a value uniformly from the domain.
func (p Param) sample(rng *rand.Rand) float64 {
	switch p.Kind {
	case Integer:
		lo, hi := int64(math.Ceil(p.Min)), int64(math.Floor(p.Max))
		return float64(lo + rng.Int64N(hi-lo+1))
	case Odd:
		lo, hi := int64(math.Ceil(p.Min)), int64(math.Floor(p.Max))
		if lo%2 == 0 {
			lo++
		}
		if hi%2 == 0 {
			hi--
		}
		return float64(lo + 2*rng.Int64N((hi-lo)/2+1))
	}
	if p.Min == p.Max {
		return p.Min
	}
	return p.Min + rng.Float64()*(p.Max-p.Min)
}

// ApplyFunc applies a corruption with parameter vector p (in the order of
// Corruption.Params) to src, writing into dst (same size, not aliasing src).
// Randomness comes only from rng.
type ApplyFunc func(dst, src *imageio.Image, p []float64, rng *rand.Rand)

// Corruption is one entry of the catalogue.
type Corruption struct {
	Name   string  `json:"name"`
	Family Family  `json:"family"`
	Params []Param `json:"params"`
	// Severities holds the five ImageNet-C severities (s1…s5) as parameter
	// vectors in Params order; nil when ImageNet-C has no such corruption.
	// Severity values may lie outside the sampling domain (e.g. shot noise).
	Severities [][]float64 `json:"imagenet_c_severities,omitempty"`
	// Identity is a parameter vector at which Apply returns the input (within
	// 8-bit rounding), or nil when none exists. It may lie outside the
	// sampling domain.
	Identity []float64 `json:"identity,omitempty"`
	// Doc describes the operation, its source and deliberate departures.
	Doc string `json:"doc"`
	// Papers lists where the corruption is used: "vcr", "icse", "imagenet-c".
	Papers []string `json:"papers,omitempty"`
	// Textures names the texture set of a corruption that draws from one
	// (frost): FrostImageNetC for the catalogue's, FrostProcedural, or a
	// fingerprint of user textures (NewFrost); empty for the others. A test
	// set records it in run.json, so a resume with other textures is refused.
	Textures string `json:"textures,omitempty"`

	// accept, when not nil, is the domain Check and ParseParams accept in
	// place of Params (Extended: the target ranges widened to the
	// ImageNet-C severity values); Sample keeps Params.
	accept []Param

	apply ApplyFunc
}

// Apply writes T(src, p) into dst. It panics if dst and src differ in size,
// alias each other, or len(p) != len(c.Params); parameter values are not
// checked against the domain (use Check).
func (c *Corruption) Apply(dst, src *imageio.Image, p []float64, rng *rand.Rand) {
	if !dst.SameSize(src) {
		panic(fmt.Sprintf("corrupt: %s: dst %dx%d, src %dx%d", c.Name, dst.Width, dst.Height, src.Width, src.Height))
	}
	if len(src.Ch[0]) > 0 && &dst.Ch[0][0] == &src.Ch[0][0] {
		panic("corrupt: " + c.Name + ": dst aliases src")
	}
	if len(p) != len(c.Params) {
		panic(fmt.Sprintf("corrupt: %s takes %d parameters, got %d", c.Name, len(c.Params), len(p)))
	}
	cleanVectorState()
	c.apply(dst, src, p, rng)
}

// Sample draws a parameter vector uniformly from the domain.
func (c *Corruption) Sample(rng *rand.Rand) []float64 {
	p := make([]float64, len(c.Params))
	for i, d := range c.Params {
		p[i] = d.sample(rng)
	}
	return p
}

// Check returns an error naming the first parameter outside its domain (for
// an Extended copy, its accepted domain).
func (c *Corruption) Check(p []float64) error {
	if len(p) != len(c.Params) {
		return fmt.Errorf("%s takes %d parameters (%s), got %d", c.Name, len(c.Params), strings.Join(c.ParamNames(), ", "), len(p))
	}
	for i, d := range c.accepted() {
		if !d.Contains(p[i]) {
			return &DomainError{Corruption: c.Name, Param: d, Value: p[i]}
		}
	}
	return nil
}

// CheckTarget is Check against every parameter's target range (Param.Target):
// the domain of Δv-targeted sampling.
func (c *Corruption) CheckTarget(p []float64) error {
	if len(p) != len(c.Params) {
		return c.Check(p)
	}
	for i, d := range c.Params {
		if t := d.Target(); !t.Contains(p[i]) {
			return &DomainError{Corruption: c.Name, Param: t, Value: p[i]}
		}
	}
	return nil
}

// Extended returns a copy of c whose parameter domains are the target
// ranges (Param.Target): its Sample draws what targeted sampling may draw.
// Its Check and ParseParams accept more: each parameter's target range
// widened to contain that parameter's value in every ImageNet-C severity
// (e.g. glass_blur iterations 1…3, fog decay down to 1.4), so every
// parameter vector that targeted sampling or 'vcr generate --imagenet-c'
// records is accepted. The copy applies the same operation.
func (c *Corruption) Extended() *Corruption {
	e := *c
	e.Params = make([]Param, len(c.Params))
	e.accept = make([]Param, len(c.Params))
	for i, p := range c.Params {
		e.Params[i] = p.Target()
		a := e.Params[i]
		for _, s := range c.Severities {
			a.Min, a.Max = min(a.Min, s[i]), max(a.Max, s[i])
		}
		e.accept[i] = a
	}
	return &e
}

// accepted returns the domain Check and ParseParams accept.
func (c *Corruption) accepted() []Param {
	if c.accept != nil {
		return c.accept
	}
	return c.Params
}

// DomainError reports a parameter value outside its domain.
type DomainError struct {
	Corruption string
	Param      Param
	Value      float64
}

func (e *DomainError) Error() string {
	return fmt.Sprintf("%s: parameter %s = %s is outside its domain %s", e.Corruption, e.Param.Name, fmtNum(e.Value), e.Param.DomainString())
}

// ParamNames returns the parameter names in order.
func (c *Corruption) ParamNames() []string {
	n := make([]string, len(c.Params))
	for i, p := range c.Params {
		n[i] = p.Name
	}
	return n
}

// Named returns p as a name → value map (for JSON output).
func (c *Corruption) Named(p []float64) map[string]float64 {
	m := make(map[string]float64, len(p))
	for i, v := range p {
		m[c.Params[i].Name] = v
	}
	return m
}

// ParseParams builds a parameter vector from "name=value" assignments.
// Parameters not assigned are drawn from the domain with rng (which may be nil
// when every parameter is assigned). Unknown names, duplicates, malformed
// numbers and values outside the domain are errors that name the problem.
func (c *Corruption) ParseParams(assign []string, rng *rand.Rand) ([]float64, error) {
	set := make([]bool, len(c.Params))
	p := make([]float64, len(c.Params))
	for _, a := range assign {
		name, val, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("parameter %q is not of the form name=value", a)
		}
		i := slices.IndexFunc(c.Params, func(d Param) bool { return d.Name == name })
		if i < 0 {
			if len(c.Params) == 0 {
				return nil, fmt.Errorf("%s has no parameters (got %q)", c.Name, name)
			}
			return nil, fmt.Errorf("%s has no parameter %q; its parameters are %s", c.Name, name, strings.Join(c.ParamNames(), ", "))
		}
		if set[i] {
			return nil, fmt.Errorf("parameter %s given twice", name)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("parameter %s: %q is not a finite number", name, val)
		}
		if a := c.accepted()[i]; !a.Contains(v) {
			return nil, &DomainError{Corruption: c.Name, Param: a, Value: v}
		}
		p[i], set[i] = v, true
	}
	for i, d := range c.Params {
		if !set[i] {
			if rng == nil {
				return nil, fmt.Errorf("%s: parameter %s not given", c.Name, d.Name)
			}
			p[i] = d.sample(rng)
		}
	}
	return p, nil
}

var registry = map[string]*Corruption{}

// aliases maps other names in use to catalogue names: the ICSE 2022 data
// files call RGB shift "RGB", and albumentations-style short names.
var aliases = map[string]string{
	"rgb":           "rgb_shift",
	"hsv":           "hue_saturation_value",
	"jpeg":          "jpeg_compression",
	"colour_jitter": "color_jitter",
}

// register adds c to the catalogue; called from init functions. It panics on
// duplicate names or malformed entries, so mistakes fail every test.
func register(c *Corruption) {
	if _, dup := registry[c.Name]; dup {
		panic("corrupt: duplicate corruption " + c.Name)
	}
	if c.apply == nil {
		panic("corrupt: " + c.Name + " has no apply function")
	}
	for _, s := range c.Severities {
		if len(s) != len(c.Params) {
			panic("corrupt: " + c.Name + ": severity has wrong length")
		}
	}
	if c.Identity != nil && len(c.Identity) != len(c.Params) {
		panic("corrupt: " + c.Name + ": identity has wrong length")
	}
	for _, p := range c.Params {
		if !(p.Min <= p.Max) {
			panic("corrupt: " + c.Name + ": empty domain for " + p.Name)
		}
		if t := p.Target(); t.Min > p.Min || t.Max < p.Max || (p.TargetLog && !(t.Min > 0)) {
			panic("corrupt: " + c.Name + ": target range of " + p.Name + " must contain the domain (and be positive for TargetLog)")
		}
	}
	registry[c.Name] = c
}

// All returns every corruption, sorted by family then name.
func All() []*Corruption {
	out := make([]*Corruption, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	famOrder := map[Family]int{Noise: 0, Blur: 1, Colour: 2, Weather: 3, Digital: 4, Geometry: 5}
	sort.Slice(out, func(i, j int) bool {
		if fi, fj := famOrder[out[i].Family], famOrder[out[j].Family]; fi != fj {
			return fi < fj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Lookup returns the corruption with the given name. An unknown name gives an
// error suggesting the closest names.
func Lookup(name string) (*Corruption, error) {
	if c, ok := registry[name]; ok {
		return c, nil
	}
	norm := strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(name))
	if c, ok := registry[norm]; ok {
		return c, nil
	}
	if c, ok := registry[aliases[norm]]; ok {
		return c, nil
	}
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for n := range registry {
		cs = append(cs, cand{n, nameDistance(norm, n)})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var sug []string
	for _, c := range cs {
		if len(sug) == 3 || (len(sug) > 0 && c.d > len(norm)/2+1) {
			break
		}
		sug = append(sug, c.name)
	}
	return nil, fmt.Errorf("unknown corruption %q; did you mean %s? (vcr corruptions lists all)", name, strings.Join(sug, ", "))
}

// nameDistance scores how far a typed name is from a catalogue name: the
// edit distance to the whole name, to its prefix of the typed length (people
// type the start of a name), or to one of its words, whichever is smallest.
func nameDistance(typed, name string) int {
	if strings.Contains(name, typed) || strings.Contains(typed, name) {
		return 1
	}
	d := suggest.Distance(typed, name)
	if len(name) > len(typed) {
		d = min(d, suggest.Distance(typed, name[:len(typed)])+1)
	}
	for _, w := range strings.Split(name, "_") {
		d = min(d, suggest.Distance(typed, w)+1)
	}
	return d
}

// NewRand returns the generator for draw index of a run with the given master
// seed. Draws depend only on (seed, index), never on worker order.
func NewRand(seed, index uint64) *rand.Rand {
	// Mix the index so that neighbouring (seed, index) pairs give unrelated streams.
	return rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, splitmix(index)))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
