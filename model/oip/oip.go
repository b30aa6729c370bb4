// Package oip is a client of the Open Inference Protocol (the KServe v2
// inference protocol, spoken by NVIDIA Triton, KServe and Seldon MLServer)
// over HTTP/JSON. A *Client is a model.Classifier: it checks the server's
// and the model's readiness, reads the model's metadata (input and output
// names, datatypes and shapes), and sends FP32 image batches to
// POST v2/models/NAME[/versions/V]/infer, splitting large batches into
// concurrent requests, with a per-request timeout and retries with
// exponential backoff and jitter on transient errors.
//
// The binary tensor data extension is not used: tensors travel as JSON
// numbers in row-major order.
package oip

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vcr-bench/vcr/model"
)

// Options configure a Client. Zero values select the defaults.
type Options struct {
	// Version selects a model version (default: the server's choice).
	Version string
	// InputName and OutputName select the tensors of a model with several
	// (default: the only one, else the first).
	InputName, OutputName string
	// Layout is the input's memory order (default: NCHW when the channel
	// count, 1 or 3, comes first, NHWC when it comes last).
	Layout model.Layout
	// MaxBatch is the number of images per request (default 32). A model
	// whose batch dimension is fixed caps it.
	MaxBatch int
	// Concurrency is the number of requests in flight at once (default 4).
	Concurrency int
	// Timeout limits each request (default 60 s).
	Timeout time.Duration
	// Retries is the number of retries of a request that failed with a
	// transient error: a connection error, a timeout, or HTTP 429, 502,
	// 503 or 504 (default 4; negative: none).
	Retries int
	// Backoff is the delay before the first retry (default 200 ms); each
	// further retry doubles it, up to MaxBackoff (default 10 s), and a
	// random jitter takes it down by up to half. A Retry-After header of
	// the server is honoured up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// Header is added to every request (for example an Authorization or a
	// Host header for a KServe ingress).
	Header http.Header
	// HTTPClient sends the requests (default: a client with keep-alive
	// connections for Concurrency requests).
	HTTPClient *http.Client
	// MaxResponse is the largest inference response body in bytes that is
	// read; a larger one is an error, not retried (default, 0:
	// DefaultMaxResponse of the request's batch size and the metadata's
	// class count). Other responses (health, metadata) are read up to
	// MaxMetaResponse bytes.
	MaxResponse int64
}

// Limits on what a server may make the client allocate.
const (
	// MaxClasses is the largest class count (last dimension of the output
	// shape) a model's metadata may declare.
	MaxClasses = 1 << 20
	// MaxMetaResponse is the largest health, metadata or index response.
	MaxMetaResponse = 4 << 20
	// bytesPerScore bounds one score as JSON text: sign, 9 significant
	// digits of a float32 (up to 17 of a float64), exponent, separator and
	// some white space.
	bytesPerScore = 40
	// assumedClasses stands for a class count the metadata leaves
	// variable (−1) in DefaultMaxResponse.
	assumedClasses = 100_000
)

// DefaultMaxResponse is the default cap on an inference response for batch
// images of classes scores each (classes ≤ 0: variable, taken as
// 100,000): 1 MiB for the response's frame plus 40 bytes per score, e.g.
// 2.3 MiB for 32 ImageNet images (1,000 classes).
func DefaultMaxResponse(batch, classes int) int64 {
	if classes <= 0 {
		classes = assumedClasses
	}
	return 1<<20 + int64(max(batch, 1))*int64(classes)*bytesPerScore
}

// ErrResponseTooLarge is returned (wrapped) for a response body larger
// than its cap (Options.MaxResponse, MaxMetaResponse).
var ErrResponseTooLarge = errors.New("response too large")

