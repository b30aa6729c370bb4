package e2e

// A minimal WebDriver BiDi client for driving Firefox in the tests: an
// RFC 6455 WebSocket client (text frames only, as BiDi needs) and the
// command/response/event plumbing of BiDi on top of it. Firefox speaks
// BiDi natively (--remote-debugging-port), so neither geckodriver nor a
// WebSocket library is needed.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ---- WebSocket

// wsConn is the client end of a WebSocket connection.
type wsConn struct {
	conn net.Conn
	r    *bufio.Reader
	wmu  sync.Mutex
}

// wsDial opens a WebSocket connection to a ws:// URL.
func wsDial(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("websocket: unsupported scheme in %q", rawURL)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	req := &http.Request{
		Method: http.MethodGet,
		URL:    u,
		Host:   u.Host,
		Header: http.Header{
			"Upgrade":               {"websocket"},
			"Connection":            {"Upgrade"},
			"Sec-WebSocket-Key":     {key},
			"Sec-WebSocket-Version": {"13"},
		},
	}
	req.URL.Scheme = "http"
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, err
	}
	r := bufio.NewReaderSize(conn, 1<<16)
	res, err := http.ReadResponse(r, req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	res.Body.Close()
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if res.StatusCode != http.StatusSwitchingProtocols || res.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(h[:]) {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake with %s: %s", rawURL, res.Status)
	}
	conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, r: r}, nil
}

// writeFrame sends one masked frame (clients must mask).
func (c *wsConn) writeFrame(op byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var hdr [14]byte
	hdr[0] = 0x80 | op
	n := 2
	switch l := len(payload); {
	case l < 126:
		hdr[1] = 0x80 | byte(l)
	case l <= math.MaxUint16:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(l))
		n = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(l))
		n = 10
	}
	var mask [4]byte
	rand.Read(mask[:])
	copy(hdr[n:], mask[:])
	n += 4
	buf := make([]byte, n+len(payload))
	copy(buf, hdr[:n])
	for i, b := range payload {
		buf[n+i] = b ^ mask[i&3]
	}
	_, err := c.conn.Write(buf)
	return err
}

// WriteText sends a text message.
func (c *wsConn) WriteText(msg []byte) error { return c.writeFrame(0x1, msg) }

