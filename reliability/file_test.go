package reliability

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeFileLayouts(t *testing.T) {
	want := []Requirement{
		{Transformation: "frost", Task: "car / not car", Dataset: "icse2022-cifar10", VIFMethod: "vifvec2-layers", TC: 0.7, TP: 0.72, HumanAccuracy: 0.967, HumanPreservation: 0.9602, Rule: "script", Source: "x"},
		{Transformation: "contrast", VIFMethod: "vifvec2-layers", TC: 0.7, TP: 0.88},
	}
	// The first layout: "version" held the format number.
	old := `{"version": 1, "requirements": [
	  {"transformation": "frost", "task": "car / not car", "dataset": "icse2022-cifar10", "vif_method": "vifvec2-layers", "t_c": 0.7, "t_p": 0.72,
	   "human_accuracy": 0.967, "human_preservation": 0.9602, "rule": "script", "source": "x"},
	  {"transformation": "contrast", "vif_method": "vifvec2-layers", "t_c": 0.7, "t_p": 0.88}]}`
	f, err := DecodeFile(strings.NewReader(old), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != 1 || f.Version != "" || f.Tool != "" || !reflect.DeepEqual(f.Requirements, want) {
		t.Errorf("old layout: %+v", f)
	}
	// The current layout round-trips.
	var b bytes.Buffer
	if err := NewFile(want).Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"tool": "vcr requirements estimate"`) || !strings.Contains(b.String(), `"format": 1`) {
		t.Errorf("written file:\n%s", b.String())
	}
	g, err := DecodeFile(&b, "new.json")
	if err != nil {
		t.Fatal(err)
	}
	if g.Tool != EstimateTool || g.Version == "" || g.Format != FileFormat || !reflect.DeepEqual(g.Requirements, want) {
		t.Errorf("round trip: %+v", g)
	}
	// A single requirement object.
	s, err := DecodeFile(strings.NewReader(`{"transformation": "contrast", "vif_method": "vifvec2-layers", "t_c": 0.7, "t_p": 0.88}`), "one.json")
	if err != nil || len(s.Requirements) != 1 || s.Requirements[0] != want[1] {
		t.Errorf("single object: %+v, %v", s, err)
	}
}

func TestDecodeFileErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1, 2]`, "bad.json: json"},
		{`{"version": 1, "requirements": []}`, "bad.json holds no requirements"},
		{`{"other": 1}`, "bad.json holds no requirements"},
		{`{"format": 2, "requirements": [{"transformation": "frost", "t_c": 0.1, "t_p": 0.1}]}`, "format 2 is newer"},
		{`{"version": "x", "requirements": [{"t_c": 0.1, "t_p": 0.1}]}`, "bad.json: requirement 1 names no transformation"},
		{`{"requirements": [{"transformation": "frost", "t_c": 0.1, "t_p": 0.1}, {"transformation": "fog", "t_c": 1.2, "t_p": 0.1}]}`,
			"bad.json: requirement 2 (fog): t_c = 1.2 outside [0, 1]"},
		{`{"version": [1], "requirements": [{"transformation": "frost", "t_c": 0.1, "t_p": 0.1}]}`, `"version" is [1]`},
	} {
		_, err := DecodeFile(strings.NewReader(c.in), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := ReadFile("testdata/does-not-exist.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFileSelect(t *testing.T) {
	f := NewFile([]Requirement{{Transformation: "a"}, {Transformation: "b"}, {Transformation: "c"}})
	got, err := f.Select([]string{"c", " a"})
	if err != nil || len(got) != 2 || got[0].Transformation != "a" || got[1].Transformation != "c" {
		t.Errorf("Select(c, a) = %v, %v; want a, c in the file's order", got, err)
	}
	if got, _ := f.Select(nil); len(got) != 3 {
		t.Errorf("Select(nil) = %v", got)
	}
	_, err = f.Select([]string{"a", "d"})
	if !errors.Is(err, ErrNoRequirement) || !strings.Contains(err.Error(), `"d" (the file has a, b, c)`) {
		t.Errorf("Select(d): %v", err)
	}
}

func ExampleDecodeFile() {
	f, err := DecodeFile(strings.NewReader(`{"tool": "vcr requirements estimate", "version": "v1.0.0", "format": 1,
	  "requirements": [{"transformation": "frost", "vif_method": "vifvec", "t_c": 0.84, "t_p": 0.87}]}`), "req.json")
	if err != nil {
		panic(err)
	}
	for _, r := range f.Requirements {
		fmt.Printf("%s on the %s axis: t_c = %.2f, t_p = %.2f\n", r.Transformation, r.VIFMethod, r.TC, r.TP)
	}
	// Output: frost on the vifvec axis: t_c = 0.84, t_p = 0.87
}

// FuzzDecodeFile: any input decodes or fails without panicking, and what
// decodes survives Write and a second DecodeFile unchanged.
func FuzzDecodeFile(f *testing.F) {
	for _, s := range []string{
		`{"version": 1, "requirements": [{"transformation": "frost", "vif_method": "vifvec", "t_c": 0.84, "t_p": 0.87}]}`,
		`{"tool": "vcr requirements estimate", "version": "v1", "format": 1, "requirements": [{"transformation": "a", "t_c": 0, "t_p": 1, "details": {"x": [1, 2]}}]}`,
		`{"transformation": "contrast", "t_c": 0.7, "t_p": 0.88}`,
		`{"version": null, "requirements": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeFile(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := a.Write(&b); err != nil {
			t.Fatalf("Write: %v", err)
		}
		c, err := DecodeFile(&b, "again.json")
		if err != nil {
			t.Fatalf("decoded file does not decode again: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(a, c) {
			t.Fatalf("round trip changed the file:\n%+v\n%+v", a, c)
		}
	})
}
