package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/vcr-bench/vcr/experiment"
	"github.com/vcr-bench/vcr/experiment/web"
)

// AdminToken is the admin token of the test servers.
const AdminToken = "e2e-admin-token-0123456789"

// LoadTestServerConfig is a server section with rate and join limits
// high enough for hundreds of simulated participants sharing one client
// address (no per-address place limit).
func LoadTestServerConfig() experiment.ServerConfig {
	return experiment.ServerConfig{
		AdminToken:          AdminToken,
		Title:               "vcr e2e study",
		RatePerIP:           1e6,
		BurstPerIP:          1e6,
		RatePerSession:      1e4,
		BurstPerSession:     1e4,
		MaxPlacesPerIP:      -1,
		JoinsPerMinute:      1e6,
		JoinsPerMinutePerIP: 1e6,
	}
}

// Server is the experiment web app serving on a loopback port.
type Server struct {
	URL    string
	Design *experiment.Design
	Store  experiment.Store
	app    *web.Server
	http   *http.Server
	done   chan error
}

// StartServer initialises s with d (Store.Init) and serves the web app for
// them on 127.0.0.1 at a free port. Close stops it; the store stays open.
func StartServer(ctx context.Context, d *experiment.Design, s experiment.Store, cfg experiment.ServerConfig) (*Server, error) {
	if err := s.Init(ctx, d); err != nil {
		return nil, fmt.Errorf("init store: %w", err)
	}
	app, err := web.New(cfg, d, s, web.Options{})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		app.Close()
		return nil, err
	}
	srv := &Server{URL: "http://" + ln.Addr().String(), Design: d, Store: s, app: app, http: app.HTTPServer(ln.Addr().String()), done: make(chan error, 1)}
	go func() { srv.done <- srv.http.Serve(ln) }()
	return srv, nil
}

// Close shuts the server down, waiting up to 5 s for requests in flight.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, s.app.Close())
}
