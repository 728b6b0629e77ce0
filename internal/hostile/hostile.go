// Package hostile is the mutation fuzzer of the orcs command: it mutates
// the shipped inputs (fabrics, InfiniBand dumps, patterns, counters, saved
// JSON results) and the command-line values of every command, runs the
// orcs binary on each under an address-space cap and a time limit, and
// classifies every run: ok, a clean error, a panic, a hang or a peak of
// memory over the limit. cmd/hostile (scripts/hostile) runs it at length;
// its test runs a short seeded round.
package hostile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"orcs/internal/workers"
)

// Outcome classifies one run.
type Outcome int

// The outcomes, from good to bad.
const (
	OK         Outcome = iota // exit 0
	CleanError                // exit 1 (or another non-zero status) with a message, no stack
	Panic                     // a Go panic, a fatal runtime error or a stack trace
	Hang                      // still running at the time limit, and at the recheck's
	Peak                      // more memory than the limit (max RSS)
	Slow                      // past the time limit, but it ended within the recheck's limit
)

// String names the outcome.
func (o Outcome) String() string {
	return [...]string{"ok", "clean error", "panic", "hang", "peak", "slow"}[o]
}

// Options configure a round.
type Options struct {
	// Bin is the orcs binary; Root the repository (the inputs are read
	// from its testdata); Work a directory for the mutated inputs.
	Bin, Root, Work string
	// N is the number of runs; Seed fixes the mutations.
	N    int
	Seed uint64
	// Workers run in parallel; Timeout is the hang limit; MaxRSS the peak
	// limit in bytes; AddressSpace the cap (RLIMIT_AS) of every run.
	Workers int
	Timeout time.Duration
	// Recheck, if longer than Timeout, reruns a run that passed Timeout
	// with this limit: one that ends is Slow (large work within the
	// limits, on a loaded machine), one that does not a Hang.
	Recheck      time.Duration
	MaxRSS       int64
	AddressSpace int64
	// Only, if not empty, keeps the templates of these commands.
	Only []string
}

// Result is one run.
type Result struct {
	Template string   // command × format
	Args     []string // the command line
	Outcome  Outcome
	Status   int
	RSS      int64 // max RSS, bytes
	Elapsed  time.Duration
	Stderr   string // its first 400 bytes
}

// template is a way to run a command on an input: args holds "@IN" where
// the mutated file goes; flags lists the flag values the flag mutations
// replace (a flag name; its value follows it in args).
type template struct {
	cmd, format string
	args        []string
	input       string // the seed file (relative to the work dir or root), "" for flag templates
	gz          bool
}

func (t template) name() string { return t.cmd + " × " + t.format }

// Run runs a round and returns every result, in the order of the inputs
// (the mutations depend on Seed and the input's index only, so a round is
// the same on any number of workers).
func Run(opt Options) ([]Result, error) {
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	if err := os.MkdirAll(opt.Work, 0o755); err != nil {
		return nil, err
	}
	tpls, err := templates(opt)
	if err != nil {
		return nil, err
	}
	if len(opt.Only) > 0 {
		tpls = slices.DeleteFunc(tpls, func(t template) bool { return !slices.Contains(opt.Only, t.cmd) })
	}
	if len(tpls) == 0 {
		return nil, errors.New("no templates")
	}
	seeds := map[string][]byte{}
	for _, t := range tpls {
		if t.input == "" {
			continue
		}
		b, err := os.ReadFile(t.input)
		if err != nil {
			return nil, fmt.Errorf("seed input: %w", err)
		}
		seeds[t.input] = b
	}
	res := make([]Result, opt.N)
	workers.Run(nil, opt.Workers, opt.N, func(_, i int) error {
		r := rand.New(rand.NewPCG(opt.Seed, uint64(i)))
		t := tpls[i%len(tpls)]
		dir := filepath.Join(opt.Work, fmt.Sprintf("in%06d", i))
		os.MkdirAll(dir, 0o755)
		args := prepare(r, t, seeds[t.input], dir)
		res[i] = runOne(opt, opt.Timeout, t.name(), args, dir)
		if res[i].Outcome == Hang && opt.Recheck > opt.Timeout {
			if again := runOne(opt, opt.Recheck, t.name(), args, dir); again.Outcome != Hang {
				res[i] = again
				if again.Outcome != Panic && again.Outcome != Peak {
					res[i].Outcome = Slow
				}
			}
		}
		os.RemoveAll(dir)
		return nil
	})
	return res, nil
}

