package testset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vcr-bench/vcr/dataset"
	"github.com/vcr-bench/vcr/imageio"
)

// The memory model of a generate run. A worker processing one draw holds
// the source file's bytes, then the decoded image, then the scratch of the
// corruption, the 8-bit copy, the grey planes and the VIF workspaces of
// every Δv flavour; these grow with the image's pixels. The figures bound
// what each stage allocates, measured with the garbage collector off (so
// they bound the live memory from above) by TestBytesPerPixel; see
// docs/performance.md ("Memory").
const (
	// DecodeBytesPerPixel bounds what decoding a source image and
	// resizing it allocate per source pixel, the file's bytes aside: 13–16
	// bytes for GIF, JPEG, BMP and 8-bit PNG, 20 for 16-bit PNG, 24 for
	// TIFF, 36 for 16-bit TIFF, and 4.6 more with --resize 256 --crop 224;
	// a progressive JPEG keeps its DCT coefficients, up to 12 bytes per
	// pixel, besides (about 32 in all).
	DecodeBytesPerPixel = 48
	// PipelineBytesPerPixel bounds what one draw allocates per pixel of
	// the (preprocessed) image it corrupts and scores: the image (12
	// bytes), the corrupted copy (12), the 8-bit copy (3), the grey planes
	// (16), the corruption's scratch, the VIF workspaces of all five
	// flavours and the encoder's buffer; 162–202 bytes per pixel measured (spatter the most),
	// depending on the corruption.
	PipelineBytesPerPixel = 240
	// ProgramReserve is what a run needs beside its images: the program
	// and the Go runtime (30 MB of resident memory for vcr generate over
	// one small image), the frost textures (22 MB more, loaded once), the
	// workers' stacks and buffers. It is a constant, not a measurement of
	// the process, so that which images fit a budget depends on the budget
	// alone: a resumed run or another shard decides the same.
	ProgramReserve = 96 << 20
)

// ErrOverBudget is wrapped by the error of a source image that needs more
// memory than the run's budget allows for one image.
var ErrOverBudget = errors.New("too large for the memory budget")

// DefaultMaxMemory returns the memory budget of a run whose
// Config.MaxMemory is 0: three quarters of SystemMemory, or 4 GiB where
// that is unknown.
func DefaultMaxMemory() int64 {
	if m, _ := SystemMemory(); m > 0 {
		return m / 4 * 3
	}
	return 4 << 30
}

// SystemMemory returns the memory this process may use and where that
// figure comes from: the smaller of the machine's physical memory
// (MemTotal in /proc/meminfo) and the memory limit of the process's
// control group (cgroup v2 memory.max, cgroup v1
// memory.limit_in_bytes), as a container or a Slurm job sets it. It
// returns 0 where neither can be read (systems without /proc).
func SystemMemory() (int64, string) {
	var best int64
	var from string
	take := func(v int64, src string) {
		if v > 0 && (best == 0 || v < best) {
			best, from = v, src
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					take(kb<<10, "MemTotal in /proc/meminfo")
				}
			}
		}
	}
	for _, p := range cgroupLimitFiles() {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(data))
		if s == "max" {
			continue
		}
		// cgroup v1 writes "no limit" as a number near 2^63.
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v < 1<<60 {
			take(v, p)
		}
	}
	return best, from
}

// cgroupLimitFiles lists the files that may hold the process's cgroup
// memory limit: its own group's (from /proc/self/cgroup) and the root of
// the mounted hierarchy (what a container sees as its own).
func cgroupLimitFiles() []string {
	files := []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return files
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[2] == "/" || strings.Contains(f[2], "..") {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			files = append(files, filepath.Join("/sys/fs/cgroup", f[2], "memory.max"))
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			files = append(files, filepath.Join("/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes"))
		}
	}
	return files
}

// processMemory returns the process's resident anonymous and file-backed
// memory (RssAnon, RssFile of /proc/self/status), or 0, 0 where unknown.
func processMemory() (anon, file int64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "RssAnon:":
			anon = v << 10
		case "RssFile:":
			file = v << 10
		}
	}
	return anon, file
}

// FormatBytes writes n bytes in binary units: "256 MiB", "1.5 GiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[exp]
}

// ParseBytes parses a memory size: a number of bytes, or a number with
// one of the units K, M, G, T (powers of 1000, also KB, MB…) or KiB, MiB,
// GiB, TiB (powers of 1024), case-insensitive, e.g. "256MiB", "1.5G",
// "4 GiB".
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a memory size; write e.g. 512MiB, 4GiB or 8G", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown unit %q; use B, K, M, G, T (×1000) or KiB, MiB, GiB, TiB (×1024)", s, unit)
	}
	if v*mult >= 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v * mult), nil
}

// memBudget shares the memory a run may spend on images among its
// workers: a worker reserves what a draw's image needs before decoding
// it, and waits while the others hold the rest. Waiters are served in
// order, so that a large image is not starved by small ones.
type memBudget struct {
	total int64 // the whole budget (Config.MaxMemory)
	cap   int64 // what the images may hold together: total less the process's own needs
	mu    sync.Mutex
	free  int64
	queue []*memWaiter
	sig   chan struct{} // closed when a waiter queues (see waiting)
}

