package sqlite_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/sqlite"
	"github.com/vcr-bench/vcr/experiment/storetest"
)

func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "vcr-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := sqlite.Open(filepath.Join(dir, "exp.sqlite"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// A design of 2 batches of 4 main stimuli, each for 1 participant.
	if err := s.Init(ctx, storetest.NewDesign("example", 2, 4, 1)); err != nil {
		log.Fatal(err)
	}
	cookie := sha256.Sum256([]byte("session secret"))
	p, created, err := s.Join(ctx, experiment.JoinRequest{ExternalID: "worker1", Platform: "direct",
		SessionHash: cookie[:], Now: time.Now()})
	if err != nil {
		log.Fatal(err)
	}
	trials, err := s.Trials(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", created, "batch:", p.Batch, "trials:", len(trials))
	err = s.Respond(ctx, p.ID, 0, experiment.Response{Response: "cat", RTms: 612.5, ShownMS: 200.1,
		RefreshHz: 60, Frames: 12, TimingOK: true, Input: "key", At: time.Now()})
	fmt.Println("first answer:", err)
	err = s.Respond(ctx, p.ID, 0, experiment.Response{Response: "dog", At: time.Now()})
	fmt.Println("again:", err != nil, "ErrAnswered:", errors.Is(err, experiment.ErrAnswered))
	// Output:
	// created: true batch: 0 trials: 11
	// first answer: <nil>
	// again: true ErrAnswered: true
}