// prepare writes the mutated input of t into dir and returns the command
// line, with flag values mutated now and then.
func prepare(r *rand.Rand, t template, seed []byte, dir string) []string {
	args := slices.Clone(t.args)
	in := filepath.Join(dir, "input")
	if t.input != "" {
		data := MutateBytes(r, seed)
		os.WriteFile(in, data, 0o644)
	}
	// Flag values: always for a flag template, one in four otherwise.
	if t.input == "" || r.IntN(4) == 0 {
		var vals []int
		for i := 1; i < len(args); i++ {
			flagValue := strings.HasPrefix(args[i-1], "-") && !strings.HasPrefix(args[i], "-") && args[i-1] != "-o"
			spec := strings.Contains(args[i], ":") && !strings.HasPrefix(args[i], "/") // gen specs, positional or not
			if (flagValue || spec) && !strings.Contains(args[i], "@IN") && !strings.Contains(args[i], "@DIR") {
				vals = append(vals, i)
			}
		}
		for range 1 + r.IntN(2) {
			if len(vals) > 0 {
				k := vals[r.IntN(len(vals))]
				args[k] = MutateValue(r, args[k])
			}
		}
	}
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "@IN", in)
		args[i] = strings.ReplaceAll(args[i], "@DIR", dir)
	}
	return args
}

// runOne runs orcs with args in dir under the caps and classifies it.
func runOne(opt Options, limit time.Duration, name string, args []string, dir string) Result {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	full := append([]string{fmt.Sprintf("--as=%d", opt.AddressSpace), "--", opt.Bin}, args...)
	cmd := exec.CommandContext(ctx, "prlimit", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "GOTRACEBACK=all")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stdout = io.Discard
	cmd.Stderr = &limited{w: &stderr, n: 64 << 10}
	start := time.Now()
	err := cmd.Run()
	res := Result{Template: name, Args: args, Elapsed: time.Since(start)}
	if cmd.ProcessState != nil {
		res.Status = cmd.ProcessState.ExitCode()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.RSS = ru.Maxrss * 1024
		}
	}
	text := stderr.String()
	res.Stderr = text[:min(len(text), 400)]
	switch {
	case ctx.Err() != nil:
		res.Outcome = Hang
	case strings.Contains(text, "panic:") || strings.Contains(text, "goroutine ") || strings.Contains(text, "fatal error:") ||
		strings.Contains(text, "runtime error") || res.Status == 2 && strings.Contains(text, "runtime."):
		res.Outcome = Panic
	case res.RSS > opt.MaxRSS:
		res.Outcome = Peak
	case err == nil:
		res.Outcome = OK
	default:
		res.Outcome = CleanError
	}
	return res
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// interesting are the values the mutations put in place of numbers and
// flag values: boundaries of the integer and float types, specials,
// units, separators and text.
var interesting = []string{
	"0", "-1", "1", "-0", "2", "255", "256", "65535", "65536", "2147483647", "2147483648", "-2147483649",
	"4294967296", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551616",
	"1e300", "-1e300", "1e-300", "NaN", "Inf", "-Inf", "0.5", "1.5", "0x10", "1e9", "999999999999",
	"", " ", ",", ":", "=", "[", "]", "{", "}", "\"", "\\", "\x00", "\xff\xfe", "é", "-", "--", "@", "@/dev/null",
	"/dev/zero", "node[1-99999999]", "n[1-3]x[1-3]", "0.5ns", "100000h", "1e300ns", "-5us", "nan%", "gen:",
}

// MutateValue returns a mutation of a flag value.
func MutateValue(r *rand.Rand, v string) string {
	switch r.IntN(5) {
	case 0, 1:
		return interesting[r.IntN(len(interesting))]
	case 2: // a number inside the value replaced
		return replaceNumber(r, v)
	case 3: // a key=value inside a spec
		if i := strings.IndexByte(v, '='); i >= 0 {
			j := strings.IndexByte(v[i:], ',')
			end := len(v)
			if j >= 0 {
				end = i + j
			}
			return v[:i+1] + interesting[r.IntN(len(interesting))] + v[end:]
		}
		return v + interesting[r.IntN(len(interesting))]
	default:
		return string(MutateBytes(r, []byte(v)))
	}
}

