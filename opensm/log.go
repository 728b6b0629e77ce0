package opensm

import (
	"bufio"
	"bytes"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LogSummary is what an OpenSM log (opensm -f FILE) says about a routing.
type LogSummary struct {
	// SubnetUp is true when the log shows "SUBNET UP".
	SubnetUp bool
	// Used is the engine that configured the tables: the word before
	// "tables configured on all switches" (the last such line).
	Used string
	// NoEngine is true when no engine could route the fabric ("No routing
	// engine able to successfully configure switch tables"), which makes
	// an OpenSM with ENGINE,no_fallback sweep for ever.
	NoEngine bool
	// SMDown is the first line (without time stamp) that says the SM
	// cannot start: its port is down ("SM port is down", a CA bound on an
	// unconnected port) or it could not bind to its port. Such an OpenSM
	// waits for ever.
	SMDown string
	// Sweep is the time from "Entering MASTER state" to "SUBNET UP", from
	// the log's time stamps (0 when either is missing).
	Sweep time.Duration
	// Notes lists the routing lines that explain a fallback or a failure
	// (errors, "cannot build", "disabling", "falling back"), without time
	// stamp and log level, in log order.
	Notes []string
}

// ParseLog reads an OpenSM log. Lines look like
//
//	Nov 22 13:41:48 318034 [30D936C0] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches
//
// and lines without the time stamp prefix (as engine.txt keeps them) are
// read as well.
func ParseLog(data []byte) LogSummary {
	var s LogSummary
	var master, up time.Duration
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		raw := sc.Text()
		stamp, msg := splitLogLine(raw)
		switch {
		case strings.HasSuffix(msg, "-> SUBNET UP"):
			s.SubnetUp = true
			up = stamp
		case strings.Contains(msg, "Entering MASTER state"):
			if master == 0 {
				master = stamp
			}
		case strings.HasSuffix(msg, " tables configured on all switches"):
			words := strings.Fields(strings.TrimSuffix(msg, " tables configured on all switches"))
			if len(words) > 0 {
				s.Used = words[len(words)-1]
			}
		}
		if strings.Contains(msg, "No routing engine able to successfully configure") {
			s.NoEngine = true
		}
		if s.SMDown == "" && smDown(msg) {
			s.SMDown = msg
		}
		if isNote(msg) {
			note := msg
			if i := strings.Index(note, " -> "); i >= 0 && strings.HasPrefix(note, "0x") {
				note = note[i+4:]
			}
			if !containsString(s.Notes, note) && len(s.Notes) < 20 {
				s.Notes = append(s.Notes, note)
			}
		}
	}
	if master > 0 && up >= master {
		s.Sweep = up - master
	}
	return s
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// smDown tells the log lines of an SM that cannot start.
func smDown(msg string) bool {
	for _, k := range []string{"SM port is down", "Unable to find requested CA guid", "Unable to open port",
		"SM MAD Controller bind failed"} {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}

// isNote tells the lines worth showing when routing did not go as asked.
func isNote(msg string) bool {
	if strings.Contains(msg, "print_network_node") || unreadDump(msg) {
		return false
	}
	for _, k := range []string{" ERR ", "cannot build", "disabling", "fall back", "falling back",
		"No routing engine", "Failed to setup routing engine", "cannot "} {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}

// splitLogLine splits "Mon DD HH:MM:SS usec [thread] msg" into the time of
// day and msg; a line without that prefix is all message.
func splitLogLine(l string) (time.Duration, string) {
	f := strings.SplitN(l, " ", 6)
	// "Nov", "22", "13:41:48", "318034", "[30D936C0]", rest; the day may
	// be space padded ("Nov  2"), which gives an empty field.
	if len(f) == 6 && f[1] == "" {
		f = strings.SplitN(l, " ", 7)
		if len(f) == 7 {
			f = append(f[:1], f[2:]...)
		}
	}
	if len(f) < 6 || len(f[2]) != 8 || f[2][2] != ':' || f[2][5] != ':' || !strings.HasPrefix(f[4], "[") {
		return 0, strings.TrimSpace(l)
	}
	h, e1 := strconv.Atoi(f[2][0:2])
	m, e2 := strconv.Atoi(f[2][3:5])
	sec, e3 := strconv.Atoi(f[2][6:8])
	us, e4 := strconv.Atoi(f[3])
	if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
		return 0, strings.TrimSpace(l)
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec)*time.Second +
		time.Duration(us)*time.Microsecond
	return d + 1, f[5] // +1: a stamp at midnight is still a stamp
}

// unreadDump tells OpenSM's line for a dump file of unreadDumps it could
// not create (a session blocks them).
func unreadDump(msg string) bool {
	i := strings.Index(msg, "cannot create file '")
	if i < 0 {
		return false
	}
	path, _, ok := strings.Cut(msg[i+len("cannot create file '"):], "'")
	return ok && slices.Contains(unreadDumps, filepath.Base(path))
}
