package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser drives a real headless Chromium over the DevTools protocol on
// a pipe (--remote-debugging-pipe: commands on its fd 3, answers and
// events on its fd 4, each message ended by a NUL byte).
type browser struct {
	cmd  *exec.Cmd
	in   *os.File // we write commands
	out  *bufio.Reader
	mu   sync.Mutex
	next int
	// replies by command id; events go to the events channel.
	replies map[int]chan cdpMessage
	events  chan cdpMessage
	done    chan struct{}
}

type cdpMessage struct {
	ID        int                       `json:"id,omitempty"`
	Method    string                    `json:"method,omitempty"`
	Params    json.RawMessage           `json:"params,omitempty"`
	Result    json.RawMessage           `json:"result,omitempty"`
	Error     *struct{ Message string } `json:"error,omitempty"`
	SessionID string                    `json:"sessionId,omitempty"`
}

// chromium returns the path of the chromium binary, or skips the test:
// the only reason to skip (CI installs it with scripts/deps.sh).
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian package chromium; scripts/deps.sh installs it)")
	}
	return path
}

// chromiumArgs are the flags of every headless run: no sandbox (tests
// run as root in containers), a private profile, nothing fetched by
// the browser on its own.
func chromiumArgs(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
		"--user-data-dir=" + profile}
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin := chromium(t)
	toChrome, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirEnd, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(chromiumArgs(t.TempDir()), "--remote-debugging-pipe", "about:blank")...)
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fd 3, fd 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{cmd: cmd, in: ourEnd, out: bufio.NewReader(theirEnd), replies: map[int]chan cdpMessage{},
		events: make(chan cdpMessage, 4096), done: make(chan struct{})}
	go b.read()
	t.Cleanup(func() {
		b.in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		theirEnd.Close()
	})
	return b
}

// read dispatches the browser's messages.
func (b *browser) read() {
	defer close(b.done)
	for {
		raw, err := b.out.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(bytes.TrimSuffix(raw, []byte{0}), &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.replies[m.ID]
			delete(b.replies, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // a flood of events we do not read: drop
		}
	}
}

// call sends a command (in a session when session is not "") and waits
// for its result.
func (b *browser) call(t *testing.T, session, method string, params any, result any) {
	t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.replies[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-b.done:
		t.Fatalf("%s: chromium closed the pipe", method)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no answer in 60 s", method)
	}
}

// pageLoad is what loading a page showed.
type pageLoad struct {
	ConsoleErrors []string // console.error, uncaught exceptions, error log entries
	Requests      []string // every request but the page's own
	Sections      []string // ids of the <section> elements
	Text          string   // the page's text
}

// load opens path from disk (file://) in a fresh tab, waits for the load
// event and a moment after it (for requests made by scripts), and
// returns what the page did.
func (b *browser) load(t *testing.T, path string) pageLoad {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: abs}).String()
	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	s := att.SessionID
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(t, s, domain+".enable", nil, nil)
	}
	// Forget the events of about:blank.
	for drained := false; !drained; {
		select {
		case <-b.events:
		default:
			drained = true
		}
	}
	b.call(t, s, "Page.navigate", map[string]any{"url": pageURL}, nil)
	var res pageLoad
	deadline := time.After(60 * time.Second)
	var settle <-chan time.Time // after the load event: late requests
events:
	for {
		var m cdpMessage
		select {
		case m = <-b.events:
		case <-settle:
			break events
		case <-deadline:
			t.Fatalf("%s: no load event in 60 s", path)
		}
		if m.SessionID != s {
			continue
		}
		switch m.Method {
		case "Page.loadEventFired":
			settle = time.After(time.Second)
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct {
					Value       any
					Description string
				}
			}
			json.Unmarshal(m.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				var parts []string
				for _, a := range p.Args {
					parts = append(parts, fmt.Sprint(a.Value)+a.Description)
				}
				res.ConsoleErrors = append(res.ConsoleErrors, "console."+p.Type+": "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var p struct {
				ExceptionDetails struct {
					Text      string
					Exception struct{ Description string }
				}
			}
			json.Unmarshal(m.Params, &p)
			res.ConsoleErrors = append(res.ConsoleErrors, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Text, URL string }
			}
			json.Unmarshal(m.Params, &p)
			if p.Entry.Level == "error" {
				res.ConsoleErrors = append(res.ConsoleErrors, "log: "+p.Entry.Text+" "+p.Entry.URL)
			}
		case "Network.requestWillBeSent":
			var p struct{ Request struct{ URL string } }
			json.Unmarshal(m.Params, &p)
			if p.Request.URL != pageURL {
				res.Requests = append(res.Requests, p.Request.URL)
			}
		}
	}
	var eval struct {
		Result struct{ Value string }
	}
	b.call(t, s, "Runtime.evaluate", map[string]any{"returnByValue": true,
		"expression": `JSON.stringify({ids: Array.from(document.querySelectorAll('section')).map(function (s) { return s.id; }), text: document.body ? document.body.innerText : ''})`}, &eval)
	var got struct {
		IDs  []string
		Text string
	}
	if err := json.Unmarshal([]byte(eval.Result.Value), &got); err != nil {
		t.Fatalf("evaluate: %v (%q)", err, eval.Result.Value)
	}
	res.Sections, res.Text = got.IDs, got.Text
	b.call(t, "", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil)
	return res
}

// screenshot takes chromium's own --screenshot of the page at path.
func screenshot(t *testing.T, path, png string, width, height int) {
	t.Helper()
	bin := chromium(t)
	abs, _ := filepath.Abs(path)
	args := append(chromiumArgs(t.TempDir()), fmt.Sprintf("--window-size=%d,%d", width, height),
		"--hide-scrollbars", "--screenshot="+png, (&url.URL{Scheme: "file", Path: abs}).String())
	cmd := exec.Command(bin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
}

// variety returns the number of distinct colours of a PNG and the share
// of its pixels that are not white.
func variety(t *testing.T, path string) (colours int, inked float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	seen := map[[3]uint32]bool{}
	var n, ink int
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
				ink++
			}
			n++
		}
	}
	return len(seen), float64(ink) / float64(max(n, 1))
}