// replaceNumber replaces one run of digits in v by an interesting value.
func replaceNumber(r *rand.Rand, v string) string {
	var runs [][2]int
	for i := 0; i < len(v); {
		if v[i] >= '0' && v[i] <= '9' {
			j := i
			for j < len(v) && v[j] >= '0' && v[j] <= '9' {
				j++
			}
			runs = append(runs, [2]int{i, j})
			i = j
			continue
		}
		i++
	}
	if len(runs) == 0 {
		return v + interesting[r.IntN(len(interesting))]
	}
	k := runs[r.IntN(len(runs))]
	return v[:k[0]] + interesting[r.IntN(len(interesting))] + v[k[1]:]
}

// MutateBytes returns a mutation of data: one to four edits of bytes,
// numbers, lines and tokens, and now and then a large repetition (at most
// a few MB).
func MutateBytes(r *rand.Rand, data []byte) []byte {
	out := slices.Clone(data)
	for range 1 + r.IntN(4) {
		out = mutateOnce(r, out)
	}
	return out
}

func mutateOnce(r *rand.Rand, b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	switch r.IntN(10) {
	case 0: // flip bytes
		for range 1 + r.IntN(8) {
			if len(b) > 0 {
				b[r.IntN(len(b))] ^= byte(1 << r.IntN(8))
			}
		}
		return b
	case 1, 2, 3: // a number replaced
		return []byte(replaceNumberAt(r, string(b)))
	case 4: // a line deleted
		if len(lines) > 1 {
			i := r.IntN(len(lines))
			lines = slices.Delete(lines, i, i+1)
		}
	case 5: // a line duplicated, or repeated many times
		if len(lines) > 0 {
			i := r.IntN(len(lines))
			n := 1
			if r.IntN(8) == 0 {
				n = min(200000, (4<<20)/max(len(lines[i]), 1))
			}
			rep := slices.Repeat([][]byte{lines[i]}, n)
			lines = slices.Insert(lines, i, rep...)
		}
	case 6: // truncated
		if len(b) > 0 {
			return b[:r.IntN(len(b))]
		}
	case 7: // a token inserted
		tok := interesting[r.IntN(len(interesting))]
		i := r.IntN(len(b) + 1)
		return slices.Concat(b[:i], []byte(tok), b[i:])
	case 8: // two lines swapped
		if len(lines) > 1 {
			i, j := r.IntN(len(lines)), r.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
		}
	default: // a chunk copied elsewhere
		if len(b) > 1 {
			i := r.IntN(len(b))
			j := i + r.IntN(min(len(b)-i, 256))
			k := r.IntN(len(b) + 1)
			return slices.Concat(b[:k], b[i:j], b[k:])
		}
	}
	return bytes.Join(lines, nil)
}

// replaceNumberAt replaces a random number of s (not only the first).
func replaceNumberAt(r *rand.Rand, s string) string {
	if len(s) == 0 {
		return s
	}
	start := r.IntN(len(s))
	for i := start; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			return s[:i] + interesting[r.IntN(len(interesting))] + s[j:]
		}
	}
	return s
}

// Summary counts the outcomes per template.
type Summary struct {
	Template string
	Count    [6]int // by Outcome
}

// Summarize counts results per template, sorted by name.
func Summarize(res []Result) []Summary {
	by := map[string]*Summary{}
	for _, r := range res {
		s := by[r.Template]
		if s == nil {
			s = &Summary{Template: r.Template}
			by[r.Template] = s
		}
		s.Count[r.Outcome]++
	}
	out := make([]Summary, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Template < out[j].Template })
	return out
}

// WriteTable writes the summary as a Markdown table with a total row.
func WriteTable(w io.Writer, sums []Summary) {
	fmt.Fprintln(w, "| command × input | inputs | clean errors | ok | panics | hangs | peaks | slow |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	var tot [6]int
	for _, s := range sums {
		n := 0
		for k, c := range s.Count {
			n += c
			tot[k] += c
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", s.Template, n, s.Count[CleanError], s.Count[OK], s.Count[Panic], s.Count[Hang], s.Count[Peak], s.Count[Slow])
	}
	n := tot[0] + tot[1] + tot[2] + tot[3] + tot[4] + tot[5]
	fmt.Fprintf(w, "| **all** | %d | %d | %d | %d | %d | %d | %d |\n", n, tot[CleanError], tot[OK], tot[Panic], tot[Hang], tot[Peak], tot[Slow])
}