func (o *Options) defaults() {
	if o.MaxBatch <= 0 {
		o.MaxBatch = 32
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Retries == 0 {
		o.Retries = 4
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = 200 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = o.Concurrency
		o.HTTPClient = &http.Client{Transport: tr}
	}
}

// TensorMetadata describes one input or output of a model, as the model
// metadata endpoint reports it. A dimension of −1 is variable.
type TensorMetadata struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// Metadata is the model metadata response.
type Metadata struct {
	Name     string           `json:"name"`
	Versions []string         `json:"versions,omitempty"`
	Platform string           `json:"platform"`
	Inputs   []TensorMetadata `json:"inputs"`
	Outputs  []TensorMetadata `json:"outputs"`
}

// Client is a model served over the Open Inference Protocol. It is safe for
// concurrent use.
type Client struct {
	base    *url.URL
	model   string // path of the model: models/NAME[/versions/V]
	opt     Options
	info    model.Info
	meta    Metadata
	server  ServerMetadata
	input   TensorMetadata
	batched bool // the input has a batch dimension
	sem     chan struct{}
	// maxInfer caps an inference response body (Options.MaxResponse).
	maxInfer int64
}

// StatusError is an HTTP error response of the server.
type StatusError struct {
	Method, URL string
	Code        int
	// Message is the server's {"error": "..."} message, or the body's start.
	Message string

	retryAfter time.Duration // the Retry-After header
}

func (e *StatusError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Code, msg)
}

// transient reports whether a request that failed with err is worth
// retrying.
func transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Code {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return false
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, context.DeadlineExceeded)
}

// Dial connects to the inference server at baseURL (for example
// http://localhost:8000) and the model modelName on it: it checks that the
// server is live and ready and the model ready, and reads the model's
// metadata. It fails with an error that names the server and, for a model
// the server does not know, the models it has (when the server supports
// the model repository extension).
func Dial(ctx context.Context, baseURL, modelName string, opt Options) (*Client, error) {
	opt.defaults()
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("inference server address %q: want http://HOST:PORT or https://HOST[:PORT]", baseURL)
	}
	if modelName == "" {
		return nil, errors.New("no model name given")
	}
	c := &Client{base: u, opt: opt, sem: make(chan struct{}, opt.Concurrency)}
	c.model = "v2/models/" + url.PathEscape(modelName)
	if opt.Version != "" {
		c.model += "/versions/" + url.PathEscape(opt.Version)
	}
	for _, p := range []string{"v2/health/live", "v2/health/ready"} {
		if err := c.do(ctx, http.MethodGet, p, nil, nil); err != nil {
			return nil, fmt.Errorf("inference server %s is not %s: %w", u, strings.TrimPrefix(p, "v2/health/"), err)
		}
	}
	if err := c.do(ctx, http.MethodGet, c.model+"/ready", nil, nil); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusNotFound {
			return nil, c.notFound(ctx, modelName)
		}
		return nil, fmt.Errorf("model %s on %s is not ready: %w", modelName, u, err)
	}
	if err := c.do(ctx, http.MethodGet, c.model, nil, &c.meta); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusNotFound {
			return nil, c.notFound(ctx, modelName)
		}
		return nil, fmt.Errorf("metadata of model %s: %w", modelName, err)
	}
	if err := c.describe(modelName); err != nil {
		return nil, fmt.Errorf("model %s on %s: %w", modelName, u, err)
	}
	// The server's name and version (GET /v2) are informative only: a
	// server that does not answer is still used.
	sctx, cancel := context.WithTimeout(ctx, min(c.opt.Timeout, 10*time.Second))
	defer cancel()
	_ = c.once(sctx, http.MethodGet, "v2", nil, &c.server)
	return c, nil
}

// ServerMetadata is the server metadata of the Open Inference Protocol
// (GET /v2).
type ServerMetadata struct {
	Name       string   `json:"name"`
	Version    string   `json:"version"`
	Extensions []string `json:"extensions,omitempty"`
}

// Server returns the server's name and version as it reported them when
// the client connected; empty when it did not.
func (c *Client) Server() ServerMetadata { return c.server }

// notFound builds the error for a model the server does not have, listing
// the models of the server's repository index when it has one.
func (c *Client) notFound(ctx context.Context, name string) error {
	var index []struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		State   string `json:"state"`
	}
	what := name
	if c.opt.Version != "" {
		what += " version " + c.opt.Version
	}
	ictx, cancel := context.WithTimeout(ctx, min(c.opt.Timeout, 10*time.Second))
	defer cancel()
	if err := c.once(ictx, http.MethodPost, "v2/repository/index", []byte("{}"), &index); err == nil && len(index) > 0 {
		var names []string
		seen := map[string]bool{}
		for _, m := range index {
			if !seen[m.Name] {
				seen[m.Name] = true
				names = append(names, m.Name)
			}
		}
		return fmt.Errorf("model %s not found on %s; available: %s", what, c.base, strings.Join(names, ", "))
	}
	return fmt.Errorf("model %s not found on %s (check --model-name)", what, c.base)
}

