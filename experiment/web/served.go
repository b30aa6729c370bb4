package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// servedDelay is how long a served image waits to be written with the
// others of its moment (one transaction for all: a commit per image would
// cost SQLite an fsync per image). An honest answer comes at least the
// fixation, stimulus and mask after the mask is served (700 ms by
// default), long after the write; an answer to a trial whose images are
// still waiting flushes them first (flushFor), and so does Close.
const servedDelay = 50 * time.Millisecond

// servedLog collects the images served (Store.Served) and writes them in
// batches. A crash loses at most the last servedDelay of them: those
// trials then count as never fetched (timing_ok 0), nothing else.
type servedLog struct {
	store experiment.Store
	log   *slog.Logger

	mu      sync.Mutex
	pending []experiment.ServedImage
	tokens  map[string]bool
	timer   *time.Timer

	flushMu sync.Mutex // one write at a time, so that later times win
}

func newServedLog(s experiment.Store, log *slog.Logger) *servedLog {
	return &servedLog{store: s, log: log, tokens: map[string]bool{}}
}

// add queues an image served.
func (l *servedLog) add(im experiment.ServedImage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = append(l.pending, im)
	l.tokens[im.Token] = true
	if l.timer == nil {
		l.timer = time.AfterFunc(servedDelay, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := l.flush(ctx); err != nil {
				l.log.Error("record served images", "err", err)
			}
		})
	}
}

// flushFor writes the queued images if one of them is token's, and says
// whether it did.
func (l *servedLog) flushFor(ctx context.Context, token string) (bool, error) {
	l.mu.Lock()
	waiting := l.tokens[token]
	l.mu.Unlock()
	if !waiting {
		return false, nil
	}
	return true, l.flush(ctx)
}

// flush writes the queued images.
func (l *servedLog) flush(ctx context.Context) error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	batch := l.pending
	l.pending, l.tokens = nil, map[string]bool{}
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.mu.Unlock()
	return l.store.Served(ctx, batch)
}
