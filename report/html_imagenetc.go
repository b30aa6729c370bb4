package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/imagenetc"
)

// ImageNetCSection is the id of the ImageNet-C section, present only when
// an analysis has ImageNet-C metrics (results with severities), so it is
// not in HTMLSections.
const ImageNetCSection = "imagenet-c"

func (f *found) hasImageNetC() bool {
	for _, a := range f.analyses {
		if a.summary.ImageNetC != nil && len(a.summary.ImageNetC.Models) > 0 {
			return true
		}
	}
	return false
}

func pct(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}

// pctCI formats v like pct with its bootstrap interval iv, when there
// is one, under it ("72.3" over "69.8–74.9").
func pctCI(v *float64, iv *imagenetc.Interval) string {
	if v == nil || iv == nil {
		return pct(v)
	}
	return fmt.Sprintf("%.1f<span class=\"ci\">%.1f–%.1f</span>", *v, iv.Lo, iv.Hi)
}

// renderImageNetC writes the ImageNet-C section: per model mCE, relative
// mCE and clean error, then per corruption each model's CE, then the
// per-severity errors.
func (f *found) renderImageNetC(p *page) {
	if !f.hasImageNetC() {
		return
	}
	p.section(ImageNetCSection, "ImageNet-C: mCE and CE against AlexNet")
	p.s("<p>Corruption Error CE<sub>c</sub> = mean over the five severities of the top-1 error ÷ AlexNet's (hendrycks/robustness, ImageNet-C/test.py), in percent (AlexNet = 100, lower is better); mCE is its mean over the 15 benchmark corruptions. Relative CE subtracts the clean error from both. Extra corruptions (speckle_noise, gaussian_blur, spatter, saturate) and others are reported, not averaged. Beside the Δv-based R̂a: ImageNet-C's five fixed severities sample Δv unevenly.</p>\n")
	for _, a := range f.analyses {
		r := a.summary.ImageNetC
		if r == nil || len(r.Models) == 0 {
			continue
		}
		p.f("<p>From <code>%s</code>; clean error: %s.", esc(a.dir), esc(r.CleanErrorMethod))
		if bs := bootstrapOf(r); bs != nil {
			level := bs.Level
			if level == 0 {
				level = imagenetc.DefaultLevel
			}
			p.f(" Under each value: its %g%% percentile bootstrap interval (%d replicates resampling the images of every corruption × severity cell, seed %d).", 100*level, bs.Replicates, bs.Seed)
		}
		p.s("</p>\n")
		p.s("<table class=\"imagenet-c\"><thead><tr><th>model</th><th>clean error</th><th>mean error</th><th>mCE</th><th>relative mCE</th><th>missing benchmark corruptions</th></tr></thead><tbody>\n")
		for _, m := range r.Models {
			p.f("<tr><td>%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td></tr>\n",
				esc(m.Model), fnum(m.CleanError), fnum(m.MeanError), pctCI(m.MCE, m.MCEInterval), pctCI(m.RelativeMCE, m.RelativeMCEInterval), esc(orDash(strings.Join(m.Missing, ", "))))
		}
		p.s("</tbody></table>\n")
		// Per corruption: CE (and mean error) per model.
		var names []string
		for _, m := range r.Models {
			for _, c := range m.Corruptions {
				if !slices.Contains(names, c.Corruption) {
					names = append(names, c.Corruption)
				}
			}
		}
		names = imagenetc.Order(names)
		p.s("<table class=\"imagenet-c-ce\"><thead><tr><th>corruption</th><th>kind</th>")
		for _, m := range r.Models {
			p.f("<th>%s CE<span class=\"ci\">mean error</span></th>", esc(m.Model))
		}
		p.s("</tr></thead><tbody>\n")
		for _, n := range names {
			p.f("<tr><td>%s</td><td>%s</td>", esc(n), imagenetc.Kind(n))
			for _, m := range r.Models {
				c := findCorruption(m, n)
				if c == nil {
					p.s("<td class=\"num\">—</td>")
					continue
				}
				ce := pct(c.CE)
				if c.CE != nil && c.CEInterval != nil {
					ce = fmt.Sprintf("%.1f <small>(%.1f–%.1f)</small>", *c.CE, c.CEInterval.Lo, c.CEInterval.Hi)
				}
				p.f("<td class=\"num\">%s<span class=\"ci\">%s</span></td>", ce, fnum(c.MeanError))
			}
			p.s("</tr>\n")
		}
		p.s("</tbody></table>\n")
		p.s("<h3>Top-1 error per severity</h3>\n<table class=\"imagenet-c-severity\"><thead><tr><th>model</th><th>corruption</th>")
		for s := 1; s <= imagenetc.Severities; s++ {
			p.f("<th>s%d</th>", s)
		}
		p.s("<th>images</th></tr></thead><tbody>\n")
		for _, m := range r.Models {
			for _, c := range m.Corruptions {
				p.f("<tr><td>%s</td><td>%s</td>", esc(m.Model), esc(c.Corruption))
				n := 0
				for s := 1; s <= imagenetc.Severities; s++ {
					cell := "—"
					for _, x := range c.Severities {
						if x.Severity == s {
							cell = fmt.Sprintf("%.3f", x.Error)
							n += x.N
						}
					}
					p.f("<td class=\"num\">%s</td>", cell)
				}
				p.f("<td class=\"num\">%d</td></tr>\n", n)
			}
		}
		p.s("</tbody></table>\n")
		for _, m := range r.Models {
			for _, note := range m.Notes {
				p.f("<p class=\"missing\">%s: %s</p>\n", esc(m.Model), esc(note))
			}
		}
	}
	p.end()
}

