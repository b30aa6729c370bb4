package onnxgen

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vcr-bench/vcr/model"
)

// fields decodes one protobuf message into its fields: varints as uint64,
// length-delimited fields as []byte, fixed32 as uint32.
func fields(t *testing.T, b []byte) map[protowire.Number][]any {
	t.Helper()
	out := map[protowire.Number][]any{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			out[num] = append(out[num], v)
			b = b[n:]
		case protowire.Fixed32Type:
			v, n := protowire.ConsumeFixed32(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			out[num] = append(out[num], v)
			b = b[n:]
		default:
			t.Fatalf("unexpected wire type %d for field %d", typ, num)
		}
	}
	return out
}

func str(v any) string { return string(v.([]byte)) }

// TestMarshalStructure decodes a generated model with the field numbers of
// onnx.proto and checks its structure.
func TestMarshalStructure(t *testing.T) {
	n, err := New(Spec{Arch: Conv, Classes: 7, Height: 32, Width: 32, Softmax: true, Layout: model.NHWC, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := fields(t, n.Marshal())
	if got := m[1]; len(got) != 1 || got[0].(uint64) != IRVersion {
		t.Errorf("ir_version = %v", got)
	}
	opset := fields(t, m[8][0].([]byte))
	if str(opset[1][0]) != "" || opset[2][0].(uint64) != Opset {
		t.Errorf("opset_import = %v", opset)
	}
	g := fields(t, m[7][0].([]byte))
	var ops []string
	for _, nb := range g[1] {
		node := fields(t, nb.([]byte))
		ops = append(ops, str(node[4][0]))
	}
	if want := []string{"Transpose", "Conv", "Relu", "GlobalAveragePool", "Flatten", "Gemm", "Softmax"}; !slices.Equal(ops, want) {
		t.Errorf("ops = %q, want %q", ops, want)
	}
	// Initializers: names, dims, raw little-endian data equal to the weights.
	want := map[string][]float32{"conv_w": n.ConvW, "conv_b": n.ConvB, "fc_w": n.GemmW, "fc_b": n.GemmB}
	for _, ib := range g[5] {
		init := fields(t, ib.([]byte))
		name := str(init[8][0])
		raw := init[9][0].([]byte)
		w, ok := want[name]
		if !ok || len(raw) != 4*len(w) || init[2][0].(uint64) != 1 {
			t.Errorf("initializer %q: %d bytes, type %v", name, len(raw), init[2])
			continue
		}
		for i, v := range w {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])); got != v {
				t.Fatalf("%s[%d] = %v, want %v", name, i, got, v)
			}
		}
		delete(want, name)
	}
	if len(want) > 0 {
		t.Errorf("missing initializers %v", want)
	}
	// Input: float tensor (N, 32, 32, 3) with a symbolic batch dimension.
	in := fields(t, g[11][0].([]byte))
	if str(in[1][0]) != InputName {
		t.Errorf("input name %q", str(in[1][0]))
	}
	tensor := fields(t, fields(t, in[2][0].([]byte))[1][0].([]byte))
	if tensor[1][0].(uint64) != 1 {
		t.Errorf("input elem_type %v, want 1 (FLOAT)", tensor[1])
	}
	var dims []string
	for _, db := range fields(t, tensor[2][0].([]byte))[1] {
		d := fields(t, db.([]byte))
		if p, ok := d[2]; ok {
			dims = append(dims, str(p[0]))
		} else {
			dims = append(dims, strconv.FormatUint(d[1][0].(uint64), 10))
		}
	}
	if want := []string{"N", "32", "32", "3"}; !slices.Equal(dims, want) {
		t.Errorf("input dims %q, want %q", dims, want)
	}
	out := fields(t, g[12][0].([]byte))
	if str(out[1][0]) != ProbsName {
		t.Errorf("output name %q", str(out[1][0]))
	}
}

// TestForwardByHand checks Forward on a 1-channel 3×3 image with weights
// chosen so that the result can be computed by hand.
func TestForwardByHand(t *testing.T) {
	n, err := New(Spec{Arch: Conv, Classes: 1, Channels: 1, Filters: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.ConvW {
		n.ConvW[i] = 1 // 3×3 box sum
	}
	n.ConvB[0] = -20
	n.GemmW[0], n.GemmB[0] = 2, 1
	x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	// Box sums with zero padding: 12 21 16 / 27 45 33 / 24 39 28; minus 20
	// and Relu: 0 1 0 / 7 25 13 / 4 19 8, which sum to 77; mean 77/9;
	// Gemm: 2·77/9 + 1.
	want := float32(2*77.0/9 + 1)
	if got := n.Forward(x, 3, 3); len(got) != 1 || math.Abs(float64(got[0]-want)) > 1e-6 {
		t.Errorf("Forward = %v, want %v", got, want)
	}

	// Linear: the channel means through Gemm; Softmax of one class is 1.
	l, _ := New(Spec{Arch: Linear, Classes: 2, Seed: 3})
	img := make([]float32, 3*2*2)
	for i := range img {
		img[i] = float32(i) // channel means 1.5, 5.5, 9.5
	}
	got := l.Forward(img, 2, 2)
	for k := range 2 {
		w := l.GemmB[k] + l.GemmW[3*k]*1.5 + l.GemmW[3*k+1]*5.5 + l.GemmW[3*k+2]*9.5
		if math.Abs(float64(got[k]-w)) > 1e-5 {
			t.Errorf("Linear class %d = %v, want %v", k, got[k], w)
		}
	}
	s, _ := New(Spec{Arch: Linear, Classes: 1, Softmax: true})
	if got := s.Forward(img, 2, 2); got[0] != 1 {
		t.Errorf("Softmax over one class = %v, want 1", got[0])
	}
}

func TestNewDeterministic(t *testing.T) {
	a, _ := New(Spec{Arch: Conv, Classes: 10, Seed: 42})
	b, _ := New(Spec{Arch: Conv, Classes: 10, Seed: 42})
	c, _ := New(Spec{Arch: Conv, Classes: 10, Seed: 43})
	if !slices.Equal(a.Marshal(), b.Marshal()) {
		t.Error("same seed, different models")
	}
	if slices.Equal(a.GemmW, c.GemmW) {
		t.Error("different seeds, same weights")
	}
	for _, bad := range []Spec{{Arch: "mlp", Classes: 1}, {Arch: Conv}, {Arch: Conv, Classes: 1, Layout: "CHW"}, {Arch: Linear, Classes: 1, Height: -1}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) succeeded", bad)
		}
	}
}
