package web_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/experiment/web"
)

// ExampleNew serves a one-trial design from an SQLite store. A real design
// comes from experiment.LoadConfig and experiment.Build; 'vcr experiment
// serve' does all of this and adds a graceful shutdown.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "vcr-web-example-")
	defer os.RemoveAll(dir)
	f, _ := os.Create(filepath.Join(dir, "cat.png"))
	png.Encode(f, image.NewGray(image.Rect(0, 0, 32, 32)))
	f.Close()

	d := &experiment.Design{
		Name: "example", Kind: experiment.KindRecognition, Root: dir,
		Categories: []experiment.Category{{Name: "cat", Key: "c"}, {Name: "dog", Key: "d"}},
		Timing:     experiment.Timing{Fixation: 300 * time.Millisecond, Stimulus: 200 * time.Millisecond, Mask: 200 * time.Millisecond},
		Stimuli:    []experiment.Stimulus{{ID: "s1", Role: experiment.RoleMain, SourceID: "cat1", Path: "cat.png", GroundTruth: "cat", IsOriginal: true, TestSetID: -1}},
		Batches:    []experiment.Batch{{ID: 0, Stimuli: []string{"s1"}}}, ViewsPerBatch: 1, Masks: 1,
	}
	d.Freeze()
	st, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	if err := st.Init(context.Background(), d); err != nil {
		log.Fatal(err)
	}
	srv, err := web.New(experiment.ServerConfig{AdminToken: "a-long-random-admin-token"}, d, st, web.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv) // or srv.HTTPServer(addr).ListenAndServe()
	defer ts.Close()

	res, err := ts.Client().Get(ts.URL + "/healthz")
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.StatusCode, string(body), res.Header.Get("X-Frame-Options"))
	// Output: 200 ok DENY
}
