package oip_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/vcr-bench/vcr/model/oip"
)

// hostile is an Open Inference Protocol server whose model declares output
// shape outShape and whose inference answer is infer.
func hostile(outShape string, infer func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/infer"):
			infer(w, r)
		case r.URL.Path == "/v2/models/m":
			fmt.Fprintf(w, `{"name":"m","platform":"x","inputs":[{"name":"input","datatype":"FP32","shape":[-1,3,4,5]}],"outputs":[{"name":"logits","datatype":"FP32","shape":%s}]}`, outShape)
		default:
			w.Write([]byte("{}"))
		}
	}))
}

// endless writes a valid start of a response and then numbers until the
// client goes away (issue 15, finding 9: vcr eval grew to 4.2 GB).
func endless(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte(`{"model_name":"m","outputs":[{"name":"logits","shape":[1,3],"datatype":"FP32","data":[`))
	chunk := []byte(strings.Repeat("0.125,", 1<<12))
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// TestHostileServer: an endless response body and absurd shapes end in
// clear errors after a bounded allocation.
func TestHostileServer(t *testing.T) {
	ctx := context.Background()
	opt := fastOpt()
	opt.Retries = -1

	t.Run("endless body", func(t *testing.T) {
		srv := hostile("[-1,3]", endless)
		defer srv.Close()
		c, err := oip.Dial(ctx, srv.URL, "m", opt)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		before := totalAlloc()
		_, err = c.Classify(ctx, images(4))
		alloc := totalAlloc() - before
		// The default cap for 32 images of 3 classes: 1 MiB + 32·3·40 B.
		if want := oip.DefaultMaxResponse(32, 3); !errors.Is(err, oip.ErrResponseTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(want)) || !strings.Contains(err.Error(), "--max-response") {
			t.Errorf("endless body: %v, want ErrResponseTooLarge naming the cap %d and --max-response", err, want)
		}
		if alloc > 32<<20 {
			t.Errorf("reading an endless body allocated %d MiB, want < 32 MiB", alloc>>20)
		}
		t.Logf("endless body: %v after %.1f MiB allocated", err, float64(alloc)/(1<<20))

		// An explicit, smaller cap.
		o := opt
		o.MaxResponse = 64 << 10
		c2, err := oip.Dial(ctx, srv.URL, "m", o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c2.Classify(ctx, images(1)); !errors.Is(err, oip.ErrResponseTooLarge) || !strings.Contains(err.Error(), "65536 bytes") {
			t.Errorf("MaxResponse 64 KiB: %v", err)
		}
	})

	t.Run("2 billion classes in the metadata", func(t *testing.T) {
		srv := hostile("[-1,2000000000]", endless)
		defer srv.Close()
		before := totalAlloc()
		_, err := oip.Dial(ctx, srv.URL, "m", opt)
		if err == nil || !strings.Contains(err.Error(), "2000000000 classes") {
			t.Errorf("Dial: %v, want an error naming the 2000000000 classes", err)
		}
		if alloc := totalAlloc() - before; alloc > 8<<20 {
			t.Errorf("allocated %d MiB", alloc>>20)
		}
	})

	t.Run("2 billion classes in the response", func(t *testing.T) {
		srv := hostile("[-1,3]", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"model_name":"m","outputs":[{"name":"logits","shape":[1,2000000000],"datatype":"FP32","data":[1,2,3]}]}`))
		})
		defer srv.Close()
		c, err := oip.Dial(ctx, srv.URL, "m", opt)
		if err != nil {
			t.Fatal(err)
		}
		before := totalAlloc()
		_, err = c.Classify(ctx, images(1))
		if err == nil || !strings.Contains(err.Error(), "shape [1 2000000000]") || !strings.Contains(err.Error(), "3 classes") {
			t.Errorf("Classify: %v, want an error naming the shape and the 3 classes of the metadata", err)
		}
		if alloc := totalAlloc() - before; alloc > 8<<20 {
			t.Errorf("allocated %d MiB", alloc>>20)
		}
	})

	t.Run("endless metadata", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v2/models/m" {
				w.Write([]byte("{}"))
				return
			}
			w.Write([]byte(`{"name":"`))
			chunk := []byte(strings.Repeat("m", 1<<12))
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		defer srv.Close()
		before := totalAlloc()
		_, err := oip.Dial(ctx, srv.URL, "m", opt)
		if !errors.Is(err, oip.ErrResponseTooLarge) {
			t.Errorf("Dial: %v, want ErrResponseTooLarge", err)
		}
		if alloc := totalAlloc() - before; alloc > 32<<20 {
			t.Errorf("allocated %d MiB", alloc>>20)
		}
	})
}
