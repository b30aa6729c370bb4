package storetest

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// BenchOpen returns a store on a fresh database for b.
type BenchOpen func(tb testing.TB) experiment.Store

// benchDesign has batches of 20 main stimuli (27 trials per participant
// with practice, qualification and sanity), 5 views each, enough batches
// for n participants.
func benchDesign(n int) *experiment.Design {
	return NewDesign(fmt.Sprint("bench", n), max(1, (n+4)/5), 20, 5)
}

func benchStore(b *testing.B, open BenchOpen, d *experiment.Design) experiment.Store {
	s := open(b)
	if err := s.Init(context.Background(), d); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkJoin times Join of new participants: batch choice and the plan
// (27 trials) in one transaction.
func BenchmarkJoin(b *testing.B, open BenchOpen) {
	ctx := context.Background()
	s := benchStore(b, open, benchDesign(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: fmt.Sprint("b", i), Platform: "direct",
			SessionHash: hash(fmt.Sprint(i)), Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}

// perParticipant is the plan length of benchDesign's participants.
const perParticipant = 2 + 3 + 20 + 2

// joinN joins n participants and returns their ids.
func joinN(b *testing.B, s experiment.Store, n int) []int64 {
	ctx := context.Background()
	var ids []int64
	for len(ids) < n {
		p, _, err := s.Join(ctx, experiment.JoinRequest{ExternalID: fmt.Sprint("r", len(ids)), Now: time.Now()})
		if err != nil {
			b.Fatal(err)
		}
		if len(ids) == 0 {
			if tr, err := s.Trials(ctx, p.ID); err != nil || len(tr) != perParticipant {
				b.Fatalf("%d trials per participant, want %d (%v)", len(tr), perParticipant, err)
			}
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// BenchmarkRespond times Respond, one answer after another.
func BenchmarkRespond(b *testing.B, open BenchOpen) {
	ctx := context.Background()
	n := b.N/perParticipant + 1
	s := benchStore(b, open, benchDesign(n))
	ids, per := joinN(b, s, n), perParticipant
	r := answer(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.Respond(ctx, ids[i/per], i%per, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRespondParallel times Respond from GOMAXPROCS×8 goroutines at
// once, each answering its own participants in order, as a loaded server
// does.
func BenchmarkRespondParallel(b *testing.B, open BenchOpen) {
	ctx := context.Background()
	// Each goroutine may leave one participant unfinished.
	n := b.N/perParticipant + 8*runtime.GOMAXPROCS(0) + 1
	s := benchStore(b, open, benchDesign(n))
	ids, per := joinN(b, s, n), perParticipant
	var next atomic.Int64
	r := answer(1)
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			// Each goroutine takes whole participants.
			p := ids[next.Add(1)-1]
			for k := 0; k < per; k++ {
				if err := s.Respond(ctx, p, k, r); err != nil {
					b.Error(err)
					return
				}
				if k < per-1 && !pb.Next() {
					return
				}
			}
		}
	})
}
