package experiment

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestJoinConfig: the server's join settings parse, completion.platform
// reaches the server section, and bad values name their field.
func TestJoinConfig(t *testing.T) {
	base := "name: x\ntestset: ts\ntask: car\n"
	c, err := ParseConfig([]byte(base+"completion: {platform: prolific, code: C0DE}\nserver: {allow_anonymous: true, max_places_per_ip: -1, joins_per_minute: 600, joins_per_minute_per_ip: 2}\n"), "join.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Server; s.Platform != PlatformProlific || !s.AllowAnonymous || s.MaxPlacesPerIP != -1 || s.JoinsPerMinute != 600 || s.JoinsPerMinutePerIP != 2 {
		t.Errorf("server %+v", s)
	}
	for _, tc := range []struct{ yaml, field string }{
		{"server: {max_places_per_ip: -2}\n", "server.max_places_per_ip"},
		{"server: {joins_per_minute: -1}\n", "server.joins_per_minute"},
		{"server: {joins_per_minute_per_ip: 2e6}\n", "server.joins_per_minute_per_ip"},
		{"server: {allow_anonymous: true}\n", "server.allow_anonymous"},
	} {
		_, err := ParseConfig([]byte(base+tc.yaml), "bad.yaml")
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%q: %v, want an error naming %s", tc.yaml, err, tc.field)
		}
	}
	if _, err := ParseConfig([]byte(base+"server: {platform: prolific}\n"), "bad.yaml"); err == nil || !strings.Contains(err.Error(), "platform") {
		t.Errorf("server.platform in the file: %v, want an unknown-field error", err)
	}
}

// TestCheckTiming: what the server believes of a client's timing claims
// (the forged answers of issue 15 and an honest one).
func TestCheckTiming(t *testing.T) {
	tm := Timing{Fixation: 300 * time.Millisecond, Stimulus: 200 * time.Millisecond, Mask: 200 * time.Millisecond, ToleranceFrames: 1}
	served := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	honest := func() Response {
		// 12 frames at 60 Hz, a 200 ms mask, an answer 450 ms after onset
		// that arrived 300 + 450 + 120 ms after the mask was served.
		return Response{RTms: 450, ShownMS: 200.1, MaskMS: 199.9, RefreshHz: 60, Frames: 12, At: served.Add(870 * time.Millisecond)}
	}
	for _, tc := range []struct {
		name        string
		edit        func(*Response)
		stim, mask  time.Time
		wantContain string
	}{
		{"honest", nil, served, served, ""},
		{"honest, 2.9 s of latency", func(r *Response) { r.At = served.Add(750*time.Millisecond + 2900*time.Millisecond) }, served, served, ""},
		{"never fetched", nil, time.Time{}, time.Time{}, "stimulus was never fetched"},
		{"mask never fetched", nil, served, time.Time{}, "mask was never fetched"},
		{"answered before the fetch", func(r *Response) { r.At = served.Add(-time.Second) }, served, served, "before the images"},
		{"rt_ms 1", func(r *Response) { r.RTms = 1 }, served, served, "rt_ms 1 is shorter"},
		{"frames 100000", func(r *Response) { r.Frames = 100000 }, served, served, "100000 frames"},
		{"mask_ms 0", func(r *Response) { r.MaskMS = 0; r.RTms = 450 }, served, served, "mask shown 0 ms"},
		{"8 s after the fetch claiming 512 ms", func(r *Response) { r.RTms = 512; r.At = served.Add(8 * time.Second) }, served, served, "arrived 8s after"},
	} {
		r := honest()
		if tc.edit != nil {
			tc.edit(&r)
		}
		got := CheckTiming(tm, &r, tc.stim, tc.mask)
		if (tc.wantContain == "") != (got == "") || !strings.Contains(got, tc.wantContain) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.wantContain)
		}
	}
	// A design without a mask accepts mask_ms 0.
	r := honest()
	r.MaskMS = 0
	if got := CheckTiming(Timing{Fixation: 300 * time.Millisecond, Stimulus: 200 * time.Millisecond}, &r, served, served); got != "" {
		t.Errorf("no mask in the design: %q", got)
	}
}
