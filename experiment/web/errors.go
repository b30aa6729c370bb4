package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vcr-bench/vcr/experiment"
)

// httpError is an error with the status and the message a client sees.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// badRequest is an input validation error (400) with its message.
func badRequest(msg string) error { return &httpError{http.StatusBadRequest, msg} }

var (
	errNotFound     = &httpError{http.StatusNotFound, "Not found."}
	errForbidden    = &httpError{http.StatusForbidden, "This request was refused (missing or invalid security token). Please reload the page."}
	errNoSession    = &httpError{http.StatusUnauthorized, "Your session was not found. Please open the study link again."}
	errUnauthorized = &httpError{http.StatusUnauthorized, "Please log in."}
)

// limitedError is a rate-limit refusal (429 with Retry-After).
type limitedError struct{ wait time.Duration }

func (e *limitedError) Error() string { return "too many requests" }

// status maps an error to the HTTP status and the short message shown to
// the client. It is the one place domain errors become statuses; errors
// it does not know are internal (500, logged, shown as a plain message).
func status(err error) (int, string) {
	var he *httpError
	var le *limitedError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.code, he.msg
	case errors.As(err, &le):
		return http.StatusTooManyRequests, "Too many requests. Please wait a moment."
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, "The request is too large."
	case errors.Is(err, experiment.ErrNotFound):
		return http.StatusNotFound, "Not found."
	case errors.Is(err, experiment.ErrFull):
		return http.StatusServiceUnavailable, "This study is full: every place has been taken. Thank you for your interest; please return the study."
	case errors.Is(err, experiment.ErrAddrLimit):
		return http.StatusForbidden, "Enough people have joined this study from your network already. Thank you for your interest; please return the study."
	case errors.Is(err, experiment.ErrAnswered):
		return http.StatusConflict, "This trial was answered already."
	case errors.Is(err, experiment.ErrOutOfOrder):
		return http.StatusConflict, "This is not the current trial."
	case errors.Is(err, experiment.ErrClosed):
		return http.StatusConflict, "Your participation has ended."
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "The server is busy. Please try again in a moment."
	}
	return http.StatusInternalServerError, "Something went wrong on our side. Please try again in a moment."
}

// wantsJSON reports whether the client of r reads JSON errors.
func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || strings.HasPrefix(r.URL.Path, "/admin/api/")
}

// fail writes err as the status from status(), JSON {"error": msg} for the
// API and a plain page otherwise, and logs internal errors.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := status(err)
	if code >= 500 && code != http.StatusServiceUnavailable {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else if code == http.StatusServiceUnavailable && !errors.Is(err, experiment.ErrFull) {
		s.log.Warn("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	var le *limitedError
	if errors.As(err, &le) {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter(le.wait)))
	}
	if code == http.StatusServiceUnavailable && !errors.Is(err, experiment.ErrFull) {
		w.Header().Set("Retry-After", "2")
	}
	w.Header().Set("Cache-Control", "no-store")
	if wantsJSON(r) {
		writeJSON(w, code, map[string]string{"error": msg})
		return
	}
	s.page(w, code, "message", pageData{Heading: headingFor(code), Message: msg})
}

func headingFor(code int) string {
	switch code {
	case http.StatusServiceUnavailable:
		return "Sorry"
	case http.StatusNotFound:
		return "Not found"
	case http.StatusTooManyRequests:
		return "Please slow down"
	}
	if code >= 500 {
		return "Server error"
	}
	return "Sorry"
}

// writeJSON writes v as JSON with the status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
