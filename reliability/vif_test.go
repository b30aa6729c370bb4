package reliability

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/iqa"
)

func TestCanonicalVIF(t *testing.T) {
	for _, c := range []struct {
		in   string
		want iqa.Method
		ok   bool
	}{
		{"vifvec2-layers", iqa.VIFVec2Layers, true},
		// The CIFAR-10 flavour as earlier versions of the human data named it.
		{"vifvec2-layers (unpublished 2-level variant)", iqa.VIFVec2Layers, true},
		// The study's checker's spelling (requirements-method.md §B).
		{"vifvec2_layers", iqa.VIFVec2Layers, true},
		{"vifvec", iqa.VIFVec, true},
		{" vcr-py ", iqa.VCRPy, true},
		{"vifvec3", "", false},
		{"", "", false},
	} {
		if got, ok := CanonicalVIF(c.in); got != c.want || ok != c.ok {
			t.Errorf("CanonicalVIF(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestCheckVIF(t *testing.T) {
	req := func(m string) Requirement { return Requirement{Transformation: "frost", VIFMethod: m} }
	for _, c := range []struct {
		name     string
		req      Requirement
		asked    iqa.Method
		override bool
		// want: "" for no error, else a part of the message; unknown and
		// suggest are checked on the *VIFMethodError.
		want    string
		unknown bool
		suggest iqa.Method
	}{
		{"the requirement's", req("vifvec2-layers"), "", false, "", false, ""},
		{"old CIFAR name", req("vifvec2-layers (unpublished 2-level variant)"), "", false, "", false, ""},
		{"same asked", req("vifvec2-layers (unpublished 2-level variant)"), iqa.VIFVec2Layers, false, "", false, ""},
		{"other asked", req("vifvec2-layers"), iqa.VIFVec, false, "vifvec2-layers Δv axis, not vifvec: they are not comparable", false, iqa.VIFVec2Layers},
		{"other asked, override", req("vifvec2-layers"), iqa.VIFVec, true, "", false, ""},
		{"unknown", req("vifvec3-layers"), "", false, `"vifvec3-layers" Δv axis, a VIF flavour this vcr does not know`, true, iqa.VIFVec},
		{"unknown, override without method", req("vifvec3-layers"), "", true, "does not know", true, iqa.VIFVec},
		{"unknown, override", req("vifvec3-layers"), iqa.VIFVec2Layers, true, "", false, ""},
		{"none", req(""), "", false, "names no vif_method", false, ""},
		{"none, asked", req(""), iqa.VCRPy, false, "", false, ""},
	} {
		err := CheckVIF(c.req, c.asked, c.override)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ve *VIFMethodError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) || ve.Unknown != c.unknown || ve.Suggest != c.suggest {
			t.Errorf("%s: %#v (%v), want %q, unknown %v, suggest %q", c.name, err, err, c.want, c.unknown, c.suggest)
		}
	}
}

// TestCheckCIFARFlavour checks a requirement on the CIFAR-10 human data's
// axis (vifvec2-layers) with its flavour, and with another one under the
// override, which the verdict then warns about.
func TestCheckCIFARFlavour(t *testing.T) {
	d := newMemSet(4, 32)
	r := Requirement{Transformation: "brightness", VIFMethod: "vifvec2-layers (unpublished 2-level variant)", TC: 0.6, TP: 0.5}
	v, err := Check(context.Background(), r, testOptions(d, &fakeModel{}))
	if err != nil {
		t.Fatal(err)
	}
	if v.VIFMethod != iqa.VIFVec2Layers || len(v.Warnings) != 0 {
		t.Errorf("flavour %q, warnings %q", v.VIFMethod, v.Warnings)
	}
	opt := testOptions(d, &fakeModel{})
	opt.VIFMethod, opt.OverrideVIF = iqa.VIFVec, true
	v, err = Check(context.Background(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	if v.VIFMethod != iqa.VIFVec || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "Δv computed with vifvec") {
		t.Errorf("override: flavour %q, warnings %q", v.VIFMethod, v.Warnings)
	}
}