func findCorruption(m imagenetc.Result, name string) *imagenetc.Corruption {
	for i := range m.Corruptions {
		if m.Corruptions[i].Corruption == name {
			return &m.Corruptions[i]
		}
	}
	return nil
}

// WriteImageNetCTable writes a plain-text table of the ImageNet-C metrics
// for the terminal, one column per model: mCE, relative mCE, clean error,
// the CE of every benchmark corruption, then the mean error of the extra
// and other corruptions. It writes nothing without them.
func (a *Analysis) WriteImageNetCTable(w io.Writer) error {
	r := a.ImageNetC
	if r == nil || len(r.Models) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "\nImageNet-C: CE in % of AlexNet's top-1 error (100 = AlexNet); mCE = mean CE over the 15 benchmark corruptions"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "\t")
	for _, m := range r.Models {
		fmt.Fprintf(tw, "%s\t", m.Model)
	}
	fmt.Fprintln(tw)
	line := func(name string, cell func(m imagenetc.Result) string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, m := range r.Models {
			fmt.Fprintf(tw, "%s\t", cell(m))
		}
		fmt.Fprintln(tw)
	}
	line("mCE", func(m imagenetc.Result) string { return pct(m.MCE) })
	line("relative mCE", func(m imagenetc.Result) string { return pct(m.RelativeMCE) })
	line("clean error", func(m imagenetc.Result) string { return fnum(m.CleanError) })
	for _, c := range imagenetc.Benchmark {
		line("CE "+c, func(m imagenetc.Result) string {
			if v, ok := m.CE[c]; ok {
				return fmt.Sprintf("%.1f", v)
			}
			return "—"
		})
	}
	var others []string
	for _, m := range r.Models {
		for _, c := range m.Corruptions {
			if c.Kind != "benchmark" && !slices.Contains(others, c.Corruption) {
				others = append(others, c.Corruption)
			}
		}
	}
	for _, name := range imagenetc.Order(others) {
		line("mean error "+name+" ("+imagenetc.Kind(name)+", not averaged)", func(m imagenetc.Result) string {
			if c := findCorruption(m, name); c != nil {
				return fnum(c.MeanError)
			}
			return "—"
		})
	}
	return tw.Flush()
}

// bootstrapOf returns the bootstrap settings of the first model with
// intervals, or nil when no model has them.
func bootstrapOf(r *imagenetc.Report) *imagenetc.Bootstrap {
	for _, m := range r.Models {
		if m.Bootstrap != nil {
			return m.Bootstrap
		}
	}
	return nil
}