// ReadMessage returns the next text or binary message, answering pings
// and assembling fragments; io.EOF after a close frame.
func (c *wsConn) ReadMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		l := uint64(h[1] & 0x7f)
		switch l {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			l = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			l = binary.BigEndian.Uint64(b[:])
		}
		if l > 1<<28 {
			return nil, fmt.Errorf("websocket: frame of %d bytes", l)
		}
		var mask []byte
		if h[1]&0x80 != 0 { // servers must not mask, but tolerate it
			mask = make([]byte, 4)
			if _, err := io.ReadFull(c.r, mask); err != nil {
				return nil, err
			}
		}
		p := make([]byte, l)
		if _, err := io.ReadFull(c.r, p); err != nil {
			return nil, err
		}
		if mask != nil {
			for i := range p {
				p[i] ^= mask[i&3]
			}
		}
		switch op {
		case 0x8: // close
			c.writeFrame(0x8, nil)
			return nil, io.EOF
		case 0x9: // ping
			if err := c.writeFrame(0xA, p); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

// Close closes the connection.
func (c *wsConn) Close() error { return c.conn.Close() }

// ---- WebDriver BiDi

// bidiError is a BiDi error response.
type bidiError struct {
	Method  string
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *bidiError) Error() string { return fmt.Sprintf("%s: %s: %s", e.Method, e.Code, e.Message) }

// bidiEvent is an event message.
type bidiEvent struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// bidiClient sends BiDi commands and dispatches the responses and events.
type bidiClient struct {
	ws      *wsConn
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan bidiReply
	onEvent func(bidiEvent)
	done    chan struct{}
	err     error // why the reader stopped; set before done closes
}

type bidiReply struct {
	Type    string          `json:"type"` // "success", "error", "event"
	ID      *int64          `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// newBidiClient connects to a BiDi endpoint (ws://host:port/session).
// onEvent, if not nil, is called, from the reader goroutine, for every
// event of the subscriptions.
func newBidiClient(ctx context.Context, wsURL string, onEvent func(bidiEvent)) (*bidiClient, error) {
	ws, err := wsDial(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	c := &bidiClient{ws: ws, pending: map[int64]chan bidiReply{}, onEvent: onEvent, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *bidiClient) read() {
	var err error
	for {
		var msg []byte
		msg, err = c.ws.ReadMessage()
		if err != nil {
			break
		}
		var r bidiReply
		if err = json.Unmarshal(msg, &r); err != nil {
			err = fmt.Errorf("bidi: bad message %.200q: %w", msg, err)
			break
		}
		if r.Type == "event" {
			if c.onEvent != nil {
				c.onEvent(bidiEvent{Method: r.Method, Params: r.Params})
			}
			continue
		}
		if r.ID == nil {
			continue // an error not about a command
		}
		c.mu.Lock()
		ch := c.pending[*r.ID]
		delete(c.pending, *r.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	c.err = err
	close(c.done)
}

// Call sends a command and decodes its result into result (unless nil).
func (c *bidiClient) Call(ctx context.Context, method string, params, result any) error {
	if params == nil {
		params = struct{}{}
	}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan bidiReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := c.ws.WriteText(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Type == "error" {
			return &bidiError{Method: method, Code: r.Error, Message: r.Message}
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-c.done:
		return fmt.Errorf("%s: connection closed: %v", method, c.err)
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close closes the connection.
func (c *bidiClient) Close() error { return c.ws.Close() }

// ---- Firefox

// errNoFirefox is returned by findFirefox when no browser is found.
var errNoFirefox = errors.New("no Firefox found: set VCR_FIREFOX or put firefox-esr or firefox on PATH")

// findFirefox returns the Firefox to drive: $VCR_FIREFOX if set, else
// firefox-esr or firefox on PATH.
func findFirefox() (string, error) {
	if p := os.Getenv("VCR_FIREFOX"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", errors.Join(errNoFirefox, err)
		}
		return p, nil
	}
	for _, name := range []string{"firefox-esr", "firefox"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errNoFirefox
}

// firefoxPrefs go into the fresh profile's user.js. The remote agent
// applies its own recommended preferences for automation on top (no
// first-run pages, no updates, no background throttling).
var firefoxPrefs = map[string]any{
	"remote.active-protocols":                                        1, // WebDriver BiDi only
	"browser.shell.checkDefaultBrowser":                              false,
	"datareporting.policy.dataSubmissionEnabled":                     false,
	"toolkit.telemetry.reportingpolicy.firstRun":                     false,
	"browser.aboutwelcome.enabled":                                   false,
	"browser.startup.homepage_override.mstone":                       "ignore",
	"media.autoplay.default":                                         0,
	"dom.disable_beforeunload":                                       true,
	"browser.sessionstore.resume_from_crash":                         false,
	"app.update.disabledForTesting":                                  true,
	"browser.tabs.remote.separatePrivilegedMozillaWebContentProcess": false,
}

// firefoxSession is headless Firefox driven over WebDriver BiDi.
type firefoxSession struct {
	*bidiClient
	Context string // the top-level browsing context (the first tab)
	Version string // browserVersion of the session
	cmd     *exec.Cmd
	exited  chan struct{}
	stderr  *lockedBuffer
}

// lockedBuffer is a bytes.Buffer safe for one writer and many readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://[^\s]+)`)

// startFirefox starts headless Firefox at path with a fresh profile in
// profileDir and a w×h viewport, connects to its BiDi endpoint, makes a
// session and finds the first tab. prefs are added to the profile's
// user.js. onEvent receives the events subscribed to later.
func startFirefox(ctx context.Context, path, profileDir string, w, h int, prefs map[string]any, onEvent func(bidiEvent)) (*firefoxSession, error) {
	var js strings.Builder
	for _, m := range []map[string]any{firefoxPrefs, prefs} {
		for k, v := range m {
			b, _ := json.Marshal(v)
			fmt.Fprintf(&js, "user_pref(%q, %s);\n", k, b)
		}
	}
	if err := os.WriteFile(filepath.Join(profileDir, "user.js"), []byte(js.String()), 0o644); err != nil {
		return nil, err
	}
	// Port 0: Firefox picks a free port and says which on stderr.
	cmd := exec.Command(path, "--headless", "--no-remote", "--remote-debugging-port=0",
		"--profile", profileDir, "about:blank")
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1", "MOZ_HEADLESS=1")
	stderr := &lockedBuffer{}
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &firefoxSession{cmd: cmd, exited: make(chan struct{}), stderr: stderr}
	go func() { cmd.Wait(); close(f.exited) }()
	fail := func(err error) (*firefoxSession, error) {
		f.stop()
		return nil, fmt.Errorf("%w\nfirefox output:\n%s", err, stderr.String())
	}
	var wsURL string
	for wsURL == "" {
		if m := bidiListening.FindStringSubmatch(stderr.String()); m != nil {
			wsURL = m[1]
			break
		}
		select {
		case <-f.exited:
			return fail(errors.New("firefox exited before listening for WebDriver BiDi"))
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if !strings.HasSuffix(wsURL, "/session") {
		wsURL = strings.TrimSuffix(wsURL, "/") + "/session"
	}
	c, err := newBidiClient(ctx, wsURL, onEvent)
	if err != nil {
		return fail(err)
	}
	f.bidiClient = c
	var sess struct {
		Capabilities struct {
			BrowserName    string `json:"browserName"`
			BrowserVersion string `json:"browserVersion"`
		} `json:"capabilities"`
	}
	if err := c.Call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, &sess); err != nil {
		return fail(err)
	}
	f.Version = sess.Capabilities.BrowserName + " " + sess.Capabilities.BrowserVersion
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := c.Call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0}, &tree); err != nil {
		return fail(err)
	}
	if len(tree.Contexts) == 0 {
		return fail(errors.New("firefox has no browsing context"))
	}
	f.Context = tree.Contexts[0].Context
	if err := f.SetViewport(ctx, w, h); err != nil {
		return fail(err)
	}
	return f, nil
}

