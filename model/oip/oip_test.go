package oip_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/model"
	"github.com/vcr-bench/vcr/model/oip"
	"github.com/vcr-bench/vcr/model/oip/oiptest"
)

// linear returns a 3-class linear model over 3×4×5 images with weights
// from a fixed formula.
func linear() *oiptest.Linear {
	const size = 3 * 4 * 5
	m := &oiptest.Linear{
		Name:   "lin",
		Input:  oiptest.Tensor{Name: "input", Datatype: "FP32", Shape: []int64{-1, 3, 4, 5}},
		Output: oiptest.Tensor{Name: "logits", Datatype: "FP32", Shape: []int64{-1, 3}},
		B:      []float32{0.5, -0.25, 0},
	}
	for k := range 3 {
		w := make([]float32, size)
		for i := range w {
			w[i] = float32(math.Sin(float64(7*k+i))) / 8
		}
		m.W = append(m.W, w)
	}
	return m
}

func images(n int) []model.Tensor {
	var ts []model.Tensor
	for b := range n {
		d := make([]float32, 3*4*5)
		for i := range d {
			d[i] = float32((b*31+i*17)%97) / 96
		}
		ts = append(ts, model.Tensor{Data: d, Shape: []int64{3, 4, 5}})
	}
	return ts
}

func fastOpt() oip.Options {
	return oip.Options{Backoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Timeout: 5 * time.Second}
}

