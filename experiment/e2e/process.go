package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// BuildVCR builds the vcr command into dir with the go tool on PATH and
// returns the binary's path.
func BuildVCR(ctx context.Context, dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("build vcr: %w", err)
	}
	bin := filepath.Join(dir, "vcr")
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/vcr-bench/vcr/cmd/vcr")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build vcr: %w\n%s", err, out)
	}
	return bin, nil
}

// FreeAddr returns a loopback address with a port that was free a moment
// ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Process is a vcr experiment serve subprocess.
type Process struct {
	Addr string
	cmd  *exec.Cmd
	done chan error
}

// StartServe starts `bin experiment serve --config config --db db --addr
// addr` with its output appended to logPath and waits until GET /healthz
// answers 200 (at most 60 s).
func StartServe(ctx context.Context, bin, config, db, addr, logPath string) (*Process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "experiment", "serve", "--config", config, "--db", db, "--addr", addr)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &Process{Addr: addr, cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); logf.Close() }()
	deadline := time.Now().Add(60 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get("http://" + addr + "/healthz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case err := <-p.done:
			p.done <- err
			return nil, fmt.Errorf("vcr experiment serve exited before serving (%v); see %s", err, logPath)
		case <-ctx.Done():
			p.Kill()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, fmt.Errorf("vcr experiment serve did not answer /healthz within 60 s; see %s", logPath)
		}
	}
}

// Kill sends SIGKILL (kill -9) and waits for the process to exit.
func (p *Process) Kill() error {
	err := p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	if errors.Is(err, os.ErrProcessDone) {
		err = nil
	}
	return err
}

// Stop sends SIGTERM and waits up to 10 s for a clean exit, then kills.
func (p *Process) Stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		<-p.done
		return nil
	}
	select {
	case err := <-p.done:
		// vcr exits 130 when interrupted: a clean stop.
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 130 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("vcr experiment serve after SIGTERM: %w", err)
		}
		return nil
	case <-time.After(10 * time.Second):
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		return errors.New("vcr experiment serve did not stop within 10 s of SIGTERM")
	}
}
