package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vcr-bench/vcr/contrast"
)

// ContrastSection is the id of the colour-contrast section, present only
// when a folder holds a contrast.json of 'vcr contrast' (so it is not in
// HTMLSections, which every report has).
const ContrastSection = "contrast"

// foundContrast is a folder written by 'vcr contrast'.
type foundContrast struct {
	dir  string
	file contrast.File
	// svgs maps the folder's SVG files (base name) to their bytes.
	svgs map[string][]byte
}

// scanContrast reads dir/contrast.json and the SVG plots beside it.
func (f *found) scanContrast(dir string) error {
	p := filepath.Join(dir, contrast.FileName)
	if !exists(p) {
		return nil
	}
	c := &foundContrast{dir: dir, svgs: map[string][]byte{}}
	if err := readJSONFile(p, &c.file); err != nil {
		return err
	}
	if c.file.Result == nil {
		return fmt.Errorf("%s: no results", p)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".svg") && (strings.HasPrefix(n, "groups_") || strings.HasPrefix(n, "heatmap_") || n == "sensitivity.svg") {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return err
			}
			c.svgs[n] = b
		}
	}
	f.contrasts = append(f.contrasts, c)
	return nil
}

func cellPtr(v *float64) string {
	if v == nil {
		return "<td class=\"na\">–</td>"
	}
	return fmt.Sprintf("<td>%.3f</td>", *v)
}

// renderContrast writes the colour-contrast section when there is data.
func (f *found) renderContrast(p *page) {
	if len(f.contrasts) == 0 {
		return
	}
	p.section(ContrastSection, "Colour contrast (CIFAR-CoCo)")
	p.s("<p>Accuracy by contrast group of object and background colour (low &lt; low-mid &lt; high-mid &lt; high; others left out of trends). " +
		"Slope: least-squares slope of the group accuracies on the group index 0…3 (95% bootstrap interval); weighted std: sensitivity to contrast; " +
		"std over levels: sensitivity to severity.</p>\n")
	for _, c := range f.contrasts {
		fl := c.file
		p.f("<p>From <code>%s</code>: labels <code>%s</code>, group table %s, levels by %s.</p>\n", esc(c.dir), esc(fl.Labels), esc(fl.GroupTable), esc(fl.LevelKind))
		if fl.LabelsEstimated {
			p.s("<p class=\"missing\">The colour labels are estimates (vcr contrast --estimate-colors), not judgements.</p>\n")
		}
		p.s("<table><thead><tr><th>model</th><th>measure</th><th>clean</th><th>corrupted</th></tr></thead><tbody>\n")
		for _, m := range fl.Models {
			for i, g := range contrast.AllGroups {
				p.f("<tr><td>%s</td><td>%s (n = %d)</td>%s%s</tr>\n", esc(m.Model), esc(g), m.Clean.Groups[i].Images,
					cellPtr(m.Clean.Groups[i].Accuracy), cellPtr(m.Pooled.Corrupted.Groups[i].Accuracy))
			}
			ci := func(c *[2]float64) string {
				if c == nil {
					return ""
				}
				return fmt.Sprintf(" <small>[%.3f, %.3f]</small>", c[0], c[1])
			}
			p.f("<tr><td>%s</td><td>slope</td>%s%s</tr>\n", esc(m.Model),
				strings.TrimSuffix(cellPtr(m.Clean.Slope), "</td>")+ci(m.Clean.SlopeCI)+"</td>",
				strings.TrimSuffix(cellPtr(m.Pooled.Corrupted.Slope), "</td>")+ci(m.Pooled.Corrupted.SlopeCI)+"</td>")
			p.f("<tr><td>%s</td><td>weighted std (contrast)</td>%s%s</tr>\n", esc(m.Model), cellPtr(m.Clean.WeightedStd), cellPtr(m.Pooled.Corrupted.WeightedStd))
			p.f("<tr><td>%s</td><td>weighted std (%s)</td><td></td>%s</tr>\n", esc(m.Model), esc(fl.LevelKind), cellPtr(m.Pooled.SeverityStd))
		}
		p.s("</tbody></table>\n")
		names := make([]string, 0, len(c.svgs))
		for n := range c.svgs {
			names = append(names, n)
		}
		slices.Sort(names)
		var figs []string
		for _, n := range names {
			figs = append(figs, svgImg(c.svgs[n], strings.TrimSuffix(n, ".svg")))
		}
		if len(figs) > 0 {
			p.s("<div class=\"grid\">\n" + strings.Join(figs, "") + "</div>\n")
		}
		for _, w := range fl.Warnings {
			p.f("<p class=\"missing\">%s</p>\n", esc(w))
		}
	}
	p.end()
}