// pick returns the tensor named name, or the first when name is "".
func pick(ts []TensorMetadata, name, what string) (TensorMetadata, error) {
	if len(ts) == 0 {
		return TensorMetadata{}, fmt.Errorf("the metadata lists no %ss", what)
	}
	if name == "" {
		return ts[0], nil
	}
	var names []string
	for _, t := range ts {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return TensorMetadata{}, fmt.Errorf("no %s named %q; it has %s", what, name, strings.Join(names, ", "))
}

// describe fills c.info from the metadata.
func (c *Client) describe(name string) error {
	in, err := pick(c.meta.Inputs, c.opt.InputName, "input")
	if err != nil {
		return err
	}
	out, err := pick(c.meta.Outputs, c.opt.OutputName, "output")
	if err != nil {
		return err
	}
	if in.Datatype != "FP32" {
		return fmt.Errorf("input %s has datatype %s; vcr sends FP32 images", in.Name, in.Datatype)
	}
	switch out.Datatype {
	case "FP32", "FP64", "FP16", "BF16":
	default:
		return fmt.Errorf("output %s has datatype %s; vcr reads floating-point scores", out.Name, out.Datatype)
	}
	c.input = in
	info := model.Info{Name: name, InputName: in.Name, OutputName: out.Name, MaxBatch: c.opt.MaxBatch}
	dims := in.Shape
	switch len(dims) {
	case 4:
		c.batched = true
		if dims[0] > 0 {
			info.MaxBatch = min(info.MaxBatch, int(dims[0]))
		}
		dims = dims[1:]
	case 3:
		info.MaxBatch = 1 // no batch dimension: one image per request
	default:
		return fmt.Errorf("input %s has shape %v; want an image batch [N, C, H, W] or [N, H, W, C]", in.Name, in.Shape)
	}
	layout := c.opt.Layout
	if layout == "" {
		switch {
		case dims[0] == 1 || dims[0] == 3:
			layout = model.NCHW
		case dims[2] == 1 || dims[2] == 3:
			layout = model.NHWC
		default:
			return fmt.Errorf("input %s has shape %v: cannot tell the channel dimension; set the layout (NCHW or NHWC)", in.Name, in.Shape)
		}
	}
	dim := func(v int64) int { return int(max(v, 0)) }
	info.Layout = layout
	if layout == model.NCHW {
		info.Channels, info.Height, info.Width = dim(dims[0]), dim(dims[1]), dim(dims[2])
	} else {
		info.Height, info.Width, info.Channels = dim(dims[0]), dim(dims[1]), dim(dims[2])
	}
	if len(out.Shape) > 0 {
		info.Classes = dim(out.Shape[len(out.Shape)-1])
	}
	if info.Classes > MaxClasses {
		return fmt.Errorf("output %s has shape %v: %d classes, more than the %d vcr accepts; check the model and --output-name", out.Name, out.Shape, info.Classes, MaxClasses)
	}
	for _, d := range in.Shape {
		if d > 1<<20 {
			return fmt.Errorf("input %s has shape %v: a dimension over %d; check the model and --input-name", in.Name, in.Shape, 1<<20)
		}
	}
	c.info = info
	c.maxInfer = c.opt.MaxResponse
	if c.maxInfer <= 0 {
		c.maxInfer = DefaultMaxResponse(info.MaxBatch, info.Classes)
	}
	return nil
}

// Info implements model.Classifier.
func (c *Client) Info() model.Info { return c.info }

// Metadata returns the model metadata the server reported.
func (c *Client) Metadata() Metadata { return c.meta }

// Close implements model.Classifier; it closes idle connections.
func (c *Client) Close() error {
	c.opt.HTTPClient.CloseIdleConnections()
	return nil
}

// Classify implements model.Classifier. It sends batch in requests of at
// most Info().MaxBatch images, up to Options.Concurrency at once (over all
// callers), and returns the first error.
func (c *Client) Classify(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	shape := batch[0].Shape
	for i, t := range batch {
		n := int64(1)
		for _, d := range t.Shape {
			n *= d
		}
		if n != int64(len(t.Data)) || !equalShape(t.Shape, shape) {
			panic(fmt.Sprintf("oip: tensor %d of the batch has shape %v and %d values (tensor 0: %v)", i, t.Shape, len(t.Data), shape))
		}
	}
	out := make([][]float32, len(batch))
	step := max(c.info.MaxBatch, 1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for s := 0; s < len(batch); s += step {
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, context.Cause(ctx)
		}
		wg.Add(1)
		go func(s, e int) {
			defer wg.Done()
			defer func() { <-c.sem }()
			scores, err := c.infer(ctx, batch[s:e])
			if err != nil {
				cancel(err)
				return
			}
			copy(out[s:e], scores)
		}(s, min(s+step, len(batch)))
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// inferResponse is the inference response; data stays raw for the fast
// number parser.
type inferResponse struct {
	ModelName string `json:"model_name"`
	Outputs   []struct {
		Name     string          `json:"name"`
		Shape    []int64         `json:"shape"`
		Datatype string          `json:"datatype"`
		Data     json.RawMessage `json:"data"`
	} `json:"outputs"`
}

// infer sends one request for batch and returns its score vectors.
func (c *Client) infer(ctx context.Context, batch []model.Tensor) ([][]float32, error) {
	shape := batch[0].Shape
	if c.batched {
		shape = append([]int64{int64(len(batch))}, shape...)
	} else if len(batch) != 1 {
		panic("oip: several images for a model without a batch dimension")
	}
	body := encodeRequest(c.input.Name, c.info.OutputName, shape, batch)
	var resp inferResponse
	if err := c.do(ctx, http.MethodPost, c.model+"/infer", body, &resp); err != nil {
		var se *StatusError
		if errors.As(err, &se) && se.Code == http.StatusBadRequest {
			return nil, fmt.Errorf("model %s rejected an input of shape %v (FP32): %s", c.info.Name, shape, se.Message)
		}
		return nil, fmt.Errorf("model %s: %w", c.info.Name, err)
	}
	for _, o := range resp.Outputs {
		if o.Name != c.info.OutputName {
			continue
		}
		// The shape the server claims must be the batch's before anything
		// is sized from it.
		if len(o.Shape) > 0 && c.info.Classes > 0 {
			want := int64(len(batch)) * int64(c.info.Classes)
			size := int64(1)
			for _, d := range o.Shape {
				if d < 0 || d > want {
					size = -1
					break
				}
				size *= d
				if size > want {
					break
				}
			}
			if size != want {
				return nil, fmt.Errorf("model %s: output %s has shape %v for %d images; the metadata says %d classes", c.info.Name, o.Name, o.Shape, len(batch), c.info.Classes)
			}
		}
		vals, err := parseNumbers(o.Data)
		if err != nil {
			return nil, fmt.Errorf("model %s: output %s: %w", c.info.Name, o.Name, err)
		}
		n := len(batch)
		if len(vals) == 0 || len(vals)%n != 0 {
			return nil, fmt.Errorf("model %s: output %s has %d values for %d images", c.info.Name, o.Name, len(vals), n)
		}
		k := len(vals) / n
		if c.info.Classes > 0 && k != c.info.Classes {
			return nil, fmt.Errorf("model %s: output %s has %d scores per image, the metadata says %d", c.info.Name, o.Name, k, c.info.Classes)
		}
		scores := make([][]float32, n)
		for i := range scores {
			scores[i] = vals[i*k : (i+1)*k : (i+1)*k]
		}
		return scores, nil
	}
	return nil, fmt.Errorf("model %s: the response has no output %s", c.info.Name, c.info.OutputName)
}

// encodeRequest writes the inference request JSON for batch:
// {"inputs":[{"name":…,"shape":[…],"datatype":"FP32","data":[…]}],"outputs":[{"name":…}]}.
func encodeRequest(input, output string, shape []int64, batch []model.Tensor) []byte {
	n := 0
	for _, t := range batch {
		n += len(t.Data)
	}
	b := make([]byte, 0, 128+len(input)+len(output)+n*11)
	b = append(b, `{"inputs":[{"name":`...)
	b = strconv.AppendQuote(b, input)
	b = append(b, `,"shape":[`...)
	for i, d := range shape {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	b = append(b, `],"datatype":"FP32","data":[`...)
	first := true
	for _, t := range batch {
		for _, v := range t.Data {
			if !first {
				b = append(b, ',')
			}
			first = false
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 0 // JSON has no NaN; images never hold one
			}
			b = strconv.AppendFloat(b, f, 'g', -1, 32)
		}
	}
	b = append(b, `]}],"outputs":[{"name":`...)
	b = strconv.AppendQuote(b, output)
	b = append(b, `}]}`...)
	return b
}

// parseNumbers reads the numbers of a JSON array, flattening nested arrays
// (the protocol allows both flat and nested tensor data).
func parseNumbers(raw json.RawMessage) ([]float32, error) {
	var out []float32
	depth := 0
	i := 0
	for i < len(raw) {
		switch ch := raw[i]; {
		case ch == '[':
			depth++
			i++
		case ch == ']':
			depth--
			i++
		case ch == ',' || ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r':
			i++
		default:
			j := i
			for j < len(raw) && raw[j] != ',' && raw[j] != ']' && raw[j] != ' ' && raw[j] != '\n' && raw[j] != '\t' && raw[j] != '\r' {
				j++
			}
			v, err := strconv.ParseFloat(string(raw[i:j]), 32)
			if err != nil || depth < 1 {
				return nil, fmt.Errorf("data is not an array of numbers (at %q)", raw[i:j])
			}
			out = append(out, float32(v))
			i = j
		}
	}
	if depth != 0 {
		return nil, errors.New("data is not a complete JSON array")
	}
	return out, nil
}

// do sends a request, retrying transient failures, and decodes a JSON
// response into v (when not nil).
func (c *Client) do(ctx context.Context, method, path string, body []byte, v any) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = c.once(ctx, method, path, body, v)
		if err == nil || ctx.Err() != nil || !transient(err) || attempt >= c.opt.Retries {
			break
		}
		d := c.opt.Backoff << attempt
		if d <= 0 || d > c.opt.MaxBackoff {
			d = c.opt.MaxBackoff
		}
		d -= time.Duration(rand.Int64N(int64(d)/2 + 1)) // jitter: [d/2, d]
		var se *StatusError
		if errors.As(err, &se) && se.retryAfter > 0 {
			d = min(max(d, se.retryAfter), c.opt.MaxBackoff)
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && c.opt.Retries > 0 && transient(err) {
		return fmt.Errorf("%w (gave up after %d attempts)", err, c.opt.Retries+1)
	}
	return err
}

// once sends one request with the per-request timeout.
func (c *Client) once(ctx context.Context, method, path string, body []byte, v any) error {
	rctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	u := c.base.String() + "/" + path
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, u, rd)
	if err != nil {
		return err
	}
	for k, vs := range c.opt.Header {
		for _, x := range vs {
			req.Header.Add(k, x)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.opt.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() == nil && rctx.Err() != nil {
			return fmt.Errorf("%s %s: no answer within %v: %w", method, u, c.opt.Timeout, context.DeadlineExceeded)
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		se := &StatusError{Method: method, URL: u, Code: resp.StatusCode}
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			se.Message = e.Error
		} else {
			se.Message = strings.TrimSpace(string(data[:min(len(data), 200)]))
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			se.retryAfter = time.Duration(s) * time.Second
		}
		return se
	}
	limit := int64(MaxMetaResponse)
	if strings.HasSuffix(path, "/infer") && c.maxInfer > 0 {
		limit = c.maxInfer
	}
	rb := &cappedReader{r: resp.Body, left: limit}
	if v == nil {
		io.Copy(io.Discard, rb) // the status said all there is to say
		return nil
	}
	if err := json.NewDecoder(rb).Decode(v); err != nil {
		if errors.Is(err, ErrResponseTooLarge) {
			hint := ""
			if limit == c.maxInfer {
				hint = fmt.Sprintf(" (the cap for %d images of %d classes; raise it with --max-response if the model's outputs are that large)", c.info.MaxBatch, c.info.Classes)
			}
			return fmt.Errorf("%s %s: the response is larger than %d bytes%s: %w", method, u, limit, hint, ErrResponseTooLarge)
		}
		if ctx.Err() == nil && rctx.Err() != nil {
			return fmt.Errorf("%s %s: no answer within %v: %w", method, u, c.opt.Timeout, context.DeadlineExceeded)
		}
		return fmt.Errorf("%s %s: reading the response: %w", method, u, err)
	}
	return nil
}

// cappedReader reads at most left bytes of r, then fails with
// ErrResponseTooLarge, so that an endless body costs a bounded amount of
// memory.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a body of exactly the cap from a longer one.
		var b [1]byte
		n, err := c.r.Read(b[:])
		if n > 0 {
			return 0, ErrResponseTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