func TestClassify(t *testing.T) {
	m := linear()
	srv := oiptest.NewServer(m)
	defer srv.Close()
	opt := fastOpt()
	opt.MaxBatch, opt.Concurrency = 3, 2
	c, err := oip.Dial(context.Background(), srv.URL, "lin", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := model.Info{Name: "lin", InputName: "input", OutputName: "logits", Layout: model.NCHW, Channels: 3, Height: 4, Width: 5, Classes: 3, MaxBatch: 3}
	if got := c.Info(); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
	if sv := c.Server(); sv.Name != oiptest.ServerName || sv.Version != oiptest.ServerVersion {
		t.Errorf("Server() = %+v, want %s %s", sv, oiptest.ServerName, oiptest.ServerVersion)
	}
	in := images(7)
	out, err := c.Classify(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if m.Calls() != 3 || m.Images() != 7 {
		t.Errorf("server saw %d calls with %d images, want 3 calls (7 images in batches of ≤ 3)", m.Calls(), m.Images())
	}
	// Scores computed here in float64 from the model's definition.
	for b, x := range in {
		for k := range 3 {
			s := float64(m.B[k])
			for i, v := range x.Data {
				s += float64(m.W[k][i]) * float64(v)
			}
			if math.Abs(float64(out[b][k])-s) > 1e-5 {
				t.Errorf("image %d class %d: score %v, want %v", b, k, out[b][k], s)
			}
		}
	}
}

func TestDialErrors(t *testing.T) {
	srv := oiptest.NewServer(linear())
	defer srv.Close()
	ctx := context.Background()
	_, err := oip.Dial(ctx, srv.URL, "resnet50", fastOpt())
	if err == nil || !strings.Contains(err.Error(), "model resnet50 not found on "+srv.URL) || !strings.Contains(err.Error(), "available: lin") {
		t.Errorf("unknown model: %v", err)
	}
	opt := fastOpt()
	opt.Version = "2"
	if _, err := oip.Dial(ctx, srv.URL, "lin", opt); err == nil || !strings.Contains(err.Error(), "lin version 2 not found") {
		t.Errorf("unknown version: %v", err)
	}
	opt = fastOpt()
	opt.OutputName = "probs"
	if _, err := oip.Dial(ctx, srv.URL, "lin", opt); err == nil || !strings.Contains(err.Error(), `no output named "probs"; it has logits`) {
		t.Errorf("unknown output: %v", err)
	}
	if _, err := oip.Dial(ctx, "localhost:8000", "lin", opt); err == nil || !strings.Contains(err.Error(), "want http://") {
		t.Errorf("address without scheme: %v", err)
	}
	srv.NotReady.Store(true)
	if _, err := oip.Dial(ctx, srv.URL, "lin", fastOpt()); err == nil || !strings.Contains(err.Error(), "is not live") || !strings.Contains(err.Error(), "gave up after 5 attempts") {
		t.Errorf("server not ready: %v", err)
	}
	// A server that is gone.
	gone := oiptest.NewServer(linear())
	url := gone.URL
	gone.Close()
	if _, err := oip.Dial(ctx, url, "lin", fastOpt()); err == nil || !strings.Contains(err.Error(), "inference server "+url+" is not live") {
		t.Errorf("unreachable server: %v", err)
	}
}

func TestClassifyErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		fault     func(call int) (int, time.Duration)
		input     []model.Tensor
		timeout   time.Duration
		wantErr   string // "" : success
		wantCalls int
	}{
		{"bad shape", nil, []model.Tensor{{Data: make([]float32, 48), Shape: []int64{3, 4, 4}}}, 0,
			"rejected an input of shape [1 3 4 4] (FP32): unexpected shape for input 'input' for model 'lin'. Expected [-1 3 4 5], got [1 3 4 4]", 1},
		{"503 then success", func(call int) (int, time.Duration) {
			if call == 1 {
				return http.StatusServiceUnavailable, 0
			}
			return 0, 0
		}, images(2), 0, "", 2},
		{"429 and 502 then success", func(call int) (int, time.Duration) {
			return map[int]int{1: http.StatusTooManyRequests, 2: http.StatusBadGateway}[call], 0
		}, images(1), 0, "", 3},
		{"always 504", func(int) (int, time.Duration) { return http.StatusGatewayTimeout, 0 }, images(1), 0,
			"HTTP 504: injected failure of call 5 (gave up after 5 attempts)", 5},
		{"400 is not retried", func(int) (int, time.Duration) { return http.StatusBadRequest, 0 }, images(1), 0,
			"injected failure of call 1", 1},
		{"404 is not retried", func(int) (int, time.Duration) { return http.StatusNotFound, 0 }, images(1), 0,
			"HTTP 404", 1},
		{"hanging server", func(int) (int, time.Duration) { return 0, 10 * time.Second }, images(1), 50 * time.Millisecond,
			"no answer within 50ms", 5},
		{"slow first answer", func(call int) (int, time.Duration) {
			if call == 1 {
				return 0, 10 * time.Second
			}
			return 0, 0
		}, images(1), 50 * time.Millisecond, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := linear()
			m.Fault = tc.fault
			srv := oiptest.NewServer(m)
			defer srv.Close()
			opt := fastOpt()
			if tc.timeout > 0 {
				opt.Timeout = tc.timeout
			}
			c, err := oip.Dial(ctx, srv.URL, "lin", opt)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			out, err := c.Classify(ctx, tc.input)
			if tc.wantErr == "" {
				if err != nil || len(out) != len(tc.input) {
					t.Errorf("Classify: %d results, %v", len(out), err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Classify error %v, want one containing %q", err, tc.wantErr)
			}
			if m.Calls() != tc.wantCalls {
				t.Errorf("%d inference calls, want %d", m.Calls(), tc.wantCalls)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	m := linear()
	m.Fault = func(int) (int, time.Duration) { return 0, 10 * time.Second }
	srv := oiptest.NewServer(m)
	defer srv.Close()
	c, err := oip.Dial(context.Background(), srv.URL, "lin", fastOpt())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Classify(ctx, images(70))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Classify after cancel: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if _, err := c.Classify(ctx, images(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("Classify with a cancelled context: %v", err)
	}
}

func TestLayoutNHWC(t *testing.T) {
	m := linear()
	m.Input.Shape = []int64{8, 4, 5, 3}
	srv := oiptest.NewServer(m)
	defer srv.Close()
	c, err := oip.Dial(context.Background(), srv.URL, "lin", fastOpt())
	if err != nil {
		t.Fatal(err)
	}
	want := model.Info{Name: "lin", InputName: "input", OutputName: "logits", Layout: model.NHWC, Channels: 3, Height: 4, Width: 5, Classes: 3, MaxBatch: 8}
	if got := c.Info(); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
}