// SetViewport resizes the tab's viewport to w×h CSS pixels (the page gets
// a resize event).
func (f *firefoxSession) SetViewport(ctx context.Context, w, h int) error {
	return f.Call(ctx, "browsingContext.setViewport", map[string]any{
		"context": f.Context, "viewport": map[string]any{"width": w, "height": h},
	}, nil)
}

// stop ends the session and the browser (killing it after 5 s).
func (f *firefoxSession) stop() {
	if f.bidiClient != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		f.Call(ctx, "browser.close", nil, nil)
		cancel()
		f.Close()
	}
	select {
	case <-f.exited:
	case <-time.After(5 * time.Second):
		f.cmd.Process.Kill()
		<-f.exited
	}
}

// Subscribe subscribes to events (e.g. "log.entryAdded").
func (f *firefoxSession) Subscribe(ctx context.Context, events ...string) error {
	return f.Call(ctx, "session.subscribe", map[string]any{"events": events}, nil)
}

// Navigate loads url in the tab and waits for its load event.
func (f *firefoxSession) Navigate(ctx context.Context, url string) error {
	return f.Call(ctx, "browsingContext.navigate", map[string]any{"context": f.Context, "url": url, "wait": "complete"}, nil)
}

// Reload reloads the tab and waits for the load event.
func (f *firefoxSession) Reload(ctx context.Context) error {
	return f.Call(ctx, "browsingContext.reload", map[string]any{"context": f.Context, "wait": "complete"}, nil)
}

// AddPreloadScript runs the JavaScript source in every document before
// its own scripts.
func (f *firefoxSession) AddPreloadScript(ctx context.Context, source string) error {
	return f.Call(ctx, "script.addPreloadScript", map[string]any{"functionDeclaration": "() => {\n" + source + "\n}"}, nil)
}