type memWaiter struct {
	n     int64
	ready chan struct{}
}

// acquire reserves n ≤ cap bytes, waiting for them; it returns ctx.Err()
// if ctx ends first.
func (b *memBudget) acquire(ctx context.Context, n int64) error {
	if b.tryAcquire(n) {
		return nil
	}
	b.mu.Lock()
	if len(b.queue) == 0 && b.free >= n { // freed meanwhile
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &memWaiter{n: n, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	if b.sig != nil {
		close(b.sig)
		b.sig = nil
	}
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready: // granted meanwhile: give it back
			b.mu.Unlock()
			b.release(n)
		default:
			for i, q := range b.queue {
				if q == w {
					b.queue = append(b.queue[:i], b.queue[i+1:]...)
					break
				}
			}
			b.grant()
			b.mu.Unlock()
		}
		return ctx.Err()
	}
}

// tryAcquire reserves n bytes if they are free and no one waits.
func (b *memBudget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 && b.free >= n {
		b.free -= n
		return true
	}
	return false
}

// release returns n bytes.
func (b *memBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant serves the waiters at the head of the queue that fit; b.mu is held.
func (b *memBudget) grant() {
	for len(b.queue) > 0 && b.queue[0].n <= b.free {
		w := b.queue[0]
		b.queue = b.queue[1:]
		b.free -= w.n
		close(w.ready)
	}
}

// closed is a closed channel.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// waiting returns a channel that is closed once a worker waits for memory
// (at once if one waits now).
func (b *memBudget) waiting() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) > 0 {
		return closed
	}
	if b.sig == nil {
		b.sig = make(chan struct{})
	}
	return b.sig
}

// contended reports whether a worker waits for memory.
func (b *memBudget) contended() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue) > 0
}

// MinMaxMemory is the smallest budget Config.MaxMemory accepts:
// ProgramReserve and 32 MiB for images.
const MinMaxMemory = ProgramReserve + 32<<20

// newMemBudget returns the budget of a run of total bytes: ProgramReserve
// for the program, the rest for images; nil when total < 0 (no budget).
// It is an error when total leaves less than 32 MiB for images.
func newMemBudget(total int64) (*memBudget, error) {
	if total < 0 {
		return nil, nil
	}
	if total < MinMaxMemory {
		return nil, fmt.Errorf("a memory budget of %s is too small: the program needs %s before any image; give at least --max-memory %s",
			FormatBytes(total), FormatBytes(ProgramReserve), FormatBytes(MinMaxMemory))
	}
	c := total - ProgramReserve
	return &memBudget{total: total, cap: c, free: c}, nil
}

// imageNeed returns the memory, in bytes, that one draw from a source image
// of header h needs when the image is preprocessed to pw×ph pixels.
func imageNeed(h imageio.Header, pw, ph int) int64 {
	return h.FileSize + DecodeBytesPerPixel*h.Pixels() + PipelineBytesPerPixel*int64(pw)*int64(ph)
}

// processedSize returns the size a w×h source has after the run's
// preprocessing (Resize, then Crop).
func (st *runState) processedSize(w, h int) (int, int) {
	if st.cfg.Preprocess == nil {
		return w, h
	}
	if st.cfg.Resize > 0 {
		w, h = imageio.ShorterSideSize(w, h, st.cfg.Resize)
	}
	if st.cfg.Crop > 0 {
		w, h = st.cfg.Crop, st.cfg.Crop
	}
	return w, h
}

// need reads source image idx's header and returns the memory a draw from
// it needs and the pixels of the preprocessed image, or an error wrapping
// ErrOverBudget when that is more than the budget holds. It returns 0, 0
// for a Source that cannot read headers (the image is checked after
// decoding instead).
func (st *runState) need(idx int) (n, px int64, err error) {
	hr, ok := st.cfg.Source.(dataset.HeaderReader)
	if !ok {
		return 0, 0, nil
	}
	h, err := hr.Header(idx)
	if err != nil {
		return 0, 0, err
	}
	pw, ph := st.processedSize(h.Width, h.Height)
	n = imageNeed(h, pw, ph)
	if n > st.mem.cap {
		return 0, 0, st.overBudget(h, pw, ph, n)
	}
	return n, int64(pw) * int64(ph), nil
}

// overBudget describes an image whose draw needs n bytes, more than the
// budget leaves for one image.
func (st *runState) overBudget(h imageio.Header, pw, ph int, n int64) error {
	proc := ""
	if pw != h.Width || ph != h.Height {
		proc = fmt.Sprintf(" (%dx%d after resize and crop)", pw, ph)
	}
	return fmt.Errorf("%w: %dx%d = %.1f megapixels%s needs about %s to decode (%d bytes per pixel), corrupt and score (%d), but --max-memory %s leaves %s for one image; raise --max-memory to at least %s to use it",
		ErrOverBudget, h.Width, h.Height, float64(h.Pixels())/1e6, proc, FormatBytes(n), DecodeBytesPerPixel, PipelineBytesPerPixel,
		FormatBytes(st.mem.total), FormatBytes(st.mem.cap), FormatBytes(n+ProgramReserve))
}
