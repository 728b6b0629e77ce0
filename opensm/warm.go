package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"orcs/ib"
	"orcs/lft"
)

// WarmEngines are the engines a Session routes with: those whose tables
// after a heavy sweep of a running OpenSM were checked, set by set, to be
// the tables of a fresh OpenSM on a fresh emulation of the same fabric
// (TestSessionEqualsCold). Other engines route cold.
var WarmEngines = []string{"minhop", "updn", "ftree", "dfsssp"}

// sessionWireSMPs is how many SMPs a session's OpenSM keeps outstanding
// (OpenSM's default: 4): the emulation answers them in turn, and a deeper
// queue saves a round trip between the two processes per MAD. It changes
// the order MADs are answered in, not what OpenSM learns.
const sessionWireSMPs = 256

// unreadDumps are the files OpenSM dumps after every heavy sweep that a
// session does not read. OpenSM writes them only when it can create them,
// and computes them only then: opensm.fdbs asks the engine again for the
// route of every LID at every switch, the LID matrix has a row per switch
// and LID. A directory of each name in the dump directory makes OpenSM
// skip them (it logs "cannot create file" for each, which ParseLog leaves
// out of the notes); opensm-lfts.dump, the tables, is written as before.
var unreadDumps = []string{"opensm-lid-matrix.dump", "opensm.fdbs", "opensm.mcfdbs", "opensm-subnet.lst"}

// ErrNoSession marks a fabric or options a Session does not route (the
// caller routes cold, with Route).
var ErrNoSession = errors.New("not routed by a running OpenSM")

// Session is one ibsim emulation and one OpenSM kept running on it, so that
// many variants of one fabric with cables removed are routed without
// starting either tool again: the cables go down through ibsim's console
// (Unlink, ReLink) and OpenSM re-routes in a heavy sweep, on SIGHUP. OpenSM
// runs with -s 0 and sweep_on_trap FALSE, so that it sweeps only when told
// to, and its sweeps are seen in its log (the state manager's debug line
// for each sweep signal, SUBNET UP at the end of a heavy sweep): a routing
// is the first sweep that starts after the cables changed. OpenSM keeps
// the LIDs it gave (as in production); the tables are those of a cold
// routing for the engines of WarmEngines.
//
// A Session is not safe for concurrent use.
type Session struct {
	r       *run
	in      io.WriteCloser // ibsim's console
	cables  []int32        // the fabric's cables: one link each (the one whose reverse has a higher id)
	reverse []int32
	down    []bool // by link of the fabric: its cable is unlinked now
	marks   int    // console marks written
	// fresh makes every routing ignore the tables OpenSM programmed
	// before, as a first sweep does: OpenSM's own cable (smCable, its
	// link) is unlinked and linked again with each change (setCables).
	// Engines that keep existing table entries (minhop and updn, and
	// minhop after an ftree fallback) need it.
	fresh   bool
	smCable int32
	ibsimAt int64 // ibsim's output read up to here
	logAt   int64 // OpenSM's log consumed up to here (the end of the last sweep used)
	// Sweeps counts the heavy sweeps routed (the intact one included).
	Sweeps int
}

// warmSupported returns nil when a Session routes with opt.
func warmSupported(opt Options) error {
	switch {
	case !slices.ContainsFunc(WarmEngines, func(e string) bool { return strings.EqualFold(e, opt.Engine) }):
		return fmt.Errorf("%w: engine %s (a running OpenSM is checked for %s)", ErrNoSession, opt.Engine, strings.Join(WarmEngines, ", "))
	case opt.PathSLs:
		return fmt.Errorf("%w: the path SLs are read by a routing of its own", ErrNoSession)
	case opt.Topology != nil || opt.KeepIdentity:
		return fmt.Errorf("%w: the emulation of an InfiniBand topology", ErrNoSession)
	case opt.NoFallback || opt.DumpFTS || opt.IBNetDiscover || opt.Keep != "":
		return fmt.Errorf("%w: no_fallback, dump_fts, ibnetdiscover and kept dumps", ErrNoSession)
	case !opt.KeepPorts:
		return fmt.Errorf("%w: the ports of the fabric are not kept", ErrNoSession)
	}
	return nil
}