// EvalJSON evaluates a JavaScript expression in the tab (awaiting it if
// it is a promise) and decodes its value, passed through JSON.stringify,
// into v (unless nil).
func (f *firefoxSession) EvalJSON(ctx context.Context, expr string, v any) error {
	var res struct {
		Type   string `json:"type"` // "success" or "exception"
		Result struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	err := f.Call(ctx, "script.evaluate", map[string]any{
		"expression":     "(async () => JSON.stringify(await (" + expr + ")))()",
		"target":         map[string]any{"context": f.Context},
		"awaitPromise":   true,
		"userActivation": false,
	}, &res)
	if err != nil {
		return err
	}
	if res.Type != "success" {
		return fmt.Errorf("javascript exception: %s", res.ExceptionDetails.Text)
	}
	s, ok := res.Result.Value.(string)
	if res.Result.Type == "undefined" {
		s, ok = "null", true
	}
	if !ok {
		return fmt.Errorf("javascript: JSON.stringify gave a %s", res.Result.Type)
	}
	if v == nil {
		return nil
	}
	return json.Unmarshal([]byte(s), v)
}

// PressKey presses and releases a key (a single character, or "\uE007"
// and the like for special keys) through input.performActions: the
// browser dispatches real keydown/keypress/keyup events.
func (f *firefoxSession) PressKey(ctx context.Context, key string) error {
	return f.Call(ctx, "input.performActions", map[string]any{
		"context": f.Context,
		"actions": []any{map[string]any{
			"type": "key", "id": "keyboard",
			"actions": []any{
				map[string]any{"type": "keyDown", "value": key},
				map[string]any{"type": "keyUp", "value": key},
			},
		}},
	}, nil)
}

// Click moves the mouse to the centre of the element the CSS selector
// finds and clicks it there with the left button, through
// input.performActions: real mousemove/mousedown/mouseup/click events
// at those coordinates.
func (f *firefoxSession) Click(ctx context.Context, selector string) error {
	var p *struct{ X, Y float64 }
	sel, _ := json.Marshal(selector)
	if err := f.EvalJSON(ctx, fmt.Sprintf(`(() => {
  const e = document.querySelector(%s);
  if (!e) return null;
  e.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const r = e.getBoundingClientRect();
  return {X: r.left + r.width / 2, Y: r.top + r.height / 2};
})()`, sel), &p); err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("click: no element %s", selector)
	}
	return f.Call(ctx, "input.performActions", map[string]any{
		"context": f.Context,
		"actions": []any{map[string]any{
			"type": "pointer", "id": "mouse",
			"parameters": map[string]any{"pointerType": "mouse"},
			"actions": []any{
				map[string]any{"type": "pointerMove", "x": int(math.Round(p.X)), "y": int(math.Round(p.Y)), "origin": "viewport"},
				map[string]any{"type": "pointerDown", "button": 0},
				map[string]any{"type": "pointerUp", "button": 0},
			},
		}},
	}, nil)
}

// WaitJS polls a JavaScript condition every 10 ms until it is true,
// retrying while a navigation replaces the document.
func (f *firefoxSession) WaitJS(ctx context.Context, cond string, timeout time.Duration) error {
	return f.PollJSON(ctx, `(`+cond+`) || null`, timeout, new(any))
}

// PollJSON evaluates expr every 10 ms until it gives something other
// than null and decodes that into v. Errors (a navigation destroying the
// realm) are retried until the timeout.
func (f *firefoxSession) PollJSON(ctx context.Context, expr string, timeout time.Duration, v any) error {
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		var raw json.RawMessage
		err := f.EvalJSON(ctx, expr, &raw)
		if err == nil && len(raw) > 0 && string(raw) != "null" {
			return json.Unmarshal(raw, v)
		}
		if err != nil {
			lastErr = err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s (last error: %v)", timeout, expr, lastErr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
