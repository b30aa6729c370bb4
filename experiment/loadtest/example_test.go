package loadtest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/vcr-bench/vcr/experiment/e2e"
	"github.com/vcr-bench/vcr/experiment/loadtest"
	"github.com/vcr-bench/vcr/experiment/sqlite"
)

// Twelve simulated participants against the web app on a loopback port:
// the design has room for ten (2 batches × 5 views), so two find the
// study full. Then the database is checked against the acknowledged
// answers.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadtest-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	d, err := e2e.TinyDesign(dir, e2e.DesignOptions{Batches: 2, PerBatch: 3, ViewsPerBatch: 5, Size: 16})
	if err != nil {
		log.Fatal(err)
	}
	s, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	srv, err := e2e.StartServer(ctx, d, s, e2e.LoadTestServerConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	rep, err := loadtest.Run(ctx, loadtest.Config{URL: srv.URL, Participants: 12, Concurrency: 4, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("done:", rep.Outcomes["done"], "full:", rep.Outcomes["full"], "acknowledged:", rep.Trials)
	v, err := loadtest.VerifyAll(ctx, s, d, rep.Acked)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored:", v.Answered, "lost:", v.Lost, "duplicated:", v.Duplicated, "completed:", v.Completed)
	// Output:
	// done: 10 full: 2 acknowledged: 30
	// stored: 30 lost: 0 duplicated: 0 completed: 10
}
