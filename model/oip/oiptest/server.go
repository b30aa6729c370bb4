// Package oiptest is an in-process Open Inference Protocol (KServe v2)
// server for tests: health, model readiness and metadata, the repository
// index, and inference with linear models computed in Go, with fault
// injection (errors, delays) per inference call.
package oiptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Tensor describes a model input or output; −1 marks a variable dimension.
type Tensor struct {
	Name     string  `json:"name"`
	Datatype string  `json:"datatype"`
	Shape    []int64 `json:"shape"`
}

// Linear is a served model computing, for each image x of a batch
// (flattened in row-major order), scores[k] = Σ_i W[k][i]·x[i] + B[k].
type Linear struct {
	Name   string
	Input  Tensor // Datatype FP32; Shape [−1, C, H, W] or similar
	Output Tensor // Shape [−1, len(W)]
	W      [][]float32
	B      []float32
	// Fault, if not nil, is called with the inference call's number
	// (1, 2, …) and returns an HTTP status to fail the call with (0: answer
	// normally) and a delay before answering.
	Fault func(call int) (status int, delay time.Duration)

	calls  atomic.Int64
	images atomic.Int64
}

// Calls returns the number of inference calls received.
func (m *Linear) Calls() int { return int(m.calls.Load()) }

// Images returns the number of images scored.
func (m *Linear) Images() int { return int(m.images.Load()) }

// Server is the running test server.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	models   map[string]*Linear
	NotReady atomic.Bool // answer 503 to the health endpoints
}

// NewServer starts a server serving models. Close it when done.
func NewServer(models ...*Linear) *Server {
	s := &Server{models: map[string]*Linear{}}
	for _, m := range models {
		s.models[m.Name] = m
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// ServerName and ServerVersion are what the test server reports as its
// server metadata (GET /v2).
const (
	ServerName    = "oiptest"
	ServerVersion = "0.1.0"
)

func fail(w http.ResponseWriter, code int, format string, a ...any) {
	writeJSON(w, code, map[string]string{"error": fmt.Sprintf(format, a...)})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	p := strings.Trim(r.URL.Path, "/")
	switch {
	case p == "v2/health/live" || p == "v2/health/ready":
		if s.NotReady.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
		return
	case p == "v2" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"name": ServerName, "version": ServerVersion, "extensions": []string{"model_repository"}})
		return
	case p == "v2/repository/index" && r.Method == http.MethodPost:
		type entry struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			State   string `json:"state"`
		}
		var idx []entry
		s.mu.Lock()
		for name := range s.models {
			idx = append(idx, entry{name, "1", "READY"})
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, idx)
		return
	case !strings.HasPrefix(p, "v2/models/"):
		fail(w, http.StatusNotFound, "unknown endpoint %s", r.URL.Path)
		return
	}
	parts := strings.Split(strings.TrimPrefix(p, "v2/models/"), "/")
	s.mu.Lock()
	m := s.models[parts[0]]
	s.mu.Unlock()
	if m == nil {
		fail(w, http.StatusNotFound, "Request for unknown model: '%s' is not found", parts[0])
		return
	}
	rest := parts[1:]
	if len(rest) >= 2 && rest[0] == "versions" {
		if rest[1] != "1" {
			fail(w, http.StatusNotFound, "Request for unknown model: '%s' version %s is not found", m.Name, rest[1])
			return
		}
		rest = rest[2:]
	}
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{
			"name": m.Name, "versions": []string{"1"}, "platform": "go_linear",
			"inputs": []Tensor{m.Input}, "outputs": []Tensor{m.Output},
		})
	case len(rest) == 1 && rest[0] == "ready" && r.Method == http.MethodGet:
		w.WriteHeader(http.StatusOK)
	case len(rest) == 1 && rest[0] == "infer" && r.Method == http.MethodPost:
		m.infer(w, r)
	default:
		fail(w, http.StatusNotFound, "unknown endpoint %s", r.URL.Path)
	}
}

// inferRequest follows the protocol's inference request object.
type inferRequest struct {
	ID     string `json:"id,omitempty"`
	Inputs []struct {
		Name     string    `json:"name"`
		Shape    []int64   `json:"shape"`
		Datatype string    `json:"datatype"`
		Data     []float32 `json:"data"`
	} `json:"inputs"`
	Outputs []struct {
		Name string `json:"name"`
	} `json:"outputs"`
}

func (m *Linear) infer(w http.ResponseWriter, r *http.Request) {
	call := int(m.calls.Add(1))
	var req inferRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		fail(w, http.StatusBadRequest, "malformed request: %v", err)
		return
	}
	// The body is read first, so that the server notices a client that
	// gives up while the call is delayed.
	if m.Fault != nil {
		code, delay := m.Fault(call)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if code != 0 {
			fail(w, code, "injected failure of call %d", call)
			return
		}
	}
	if len(req.Inputs) != 1 {
		fail(w, http.StatusBadRequest, "expected 1 input, got %d", len(req.Inputs))
		return
	}
	in := req.Inputs[0]
	if in.Name != m.Input.Name {
		fail(w, http.StatusBadRequest, "unexpected inference input '%s' for model '%s'", in.Name, m.Name)
		return
	}
	if in.Datatype != m.Input.Datatype {
		fail(w, http.StatusBadRequest, "inference input '%s' data-type is '%s', but model '%s' expects '%s'", in.Name, in.Datatype, m.Name, m.Input.Datatype)
		return
	}
	ok := len(in.Shape) == len(m.Input.Shape)
	n := int64(1)
	for i := 0; ok && i < len(in.Shape); i++ {
		ok = in.Shape[i] > 0 && (m.Input.Shape[i] < 0 || m.Input.Shape[i] == in.Shape[i])
		n *= in.Shape[i]
	}
	if !ok {
		fail(w, http.StatusBadRequest, "unexpected shape for input '%s' for model '%s'. Expected %v, got %v", in.Name, m.Name, m.Input.Shape, in.Shape)
		return
	}
	if int64(len(in.Data)) != n {
		fail(w, http.StatusBadRequest, "input '%s' has %d elements, shape %v needs %d", in.Name, len(in.Data), in.Shape, n)
		return
	}
	for _, o := range req.Outputs {
		if o.Name != m.Output.Name {
			fail(w, http.StatusBadRequest, "unexpected inference output '%s' for model '%s'", o.Name, m.Name)
			return
		}
	}
	batch := int(in.Shape[0])
	size := len(in.Data) / batch
	k := len(m.W)
	out := make([]float32, 0, batch*k)
	for b := range batch {
		x := in.Data[b*size : (b+1)*size]
		for c := range k {
			if len(m.W[c]) != size {
				fail(w, http.StatusBadRequest, "model '%s' weights expect %d values per image, got %d", m.Name, len(m.W[c]), size)
				return
			}
			var s float32
			for i, v := range x {
				s += m.W[c][i] * v
			}
			out = append(out, s+m.B[c])
		}
	}
	m.images.Add(int64(batch))
	resp := map[string]any{
		"model_name": m.Name, "model_version": "1",
		"outputs": []map[string]any{{"name": m.Output.Name, "shape": []int{batch, k}, "datatype": "FP32", "data": out}},
	}
	if req.ID != "" {
		resp["id"] = req.ID
	}
	writeJSON(w, http.StatusOK, resp)
}
