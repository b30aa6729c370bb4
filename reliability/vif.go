package reliability

import (
	"fmt"
	"strings"

	"github.com/vcr-bench/vcr/iqa"
)

// VIFMethodError reports a requirement whose Δv flavour cannot be used as
// asked: the requirement names none, names one this build does not know,
// or names another than the one asked for. Thresholds live on one
// flavour's Δv axis; checking with another compares different scales, so
// Check refuses unless CheckOptions.OverrideVIF is set.
type VIFMethodError struct {
	// Transformation names the requirement.
	Transformation string
	// Requirement is the requirement's vif_method as written ("" if none).
	Requirement string
	// Asked is CheckOptions.VIFMethod ("" if none was asked for).
	Asked iqa.Method
	// Unknown is true when Requirement is not a method of iqa.Methods.
	Unknown bool
	// Suggest is the known method closest to Requirement (the longest one
	// it starts with), "" if none; for an unknown flavour, it is the
	// method to check with when overriding.
	Suggest iqa.Method
}

func (e *VIFMethodError) Error() string {
	switch {
	case e.Requirement == "":
		return fmt.Sprintf("requirement %q names no vif_method: give the VIF flavour its thresholds were estimated with", e.Transformation)
	case e.Unknown:
		return fmt.Sprintf("requirement %q has thresholds on the %q Δv axis, a VIF flavour this vcr does not know (known: %s)",
			e.Transformation, e.Requirement, methodList())
	}
	return fmt.Sprintf("requirement %q has thresholds on the %s Δv axis, not %s: they are not comparable", e.Transformation, e.Requirement, e.Asked)
}

func methodList() string {
	s := make([]string, len(iqa.Methods))
	for i, m := range iqa.Methods {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// CanonicalVIF returns the method a requirement's vif_method names:
// the name itself, or for names written by earlier versions the method it
// starts with ("vifvec2-layers (unpublished 2-level variant)" →
// vifvec2-layers) or its spelling with hyphens ("vifvec2_layers", the
// study's checker's name). ok is false when no method matches.
func CanonicalVIF(s string) (m iqa.Method, ok bool) {
	s = strings.TrimSpace(s)
	if before, _, cut := strings.Cut(s, " ("); cut {
		s = strings.TrimSpace(before)
	}
	for _, c := range []string{s, strings.ReplaceAll(s, "_", "-")} {
		if m, err := iqa.ParseMethod(c); err == nil {
			return m, true
		}
	}
	return "", false
}

// suggestVIF returns the longest known method s starts with.
func suggestVIF(s string) iqa.Method {
	var best iqa.Method
	norm := strings.ReplaceAll(s, "_", "-")
	for _, m := range iqa.Methods {
		if strings.HasPrefix(norm, string(m)) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// resolveVIF returns the method to compute Δv with for req: asked, or the
// requirement's when asked is "". mismatch is true when the override
// accepted a method other than the requirement's.
func resolveVIF(req Requirement, asked iqa.Method, override bool) (m iqa.Method, mismatch bool, err error) {
	if asked != "" {
		if _, err := iqa.ParseMethod(string(asked)); err != nil {
			return "", false, err
		}
	}
	reqM, known := CanonicalVIF(req.VIFMethod)
	e := &VIFMethodError{Transformation: req.Transformation, Requirement: req.VIFMethod, Asked: asked, Unknown: req.VIFMethod != "" && !known, Suggest: suggestVIF(req.VIFMethod)}
	switch {
	case asked == "" && req.VIFMethod == "":
		return "", false, e
	case asked == "" && !known:
		return "", false, e
	case asked == "":
		return reqM, false, nil
	case req.VIFMethod == "" || (known && asked == reqM):
		// A requirement that names no flavour is checked with the one asked for.
		return asked, false, nil
	case override:
		return asked, true, nil
	}
	return "", false, e
}

// CheckVIF returns the error Check returns for req's VIF flavour with
// CheckOptions.VIFMethod = asked and OverrideVIF = override (a
// *VIFMethodError, or nil), so that a caller can refuse before any work.
func CheckVIF(req Requirement, asked iqa.Method, override bool) error {
	_, _, err := resolveVIF(req, asked, override)
	return err
}
