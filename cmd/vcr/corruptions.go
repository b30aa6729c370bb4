package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vcr-bench/vcr/corrupt"
)

func init() {
	addCommand(&command{name: "corruptions", summary: "list every corruption with family, parameters and domains", run: runCorruptions})
}

const corruptionsUsage = `
Usage: vcr corruptions [--json] [--family F] [-v]

Lists the corruption catalogue: each corruption's stable name, its family
(noise, blur, colour, weather, digital, geometric), its parameters with the
continuous domain that sampling draws from, and where ImageNet-C defines five
fixed severities for it. Parameter trend "+" means larger values corrupt more,
"−" smaller values corrupt more.

Examples:
  vcr corruptions
  vcr corruptions --family noise -v
  vcr corruptions --json | jq '.[].name'
`

func runCorruptions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("corruptions", corruptionsUsage, stderr)
	asJSON := fs.Bool("json", false, "print a JSON array (name, family, params with name/min/max/kind/trend/doc, severities, doc)")
	family := fs.String("family", "", "only list this family")
	verbose := fs.Bool("v", false, "also print each corruption's description and parameter notes")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	var list []*corrupt.Corruption
	families := map[string]bool{}
	for _, c := range corrupt.All() {
		families[string(c.Family)] = true
		if *family == "" || string(c.Family) == *family {
			list = append(list, c)
		}
	}
	if *family != "" && len(list) == 0 {
		var fams []string
		for f := range families {
			fams = append(fams, f)
		}
		return usagef("--family %q matches nothing; families are %s", *family, strings.Join(fams, ", "))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFAMILY\tPARAMETERS\tIMAGENET-C")
	for _, c := range list {
		var ps []string
		for _, p := range c.Params {
			tr := map[int]string{1: "+", -1: "−", 0: ""}[p.Trend]
			ps = append(ps, fmt.Sprintf("%s%s %s", p.Name, tr, p.DomainString()))
		}
		inc := ""
		if c.Severities != nil {
			inc = "s1–s5"
		}
		if len(ps) == 0 {
			ps = []string{"(none)"}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Family, strings.Join(ps, "; "), inc)
		if *verbose {
			tw.Flush()
			fmt.Fprintf(stdout, "    %s\n", wrap(c.Doc, 76, "    "))
			for _, p := range c.Params {
				fmt.Fprintf(stdout, "    - %s: %s\n", p.Name, wrap(p.Doc, 72, "      "))
			}
			fmt.Fprintln(stdout)
		}
	}
	return tw.Flush()
}

// wrap folds text at width columns, indenting continuation lines.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteString("\n" + indent)
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