// StartSession starts ibsim on the fabric f and OpenSM on it, and returns
// the session and f routed (the first sweep). opt is as for Route, with
// KeepPorts, no path SLs and an engine of WarmEngines; its Timeout bounds
// the start and each sweep. The session's tools stop when Close is called,
// and when ctx is cancelled during a call.
func StartSession(ctx context.Context, f *lft.Fabric, opt Options) (s *Session, res *Result, err error) {
	if f == nil {
		return nil, nil, errors.New("no fabric to route")
	}
	if err := CheckEngine(opt.Engine); err != nil {
		return nil, nil, err
	}
	if err := warmSupported(opt); err != nil {
		return nil, nil, err
	}
	if opt.Timeout < 0 {
		return nil, nil, fmt.Errorf("timeout %s: want a positive duration", opt.Timeout)
	}
	if opt.Timeout == 0 {
		opt.Timeout = DefaultTimeout(len(f.Nodes))
	}
	if opt.Grace <= 0 {
		opt.Grace = 2 * time.Second
	}
	tools := opt.Tools
	if tools == nil {
		if tools, err = FindTools(); err != nil {
			return nil, nil, err
		}
	}
	net, err := ib.PlanSimNet(f, ib.SimOptions{KeepPorts: true})
	if err != nil {
		return nil, nil, err
	}
	if _, err := smCandidates(f, net); err != nil {
		return nil, nil, err
	}
	work, err := os.MkdirTemp(opt.TempDir, "orcs-session-")
	if err != nil {
		return nil, nil, err
	}
	s = &Session{r: &run{opt: opt, tools: tools, work: work, f: f, net: net}, reverse: net.Reverse,
		down: make([]bool, len(f.Links))}
	for l := range f.Links {
		if rv := net.Reverse[l]; rv < 0 || int32(l) < rv {
			s.cables = append(s.cables, int32(l))
		}
	}
	started := s // the results are set by the return statements
	defer func() {
		if err != nil {
			started.Close()
			s = nil
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	if err = s.start(ctx); err != nil {
		return nil, nil, err
	}
	s.fresh = !strings.EqualFold(opt.Engine, "dfsssp")
	s.smCable = -1
	if v, ok := f.NodeByName(s.r.sm.id); ok && f.Nodes[v].Kind == lft.Host {
		for _, l := range s.cables {
			if k := f.Links[l]; k.From == v || k.To == v {
				s.smCable = l
			}
		}
	}
	if s.fresh && s.smCable < 0 {
		return nil, nil, fmt.Errorf("%w: OpenSM runs on switch %s, whose cable cannot be pulled", ErrNoSession, s.r.sm.id)
	}
	res, err = s.sweep(ctx, f, false)
	return s, res, err
}

// start writes the net file and the configuration and starts both tools.
func (s *Session) start(ctx context.Context) error {
	r := s.r
	topo, err := r.writeNet()
	if err != nil {
		return err
	}
	r.topo = topo
	if r.sm, err = r.chooseSM(topo); err != nil {
		return err
	}
	args, err := r.openSMArgs(topo)
	if err != nil {
		return err
	}
	if len(args) == 0 || args[0] != "-o" {
		return errors.New("OpenSM's command line does not start with -o")
	}
	// Stay up, never sweep by itself (no periodic sweep, no sweep on a
	// trap) and log each sweep signal of the state manager. One
	// dispatcher thread (single_thread) hands the MADs on with fewer
	// thread switches: 10 % less OpenSM CPU per sweep, the same tables.
	args = append([]string{"-s", "0"}, args[1:]...)
	levels := r.path("per-module-logging.conf")
	if err := os.WriteFile(levels, []byte("osm_state_mgr.c 0x0f\n"), 0o644); err != nil {
		return err
	}
	conf, err := os.OpenFile(r.path("opensm.conf"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(conf, "\n# orcs: sweep on SIGHUP only, each sweep in the log, one dispatcher thread, %d SMPs on the wire\n"+
		"sweep_on_trap FALSE\nsingle_thread TRUE\nforce_log_flush TRUE\nmax_wire_smps %d\nmax_wire_smps2 %d\nper_module_logging_file %s\n",
		sessionWireSMPs, sessionWireSMPs, sessionWireSMPs, levels)
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if r.opt.ConfFile == "" {
		args = append([]string{"-F", r.path("opensm.conf")}, args...)
	}
	for _, d := range []string{"cache", "dump"} {
		if err := os.Mkdir(r.path(d), 0o755); err != nil {
			return err
		}
	}
	for _, d := range unreadDumps {
		if err := os.Mkdir(filepath.Join(r.path("dump"), d), 0o755); err != nil {
			return err
		}
	}
	if s.in, err = r.startIBSimConsole(ctx, true); err != nil {
		return err
	}
	if st, err := os.Stat(r.path("ibsim.log")); err == nil {
		s.ibsimAt = st.Size() // its banner
	}
	cmd := exec.Command(r.tools.OpenSM, args...)
	cmd.Dir = r.work
	cmd.Env = append(r.clientEnv(), "OSM_CACHE_DIR="+r.path("cache"))
	r.child, err = startProc("opensm", cmd, r.path("opensm.out"))
	r.command = "opensm " + strings.ReplaceAll(strings.Join(args, " "), r.work, "WORK")
	return err
}

// Close stops OpenSM and ibsim and removes the work directory.
func (s *Session) Close() error {
	if s == nil || s.r == nil {
		return nil
	}
	if s.in != nil {
		s.in.Close()
	}
	s.r.stopAll()
	err := os.RemoveAll(s.r.work)
	s.r = nil
	return err
}

// Route routes g, a part of the session's fabric: g's nodes are some of
// its nodes (by name) and g's links some of its links (by node and port),
// among them every link of the session's fabric between two nodes of g
// that g keeps. Every cable of the session's fabric with an end in g that
// g lacks is unlinked, cables unlinked before and present in g are linked
// again, then OpenSM sweeps. The result is as Route's for g (its Fabric
// has g's nodes and links); its OpenSM time is the sweep's.
func (s *Session) Route(ctx context.Context, g *lft.Fabric) (*Result, error) {
	if s == nil || s.r == nil {
		return nil, errors.New("the session is closed")
	}
	if g == nil {
		return nil, errors.New("no fabric to route")
	}
	if _, ok := g.NodeByName(s.r.sm.id); !ok {
		return nil, fmt.Errorf("%w: the fabric lacks %s, the node OpenSM runs on", ErrNoSession, s.r.sm.id)
	}
	ctx, cancel := context.WithTimeout(ctx, s.r.opt.Timeout)
	defer cancel()
	want, err := s.wantDown(g)
	if err != nil {
		return nil, err
	}
	bounce := int32(-1)
	if s.fresh {
		bounce = s.smCable
	}
	if err := s.setCables(ctx, want, bounce); err != nil {
		return nil, err
	}
	return s.sweep(ctx, g, true)
}

// wantDown marks the links of the session's fabric whose cable must be
// down for g.
func (s *Session) wantDown(g *lft.Fabric) ([]bool, error) {
	f := s.r.f
	in := make([]bool, len(f.Nodes))
	for _, n := range g.Nodes {
		v, ok := f.NodeByName(n.Name)
		if !ok {
			return nil, fmt.Errorf("node %q is not in the session's fabric", n.Name)
		}
		in[v] = true
	}
	type end struct{ v, port int32 }
	present := make(map[end]bool, len(g.Links))
	for _, k := range g.Links {
		v, _ := f.NodeByName(g.Nodes[k.From].Name)
		present[end{v, k.FromPort}] = true
	}
	want := make([]bool, len(f.Links))
	matched := 0
	for _, l := range s.cables {
		k := f.Links[l]
		port := int32(s.r.net.Port[l])
		if !in[k.From] && !in[k.To] {
			continue // wholly outside g: left as it is
		}
		if in[k.From] && present[end{k.From, port}] {
			matched++
			continue
		}
		if in[k.To] && present[end{k.To, int32(s.r.net.PeerPort(l))}] {
			matched++
			continue
		}
		want[l] = true
	}
	if matched*2 != len(g.Links) {
		return nil, fmt.Errorf("%d of the %d links of the fabric to route are not cables of the session's fabric (same nodes, same ports)", len(g.Links)-matched*2, len(g.Links))
	}
	return want, nil
}

// setCables brings the emulation's cables to want (by link of the
// session's fabric, on the cables' links) through ibsim's console, and
// waits until ibsim has done it.
//
// bounce, when not -1, is a cable (a link of s.cables) that is up and
// stays up: it is unlinked and linked again first, so that its switch
// port is in state INIT when OpenSM next sweeps. A switch port that needs
// configuring makes OpenSM's sweep ignore the tables it programmed before
// (ignore_existing_lfts, set in osm_port_info_rcv.c), as a first sweep
// does.
func (s *Session) setCables(ctx context.Context, want []bool, bounce int32) error {
	f := s.r.f
	var cmds bytes.Buffer
	// port is cable l's end in ibsim's console: "node"[port].
	port := func(l int32) string { return fmt.Sprintf("\"%s\"[%d]", f.Nodes[f.Links[l].From].Name, s.r.net.Port[l]) }
	if bounce >= 0 && !want[bounce] && !s.down[bounce] {
		at := port(bounce)
		fmt.Fprintf(&cmds, "Unlink %s\nReLink %s\n", at, at)
	}
	for _, l := range s.cables {
		if want[l] == s.down[l] {
			continue
		}
		verb := "Unlink"
		if !want[l] {
			verb = "ReLink"
		}
		fmt.Fprintf(&cmds, "%s %s\n", verb, port(l))
	}
	if cmds.Len() == 0 {
		return nil
	}
	s.marks++
	// ibsim echoes a comment line without its newline.
	mark := fmt.Sprintf("# orcs mark %d.", s.marks)
	fmt.Fprintf(&cmds, "%s\n", mark)
	if _, err := s.in.Write(cmds.Bytes()); err != nil {
		return fmt.Errorf("ibsim's console: %w", err)
	}
	logPath := s.r.path("ibsim.log")
	var out []byte
	err := s.r.ibsim.until(ctx, s.r.opt.Timeout, s.r.opt.Grace, func() bool {
		out = readFrom(logPath, s.ibsimAt)
		return bytes.Contains(out, []byte(mark))
	})
	if err != nil {
		return s.r.withLog(err, "ibsim.log")
	}
	end := bytes.Index(out, []byte(mark))
	s.ibsimAt += int64(end + len(mark))
	for _, line := range strings.Split(string(out[:end]), "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "sim>", ""))
		if strings.HasPrefix(line, "# ") && refused(line) {
			return fmt.Errorf("ibsim refused a cable change: %s", line)
		}
	}
	for _, l := range s.cables {
		s.down[l] = want[l]
		if rv := s.reverse[l]; rv >= 0 {
			s.down[rv] = want[l]
		}
	}
	return nil
}

// Log lines of the sweeps: the state manager's debug line for each sweep
// signal (osm_state_mgr.c at debug level), and the ends of a sweep.
var (
	sweepSignal = []byte("Received signal OSM_SIGNAL_SWEEP")
	sweepUp     = []byte("-> SUBNET UP\n")
	sweepError  = []byte("Errors during initialization")
	sweepLight  = []byte("LIGHT SWEEP COMPLETE")
)

// sweep waits for the sweep that follows every change made so far (with
// hup, it asks OpenSM for it) and returns g routed by it.
func (s *Session) sweep(ctx context.Context, g *lft.Fabric, hup bool) (*Result, error) {
	r := s.r
	logPath := r.path("opensm.log")
	if hup {
		// A sweep that started before the cables changed (OpenSM sweeps
		// again at the end of one when it saw a change during it) must end
		// first: its SUBNET UP is not this routing's.
		if err := s.waitIdle(ctx); err != nil {
			return nil, err
		}
	}
	from := s.logAt
	if hup {
		st, err := os.Stat(logPath)
		if err != nil {
			return nil, err
		}
		from = st.Size()
	}
	t0 := time.Now()
	if hup {
		if err := r.child.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			return nil, fmt.Errorf("OpenSM: %w", err)
		}
	}
	var seg []byte
	err := r.child.until(ctx, r.opt.Timeout, r.opt.Grace, func() bool {
		data := readFrom(logPath, from)
		start := 0
		if hup {
			i := bytes.Index(data, sweepSignal)
			if i < 0 {
				return false
			}
			start = i
		}
		rest := data[start:]
		end := -1
		if i := bytes.Index(rest, sweepUp); i >= 0 {
			end = start + i + len(sweepUp)
		}
		if i := bytes.Index(rest, sweepError); i >= 0 && (end < 0 || start+i < end) {
			end = start + i
			if j := bytes.IndexByte(data[end:], '\n'); j >= 0 {
				end += j + 1
			}
		}
		if end < 0 && bytes.Contains(rest, sweepLight) {
			seg = data // a light sweep: OpenSM saw no change
			return true
		}
		if end < 0 {
			if smDown(string(data)) {
				seg = data
				return true
			}
			return false
		}
		seg = data[:end]
		s.logAt = from + int64(end)
		return true
	})
	if err != nil {
		return nil, r.withLog(err, "opensm.log")
	}
	s.Sweeps++
	sum := ParseLog(seg)
	if err := r.smDown(sum); err != nil {
		return nil, r.withLog(err, "opensm.log")
	}
	if !sum.SubnetUp || sum.Used == "" {
		return nil, r.withLog(fmt.Errorf("OpenSM did not bring the subnet up with %s", r.opt.Engine), "opensm.log")
	}
	res := &Result{Engine: r.opt.Engine, Used: sum.Used, Log: sum, OpenSM: time.Since(t0), Command: r.command}
	res.Fallback = !strings.EqualFold(res.Used, res.Engine)
	dump, err := os.ReadFile(r.path("dump/opensm-lfts.dump"))
	if err != nil {
		return nil, fmt.Errorf("OpenSM wrote no opensm-lfts.dump: %w", err)
	}
	if res.LFTs, err = ib.ReadLFTDump(dump, "opensm-lfts.dump"); err != nil {
		return nil, err
	}
	if res.Net, err = ib.PlanSimNet(g, ib.SimOptions{KeepPorts: true}); err != nil {
		return nil, err
	}
	res.Topology = subTopology(r.topo, g)
	if res.Fabric, err = routedFabric(g, res.Net, withoutLIDs(res.Topology), res.LFTs, false); err != nil {
		return nil, fmt.Errorf("the tables of the running OpenSM: %w", err)
	}
	if res.Fallback && !r.opt.AllowFallback {
		return res, &FallbackError{Requested: res.Engine, Used: res.Used, Notes: sum.Notes}
	}
	return res, nil
}

// waitIdle waits until every sweep OpenSM has started since the last one
// used has ended (SUBNET UP, or its error line).
func (s *Session) waitIdle(ctx context.Context) error {
	r := s.r
	logPath := r.path("opensm.log")
	return r.child.until(ctx, r.opt.Timeout, r.opt.Grace, func() bool {
		rest := readFrom(logPath, s.logAt)
		i := bytes.LastIndex(rest, sweepSignal)
		if i < 0 {
			return true
		}
		after := rest[i:]
		if bytes.Contains(after, sweepUp) || bytes.Contains(after, sweepError) || bytes.Contains(after, sweepLight) {
			s.logAt += int64(len(rest))
			return bytes.HasSuffix(rest, []byte("\n"))
		}
		return false
	})
}

// subTopology is the part of t (the session's net file read back) that g
// keeps: g's nodes by net-file id and the cables between them that g has.
func subTopology(t *ib.Topology, g *lft.Fabric) *ib.Topology {
	type end struct {
		id   string
		port int
	}
	present := make(map[end]bool, len(g.Links))
	for _, k := range g.Links {
		present[end{g.Nodes[k.From].Name, int(k.FromPort)}] = true
	}
	idx := make([]int, len(t.Nodes))
	var nodes []ib.TopoNode
	for i, n := range t.Nodes {
		idx[i] = -1
		if _, ok := g.NodeByName(n.ID); ok {
			idx[i] = len(nodes)
			nodes = append(nodes, n)
		}
	}
	for i := range nodes {
		n := &nodes[i]
		var ports []ib.TopoPort
		for _, p := range n.Ports {
			if p.Peer >= 0 && idx[p.Peer] >= 0 && present[end{n.ID, p.Num}] {
				p.Peer = idx[p.Peer]
				ports = append(ports, p)
			}
		}
		n.Ports = ports
	}
	c := *t
	c.Nodes = nodes
	return &c
}

// readFrom returns the file's bytes from offset off on (nil when it cannot
// be read or is shorter).
func readFrom(path string, off int64) []byte {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	if _, err := fh.Seek(off, io.SeekStart); err != nil {
		return nil
	}
	data, _ := io.ReadAll(fh)
	return data
}

// refused tells ibsim's console lines that refuse a command.
func refused(line string) bool {
	for _, k := range []string{"not found", "can't", "not linked", "bad ", "no previous", "no local", "no remote", "unknown"} {
		if strings.Contains(line, k) {
			return true
		}
	}
	return false
}
