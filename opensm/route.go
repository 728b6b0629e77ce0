package opensm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"orcs/deadlock"
	"orcs/ib"
	"orcs/infile"
	"orcs/lft"
)

// Options controls Route.
type Options struct {
	// Engine is the OpenSM routing engine (see Engines), e.g. "updn".
	Engine string
	// NoFallback runs OpenSM with ENGINE,no_fallback and stops it as soon
	// as its log shows that no engine could route (OpenSM itself would
	// sweep for ever).
	NoFallback bool
	// AllowFallback accepts a routing by another engine than the one
	// asked for. Otherwise such a routing returns the result together with
	// a *FallbackError.
	AllowFallback bool
	// Roots names root switches for updn, dnup and ftree (OpenSM's -a root
	// GUID file); empty lets the engine find them.
	Roots []string
	// Torus gives the torus-2QoS engine its seed; with it, OpenSM runs with
	// QoS on (-Q) and the seed file (--torus_config). Other engines ignore
	// it. Without it torus-2QoS falls back.
	Torus *Torus
	// TorusConfig is a torus-2QoS seed file of the user's, used like Torus
	// (Torus wins when both are given).
	TorusConfig string
	// KeepPorts takes the port numbers from the fabric's links (generated
	// fabrics); otherwise ports are assigned as dot2osm does (see
	// ib.PlanSimNet).
	KeepPorts bool
	// KeepIdentity emulates the fabric with its own node GUIDs (Node.GUID)
	// and LIDs (Node.LID, LMC), as a fabric read from InfiniBand files has
	// them: the net file gives ibsim the GUIDs and the ports their LIDs,
	// which OpenSM keeps as it keeps the valid LIDs of a running fabric.
	// ibnetdiscover on the emulation checks them, and every cable, against
	// the input. Nodes without them get ibsim's and OpenSM's.
	KeepIdentity bool
	// Topology, when not nil, is the InfiniBand topology the fabric was
	// built from (ib.BuildTopology: hosts are CA ports, switches and
	// routers by node GUID). The emulation is then this topology itself,
	// not the fabric: every node that holds a LID — aggregation nodes left
	// out of the fabric's hosts, all ports of multi-port CAs — and every
	// connected port and cable (loopbacks included), with its GUIDs and
	// LIDs (ib.WriteTopologyNet), so that OpenSM balances the production
	// fabric. The fabric's nodes are matched to it by GUID and port.
	// KeepPorts and KeepIdentity are implied.
	Topology *ib.Topology
	// DumpFTS also reads the tables back from the emulated switches with
	// dump_fts (Result.FTS).
	DumpFTS bool
	// IBNetDiscover also runs ibnetdiscover (its output is kept with Keep).
	IBNetDiscover bool
	// Keep, when not empty, is a directory (created if need be) that
	// receives the net file, OpenSM's log and dumps and the diagnostics'
	// output.
	Keep string
	// Timeout bounds the whole routing; 0 means DefaultTimeout of the
	// fabric's nodes.
	Timeout time.Duration
	// Grace is how long a stopped tool gets between SIGTERM and SIGKILL;
	// 0 means 2 seconds. (OpenSM notices SIGTERM only at its next wake-up,
	// up to 10 s later, so it is usually killed.)
	Grace time.Duration
	// Tools locates the programs; nil looks them up with FindTools.
	Tools *Tools
	// TempDir is where the private work directory is made; "" is the
	// system's temporary directory.
	TempDir string
	// LMC is OpenSM's LID mask control (-l): every port gets 2^LMC LIDs.
	// With Topology, 0 means the LMC of the topology's CA ports.
	LMC int
	// ConfFile is an opensm.conf of the administrator's (-F); its keys
	// apply (the command line given here wins where both set a value).
	ConfFile string
	// RootGUIDFile and CNGUIDFile are OpenSM's root switch and compute
	// node GUID files (-a, -u), one GUID per line. With KeepIdentity the
	// emulated fabric has the real GUIDs, so the production files apply.
	RootGUIDFile, CNGUIDFile string
	// ExtraArgs are passed to OpenSM as they are.
	ExtraArgs []string
	// PathSLs runs OpenSM without -o and, once the subnet is up, asks its
	// subnet administrator for the PathRecord of every ordered pair of
	// hosts (saquery PR, kept as PathSLFile) before stopping it, so that
	// Result.Lanes holds the SL of every path. Engines that assign SLs
	// (AssignsSLs) then run with QoS on (-Q): OpenSM sets the SL2VL tables
	// and dumps them (opensm-sl2vl.dump). At most MaxPathSLHosts hosts,
	// except for an engine that logs every path's SL (dfsssp, see
	// PathSLHosts): OpenSM then runs once (-o) with that engine's source
	// file at debug level, and its log gives the SLs (PathSLLogFile).
	PathSLs bool
}

// Result is a fabric routed by OpenSM.
type Result struct {
	// Engine is the engine asked for, Used the one that configured the
	// tables (different after a fallback).
	Engine, Used string
	// Fallback says Used differs from Engine.
	Fallback bool
	// Fabric is the routed fabric: the input's nodes (names, order) and
	// links (order), with the port numbers of the net file, every switch's
	// table as OpenSM set it, and every host sending on its one link.
	// Destinations a switch has no entry for stay unrouted.
	Fabric *lft.Fabric
	// Net is the net file's plan (ports and cables).
	Net *ib.SimNet
	// Topology is the net file as ibsim reads it (with its GUIDs).
	Topology *ib.Topology
	// LFTs is opensm-lfts.dump; FTS the dump_fts output (with DumpFTS).
	LFTs, FTS *ib.Routing
	// Log summarises OpenSM's log.
	Log LogSummary
	// Start is the time ibsim took to become ready; OpenSM the run time of
	// the opensm process (its routing time, start and exit included; with
	// PathSLs up to SUBNET UP, without the path queries).
	Start, OpenSM time.Duration
	// Command is the OpenSM command line, with the work directory shown
	// as "WORK".
	Command string
	// Lanes are the SLs of the paths and the SL2VL tables of the routing
	// (with PathSLs), else nil.
	Lanes *deadlock.Lanes
}

// FallbackError reports an OpenSM that routed with another engine than
// the one asked for.
type FallbackError struct {
	// Requested and Used name the engines.
	Requested, Used string
	// Notes are the log lines that explain why.
	Notes []string
}

func (e *FallbackError) Error() string {
	msg := fmt.Sprintf("OpenSM fell back from %s to %s", e.Requested, e.Used)
	if len(e.Notes) > 0 {
		msg += ": " + strings.Join(e.Notes, "; ")
	}
	return msg
}

// DefaultTimeout is the time limit of a routing when none is given: two
// minutes and a tenth of a second per node of the fabric (switches and
// CAs), e.g. 5 minutes for 1 800 nodes and 10 minutes for 4 800. An SM that
// cannot start is reported within seconds, whatever the limit.
func DefaultTimeout(nodes int) time.Duration {
	return 2*time.Minute + time.Duration(nodes)*100*time.Millisecond
}

// topologyLMC is the LMC the fabric runs with: the largest LMC of its CA
// ports (0 when the topology gives none).
func topologyLMC(t *ib.Topology) int {
	lmc := 0
	for i := range t.Nodes {
		if n := &t.Nodes[i]; n.Kind == lft.Host {
			for _, p := range n.Ports {
				lmc = max(lmc, int(p.LMC))
			}
		}
	}
	return lmc
}

// sockSeq numbers the ibsim sockets of this process.
var sockSeq atomic.Int64

// Route routes the topology of f with a real OpenSM engine on an ibsim
// emulation of f, and returns the routed fabric. The routing comments of f
// are ignored. It needs the tools of Packages (a *MissingError says which
// is missing). With AllowFallback unset, a fallback returns the result and
// a *FallbackError.
//
// Per call: a private work directory (removed at the end, with the
// sys-<pid> directories libumad2sim leaves there), a unique ibsim socket
// name, ibsim sized for the fabric (-N/-S/-P), one OpenSM sweep (-o) with
// a fresh cache directory, and the SM bound (-g) to port 1 of the first host
// whose port 1 is cabled (ibsim attaches clients to a CA's port 1 only),
// else to a switch's port 0. An OpenSM whose log says that its port is
// down or that it cannot bind is stopped at once, with that line in the
// error. OpenSM's MAD
// transactions time out after 1 s instead of 200 ms (-t 1000), as ibsim
// may answer slowly on a loaded machine. Every tool is
// stopped by its PID when the routing ends, fails, times out or ctx is
// cancelled.
func Route(ctx context.Context, f *lft.Fabric, opt Options) (res *Result, err error) {
	if opt.Engine == "" {
		return nil, errors.New("no routing engine given")
	}
	if strings.ContainsAny(opt.Engine, ", \t") {
		return nil, fmt.Errorf("engine %q: give one engine name (no_fallback is an option)", opt.Engine)
	}
	if err := CheckEngine(opt.Engine); err != nil {
		return nil, err
	}
	switch {
	case opt.Timeout < 0:
		return nil, fmt.Errorf("timeout %s: want a positive duration", opt.Timeout)
	case opt.Timeout == 0:
		nodes := 0
		if f != nil {
			nodes = len(f.Nodes)
		}
		if opt.Topology != nil {
			nodes = len(opt.Topology.Nodes)
		}
		opt.Timeout = DefaultTimeout(nodes)
	}
	if opt.Topology != nil {
		opt.KeepPorts, opt.KeepIdentity = true, true
		if opt.LMC == 0 {
			opt.LMC = topologyLMC(opt.Topology)
		}
	}
	if err := emptyDir(opt.Keep); err != nil {
		return nil, err
	}
	if opt.Grace <= 0 {
		opt.Grace = 2 * time.Second
	}
	if f == nil {
		return nil, errors.New("no fabric to route")
	}
	tools := opt.Tools
	if tools == nil {
		if tools, err = FindTools(); err != nil {
			return nil, err
		}
	}
	net, err := ib.PlanSimNet(f, ib.SimOptions{KeepPorts: opt.KeepPorts, KeepIdentity: opt.KeepIdentity})
	if err != nil {
		return nil, err
	}
	if opt.Topology == nil {
		if _, err := smCandidates(f, net); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()

	work, err := os.MkdirTemp(opt.TempDir, "orcs-route-")
	if err != nil {
		return nil, err
	}
	r := &run{opt: opt, tools: tools, work: work, f: f, net: net}
	defer func() {
		r.stopAll()
		if opt.Keep != "" {
			if kerr := r.keep(); kerr != nil && err == nil {
				err = kerr
			}
		}
		if rerr := os.RemoveAll(work); rerr != nil && err == nil {
			err = rerr
		}
	}()
	res, err = r.route(ctx)
	if err != nil && ctx.Err() == context.DeadlineExceeded && !errors.Is(err, errTimeout) {
		err = fmt.Errorf("%w (time limit %s)", err, opt.Timeout)
	}
	return res, err
}

// run is the state of one Route.
type run struct {
	opt   Options
	tools *Tools
	work  string
	f     *lft.Fabric
	net   *ib.SimNet
	sm    smPort // where OpenSM and the diagnostics attach
	ibsim *proc
	child *proc // the running client tool
	sock  string
	// topo and command are a Session's net file read back and its OpenSM
	// command line.
	topo    *ib.Topology
	command string
}

func (r *run) path(name string) string { return filepath.Join(r.work, name) }

func (r *run) stopAll() {
	r.child.stop(r.opt.Grace)
	r.ibsim.stop(r.opt.Grace)
}

// route does the work of Route.
func (r *run) route(ctx context.Context) (*Result, error) {
	topo, err := r.writeNet()
	if err != nil {
		return nil, err
	}
	res := &Result{Engine: r.opt.Engine, Net: r.net, Topology: topo}
	if r.sm, err = r.chooseSM(topo); err != nil {
		return nil, err
	}
	args, err := r.openSMArgs(topo)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"cache", "dump"} {
		if err := os.Mkdir(r.path(d), 0o755); err != nil {
			return nil, err
		}
	}

	t0 := time.Now()
	if err := r.startIBSim(ctx); err != nil {
		return nil, err
	}
	res.Start = time.Since(t0)

	var split *logSplit
	if logged, _ := logsSLs(r.opt.Engine); r.opt.PathSLs && logged {
		// OpenSM writes its log into a FIFO: the path SLs are kept, the
		// engine's other debug output is dropped as it comes.
		if split, err = startLogSplit(r.path(logFIFO), r.path("opensm.log"), r.path(PathSLLogFile)); err != nil {
			return nil, err
		}
	}
	t1 := time.Now()
	res.Command = "opensm " + strings.ReplaceAll(strings.Join(args, " "), r.work, "WORK")
	cmd := exec.Command(r.tools.OpenSM, args...)
	cmd.Dir = r.work
	cmd.Env = append(r.clientEnv(), "OSM_CACHE_DIR="+r.path("cache"))
	r.child, err = startProc("opensm", cmd, r.path("opensm.out"))
	if err != nil {
		if split != nil {
			split.finish()
		}
		return nil, err
	}
	logPath := r.path("opensm.log")
	started := false // the SM has left its start (it has bound and its port is up)
	poll := func() error {
		if started && !r.opt.NoFallback {
			return nil
		}
		data, _ := os.ReadFile(logPath)
		s := ParseLog(data)
		if err := r.smDown(s); err != nil {
			return err
		}
		started = started || bytes.Contains(data, []byte("Entering MASTER state"))
		if s.NoEngine && r.opt.NoFallback {
			return fmt.Errorf("OpenSM: %s could not route the fabric (no_fallback): %s",
				r.opt.Engine, strings.Join(s.Notes, "; "))
		}
		return nil
	}
	if logged, _ := logsSLs(r.opt.Engine); r.opt.PathSLs && !logged {
		err = r.waitSubnetUp(ctx, logPath)
		res.OpenSM = time.Since(t1) // up to SUBNET UP: the path queries are not routing time
		if err == nil {
			err = r.queryPathSLs(ctx)
		}
		r.child.stop(r.opt.Grace) // it sweeps on until stopped
	} else {
		err = r.child.wait(ctx, r.opt.Timeout, r.opt.Grace, poll)
		res.OpenSM = time.Since(t1)
	}
	if split != nil {
		// OpenSM has exited (or was stopped): the FIFO holds all it wrote.
		if serr := split.finish(); err == nil && serr != nil {
			err = fmt.Errorf("OpenSM's log: %w", serr)
		}
	}
	if err != nil {
		return nil, r.withLog(err, "opensm.log")
	}
	logData, err := os.ReadFile(logPath)
	if err != nil {
		return nil, r.withLog(fmt.Errorf("OpenSM wrote no log: %w", err), "opensm.out")
	}
	res.Log = ParseLog(logData)
	res.Used = res.Log.Used
	// An SM that could not bind may exit before a poll read its log.
	if err := r.smDown(res.Log); err != nil && !res.Log.SubnetUp {
		return nil, r.withLog(err, "opensm.log")
	}
	if !res.Log.SubnetUp || res.Used == "" {
		return nil, r.withLog(fmt.Errorf("OpenSM did not bring the subnet up with %s", r.opt.Engine), "opensm.log")
	}
	res.Fallback = res.Used != res.Engine

	if err := r.queryFabric(ctx, res); err != nil {
		return nil, err
	}
	r.ibsim.stop(r.opt.Grace)

	dump, err := os.ReadFile(r.path("dump/opensm-lfts.dump"))
	if err != nil {
		return nil, r.withLog(fmt.Errorf("OpenSM wrote no opensm-lfts.dump: %w", err), "opensm.log")
	}
	if res.LFTs, err = ib.ReadLFTDump(dump, "opensm-lfts.dump"); err != nil {
		return nil, err
	}
	if res.Fabric, err = routedFabric(r.f, r.net, withoutLIDs(topo), res.LFTs, r.opt.Topology != nil); err != nil {
		return nil, err
	}
	// After a fallback the engine that routed assigns no SLs of its own
	// (OpenSM falls back to minhop) and dfsssp logged no layers.
	if logged, _ := logsSLs(r.opt.Engine); r.opt.PathSLs && !(logged && res.Fallback) {
		if res.Lanes, err = r.pathLanes(res.Fabric, topo); err != nil {
			return nil, err
		}
	}
	if res.Fallback && !r.opt.AllowFallback {
		return res, &FallbackError{Requested: res.Engine, Used: res.Used, Notes: res.Log.Notes}
	}
	return res, nil
}

// writeNet writes the ibsim net file of the fabric (fabric.net) and
// returns it as read back.
func (r *run) writeNet() (*ib.Topology, error) {
	var netText bytes.Buffer
	if r.opt.Topology != nil {
		err := ib.WriteTopologyNet(&netText, r.opt.Topology)
		if err != nil {
			return nil, err
		}
	} else if err := r.net.Write(&netText); err != nil {
		return nil, err
	}
	if err := os.WriteFile(r.path("fabric.net"), netText.Bytes(), 0o644); err != nil {
		return nil, err
	}
	topo, err := ib.ReadSimNet(netText.Bytes(), "fabric.net")
	if err != nil {
		return nil, fmt.Errorf("the net file written for ibsim does not read back: %w", err)
	}
	return topo, nil
}

// queryFabric asks the running subnet, as options ask, for its tables
// (dump_fts, into res.FTS) and its topology (ibnetdiscover, checked
// against the input with KeepIdentity).
func (r *run) queryFabric(ctx context.Context, res *Result) error {
	if r.opt.DumpFTS {
		data, err := r.client(ctx, "dump_fts", r.tools.DumpFTS)
		if err != nil {
			return err
		}
		if res.FTS, err = ib.ReadLFTDump(data, "dump_fts.txt"); err != nil {
			return err
		}
	}
	if r.opt.IBNetDiscover || r.opt.KeepIdentity {
		data, err := r.client(ctx, "ibnetdiscover", r.tools.IBNetDiscover)
		if err != nil {
			return err
		}
		if r.opt.KeepIdentity {
			disc, err := ib.ReadNetDiscover(data, "ibnetdiscover.txt")
			switch {
			case err != nil:
			case r.opt.Topology != nil:
				err = sameTopology(r.opt.Topology, disc, r.keepsLIDs())
			default:
				err = sameEmulation(r.f, r.net, disc, r.keepsLIDs())
			}
			if err != nil {
				return fmt.Errorf("the emulated fabric is not the input (ibnetdiscover): %w", err)
			}
		}
	}
	return nil
}

// openSMArgs builds OpenSM's command line and writes its seed files.
func (r *run) openSMArgs(topo *ib.Topology) ([]string, error) {
	engine := r.opt.Engine
	if r.opt.NoFallback {
		engine += ",no_fallback"
	}
	args := []string{"-o", "-e", "-d", "2", "-D", "0x43", "-t", "1000", "-g", fmt.Sprintf("0x%016x", r.sm.guid), "-R", engine}
	logged, module := logsSLs(r.opt.Engine)
	if r.opt.PathSLs {
		if !logged {
			args = args[1:] // stay up: the SA answers PathRecords while OpenSM runs
		}
		seeded := strings.EqualFold(r.opt.Engine, "torus-2QoS") && (r.opt.Torus != nil || r.opt.TorusConfig != "")
		if AssignsSLs(r.opt.Engine) && !seeded { // a seeded torus-2QoS gets -Q below
			args = append(args, "-Q")
		}
	}
	guid := guidLookup(topo)
	if r.opt.Torus != nil && strings.EqualFold(r.opt.Engine, "torus-2QoS") {
		conf, err := r.opt.Torus.config(guid)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(r.path("torus-2QoS.conf"), []byte(conf), 0o644); err != nil {
			return nil, err
		}
		args = append(args, "-Q", "--torus_config", r.path("torus-2QoS.conf"))
	} else if r.opt.TorusConfig != "" && strings.EqualFold(r.opt.Engine, "torus-2QoS") {
		conf, err := infile.ReadAll(r.opt.TorusConfig)
		if err != nil {
			return nil, fmt.Errorf("torus config: %w", err)
		}
		if err := os.WriteFile(r.path("torus-2QoS.conf"), conf, 0o644); err != nil {
			return nil, err
		}
		args = append(args, "-Q", "--torus_config", r.path("torus-2QoS.conf"))
	}
	if len(r.opt.Roots) > 0 {
		roots, err := guidFile(r.opt.Roots, guid)
		if err != nil {
			return nil, fmt.Errorf("roots: %w", err)
		}
		if err := os.WriteFile(r.path("roots.guids"), []byte(roots), 0o644); err != nil {
			return nil, err
		}
		args = append(args, "-a", r.path("roots.guids"))
	}
	if len(r.opt.Roots) > 0 && r.opt.RootGUIDFile != "" {
		return nil, fmt.Errorf("give the root switches by name or as a GUID file, not both")
	}
	if r.opt.LMC < 0 || r.opt.LMC > 7 {
		return nil, fmt.Errorf("LMC %d: want 0-7", r.opt.LMC)
	}
	if r.opt.LMC > 0 {
		args = append(args, "-l", strconv.Itoa(r.opt.LMC))
	}
	for _, file := range []struct{ flag, path, name string }{
		{"-F", r.opt.ConfFile, "opensm.conf"}, {"-a", r.opt.RootGUIDFile, "roots.guids"}, {"-u", r.opt.CNGUIDFile, "cn.guids"},
	} {
		if file.path == "" {
			continue
		}
		data, err := infile.ReadAll(file.path)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(r.path(file.name), data, 0o644); err != nil {
			return nil, err
		}
		args = append(args, file.flag, r.path(file.name))
	}
	if r.opt.PathSLs && logged {
		// The engine logs every path's SL at the debug level of its own
		// source file: raise that file alone (OpenSM's per-module logging),
		// in a copy of the administrator's opensm.conf or a new one.
		levels := r.path("per-module-logging.conf")
		if err := os.WriteFile(levels, []byte(module+" 0x0f\n"), 0o644); err != nil {
			return nil, err
		}
		conf, err := os.OpenFile(r.path("opensm.conf"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = fmt.Fprintf(conf, "\n# orcs: the SL of every path in the log\nper_module_logging_file %s\n", levels)
		if cerr := conf.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if r.opt.ConfFile == "" {
			args = append(args, "-F", r.path("opensm.conf"))
		}
	}
	args = append(args, r.opt.ExtraArgs...)
	logFile := r.path("opensm.log")
	if r.opt.PathSLs && logged {
		logFile = r.path(logFIFO)
	}
	return append(args, "-f", logFile, "--dump_files_dir", r.path("dump")), nil
}

// startIBSim starts ibsim on the net file and waits until it is ready.
func (r *run) startIBSim(ctx context.Context) error {
	_, err := r.startIBSimConsole(ctx, false)
	return err
}

// startIBSimConsole starts ibsim and waits until it is ready; with console,
// ibsim reads commands (Unlink, ReLink) from the returned pipe, else it
// runs without its console (-n).
func (r *run) startIBSimConsole(ctx context.Context, console bool) (io.WriteCloser, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	r.sock = fmt.Sprintf("orcs%d.%d.%s", os.Getpid(), sockSeq.Add(1), hex.EncodeToString(rnd[:]))
	nodes, switches, ports := r.net.Limits()
	if r.opt.Topology != nil {
		nodes, switches, ports = ib.NetLimits(r.opt.Topology)
	}
	// At least ibsim's own defaults.
	nodes, switches, ports = max(nodes, 2048), max(switches, 256), max(ports, 13312)
	args := []string{"-s", "-n", "-N", strconv.Itoa(nodes), "-S", strconv.Itoa(switches),
		"-P", strconv.Itoa(ports), "fabric.net"}
	if console {
		args = slices.Delete(args, 1, 2)
	}
	cmd := exec.Command(r.tools.IBSim, args...)
	cmd.Dir = r.work
	cmd.Env = append(os.Environ(), "IBSIM_SOCKNAME="+r.sock)
	var in io.WriteCloser
	var err error
	if console {
		if in, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	logPath := r.path("ibsim.log")
	if r.ibsim, err = startProc("ibsim", cmd, logPath); err != nil {
		if in != nil {
			in.Close()
		}
		return nil, err
	}
	limit := min(r.opt.Timeout, 30*time.Second+time.Duration(nodes)*5*time.Millisecond)
	err = r.ibsim.until(ctx, limit, r.opt.Grace, func() bool {
		data, _ := os.ReadFile(logPath)
		return bytes.Contains(data, []byte("Network simulator ready."))
	})
	if err != nil {
		if in != nil {
			in.Close()
		}
		return nil, r.withLog(err, "ibsim.log")
	}
	return in, nil
}

// MaxSimHost is the longest node id that ibsim lets a client attach to
// (SIM_HOST): ibsim 0.10 keeps 31 bytes of it and then finds no such node.
const MaxSimHost = 31

// smPort is the node OpenSM and the diagnostics attach to (its id in the
// net file, SIM_HOST) and the port GUID OpenSM binds to (-g).
type smPort struct {
	id   string
	guid uint64
}

// smCandidates lists, in order of preference, the net-file ids of the nodes
// OpenSM may run on in a fabric's plan: hosts whose port 1 is cabled
// (ibsim attaches a client to port 1 of a CA, whatever it is cabled on),
// then switches (port 0, always up); only ids that ibsim can take as
// SIM_HOST.
func smCandidates(f *lft.Fabric, net *ib.SimNet) ([]string, error) {
	var ids []string
	for h := range f.NumHosts() {
		if name := f.HostName(h); len(name) <= MaxSimHost && net.LinkAt(f.HostNode(h), 1) >= 0 {
			ids = append(ids, name)
		}
	}
	for _, n := range f.Nodes {
		if n.Kind != lft.Host && len(n.Name) <= MaxSimHost {
			ids = append(ids, n.Name)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no host name has at most %d bytes (with port 1 cabled), and no switch name: ibsim attaches OpenSM to a node by a name of at most %d bytes (first host: %q); give --names guid with --topo (nodes named H<guid>, S<guid>: 19 bytes) or shorten the names",
			MaxSimHost, MaxSimHost, f.HostName(0))
	}
	return ids, nil
}

// chooseSM picks the node and port OpenSM runs on in the emulation topo
// (the net file read back): in the fabric's host order the first CA whose
// port 1 is cabled, then any such CA (aggregation nodes too), then a
// switch.
func (r *run) chooseSM(topo *ib.Topology) (smPort, error) {
	byID := make(map[string]*ib.TopoNode, len(topo.Nodes))
	for i := range topo.Nodes {
		byID[topo.Nodes[i].ID] = &topo.Nodes[i]
	}
	var ids []string
	if r.opt.Topology == nil {
		var err error
		if ids, err = smCandidates(r.f, r.net); err != nil {
			return smPort{}, err
		}
	} else {
		caID := make(map[uint64]string, len(r.opt.Topology.Nodes))
		for i := range r.opt.Topology.Nodes {
			if n := &r.opt.Topology.Nodes[i]; n.Kind == lft.Host {
				caID[n.GUID] = ib.NetID(n)
			}
		}
		for h := range r.f.NumHosts() {
			ids = append(ids, caID[r.f.Nodes[r.f.HostNode(h)].GUID])
		}
		for _, kind := range []lft.NodeKind{lft.Host, lft.Switch} {
			for i := range topo.Nodes {
				if topo.Nodes[i].Kind == kind {
					ids = append(ids, topo.Nodes[i].ID)
				}
			}
		}
	}
	for _, id := range ids {
		n := byID[id]
		switch {
		case n == nil || len(id) > MaxSimHost:
		case n.Kind == lft.Switch:
			return smPort{id, n.Port0.GUID}, nil
		case n.Kind == lft.Host:
			if p := n.Port(1); p != nil {
				return smPort{id, p.GUID}, nil
			}
		}
	}
	return smPort{}, fmt.Errorf("no node of the emulation can run OpenSM: no CA has port 1 cabled and no switch has an id of at most %d bytes", MaxSimHost)
}

// smDown returns the error of an OpenSM whose log says that it cannot
// start, or nil.
func (r *run) smDown(s LogSummary) error {
	if s.SMDown == "" {
		return nil
	}
	return fmt.Errorf("OpenSM cannot start on %s (port GUID 0x%016x); its log says: %s", r.sm.id, r.sm.guid, s.SMDown)
}

// clientEnv is the environment of the tools that talk to ibsim.
func (r *run) clientEnv() []string {
	return append(os.Environ(), "IBSIM_SOCKNAME="+r.sock, "LD_PRELOAD="+r.tools.UMAD2Sim, "SIM_HOST="+r.sm.id)
}

// client runs a diagnostic tool against ibsim and returns its output. Its
// MADs get a generous time-out (ibsim may be slow to answer on a loaded
// machine), and a failed run is tried once more.
func (r *run) client(ctx context.Context, name, program string) ([]byte, error) {
	out := r.path(name + ".txt")
	var err error
	for try := 0; try < 2; try++ {
		cmd := exec.Command(program, "-t", "3000")
		cmd.Dir = r.work
		cmd.Env = r.clientEnv()
		if r.child, err = startProc(name, cmd, out); err != nil {
			return nil, err
		}
		if err := r.child.wait(ctx, min(r.opt.Timeout, 5*time.Minute), r.opt.Grace, nil); err != nil {
			return nil, r.withLog(err, name+".txt")
		}
		if r.child.err == nil {
			return os.ReadFile(out)
		}
		err = r.withLog(fmt.Errorf("%s failed: %v", name, r.child.err), name+".txt")
	}
	return nil, err
}

// withLog appends the last lines of a log file of the work directory.
func (r *run) withLog(err error, name string) error {
	data, rerr := os.ReadFile(r.path(name))
	if rerr != nil || len(bytes.TrimSpace(data)) == 0 {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var keep []string
	for _, l := range lines {
		if strings.Contains(l, "parse_port_connection_data") || strings.Contains(l, "print_network_node") {
			continue // ibsim's harmless warning on net files; nue's addresses
		}
		keep = append(keep, l)
	}
	if len(keep) > 8 {
		keep = keep[len(keep)-8:]
	}
	return fmt.Errorf("%w\n%s (last lines):\n  %s", err, name, strings.Join(keep, "\n  "))
}

// keep copies the work files into the Keep directory.
func (r *run) keep() error {
	dir := r.opt.Keep
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var files []string
	for _, pat := range []string{"*.net", "*.log", "*.txt", "*.txt.gz", "*.conf", "*.guids", "dump/*"} {
		m, _ := filepath.Glob(r.path(pat))
		files = append(files, m...)
	}
	for _, src := range files {
		st, err := os.Stat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// routedFabric rebuilds f with the tables of an OpenSM dump of its
// emulation topo (the net file read back). Emulation nodes are f's nodes
// by net-file id (the node names), or with byIdentity (a net file written
// from the topology f was built from) by node GUID and, for hosts, CA
// port; emulation nodes that f lacks (aggregation nodes left out of its
// hosts) are routed to but are no hosts of the result.
func routedFabric(f *lft.Fabric, net *ib.SimNet, topo *ib.Topology, lfts *ib.Routing, byIdentity bool) (*lft.Fabric, error) {
	ib, err := ib.Build(topo, lfts, ib.Options{IncludeAggregationNodes: true})
	if err != nil {
		return nil, err
	}
	type key struct {
		guid uint64
		port int32
	}
	fOf := map[key]int32{} // with byIdentity: f node by GUID and CA port
	byGUID := make(map[uint64]int32, len(topo.Nodes))
	if byIdentity {
		for v, n := range f.Nodes {
			k := key{n.GUID, 0}
			if n.Kind == lft.Host {
				k.port = n.Port
			}
			fOf[k] = int32(v)
		}
	} else {
		// ib node → f node, through the GUIDs of the net file.
		for _, n := range topo.Nodes {
			v, ok := f.NodeByName(n.ID)
			if !ok {
				return nil, fmt.Errorf("node %q of the net file is not in the fabric", n.ID)
			}
			byGUID[n.GUID] = v
		}
	}
	toF := make([]int32, len(ib.Nodes))
	toIB := make([]int32, len(f.Nodes))
	for i := range toIB {
		toIB[i] = -1
	}
	for i, n := range ib.Nodes {
		if byIdentity {
			k := key{n.GUID, 0}
			if n.Kind == lft.Host {
				k.port = n.Port
			}
			v, ok := fOf[k]
			if !ok {
				toF[i] = -1 // not in the fabric: an aggregation node
				continue
			}
			toF[i], toIB[v] = v, int32(i)
			continue
		}
		v, ok := byGUID[n.GUID]
		if !ok {
			return nil, fmt.Errorf("node 0x%016x of the dump is not in the net file", n.GUID)
		}
		toF[i], toIB[v] = v, int32(i)
	}
	b := lft.NewBuilder()
	for v, n := range f.Nodes {
		b.Node(n.Name, n.Kind)
		if i := toIB[v]; i >= 0 {
			in := ib.Nodes[i]
			b.SetNodeInfo(int32(v), in.GUID, in.Desc)
			b.SetPortInfo(int32(v), in.Port, in.PortGUID, in.LID, in.LMC)
		}
	}
	for l, k := range f.Links {
		b.Link(k.From, k.To, int(net.Port[l]), int(net.PeerPort(int32(l))))
	}
	dest := make([]lft.DestID, f.NumHosts())
	ibHost := make([]int32, f.NumHosts())
	for h := range dest {
		dest[h] = b.Dest(f.HostName(h))
		i := toIB[f.HostNode(h)]
		if i < 0 {
			return nil, fmt.Errorf("host %q is not in the dump", f.HostName(h))
		}
		ibHost[h] = ib.HostIndex(i)
	}
	b.Grow(f.NumSwitches()*f.NumHosts() + f.NumHosts())
	for v := range f.Nodes {
		out := f.OutLinks(int32(v))
		if f.Nodes[v].Kind == lft.Host {
			b.Route(out[0], lft.AnyDest)
			continue
		}
		i := toIB[v]
		if i < 0 {
			return nil, fmt.Errorf("switch %q is not in the dump", f.Nodes[v].Name)
		}
		row, _ := ib.Row(i)
		for h := range dest {
			il := row[ibHost[h]]
			if il < 0 {
				continue // unrouted: no entry
			}
			k := ib.Links[il]
			l := net.LinkAt(int32(v), int(k.FromPort))
			if l < 0 || toF[k.To] < 0 || f.Links[l].To != toF[k.To] {
				return nil, fmt.Errorf("switch %q: port %d towards %q does not match the fabric", f.Nodes[v].Name, k.FromPort, f.HostName(h))
			}
			b.Route(l, dest[h])
		}
	}
	out, err := b.Build()
	if err != nil {
		return nil, err
	}
	out.GraphName = f.GraphName
	return out, nil
}

// withoutLIDs returns a copy of the net file's topology without the LIDs
// written into it: the dump's labels give the LIDs OpenSM assigned.
func withoutLIDs(t *ib.Topology) *ib.Topology {
	c := *t
	c.Nodes = make([]ib.TopoNode, len(t.Nodes))
	for i, n := range t.Nodes {
		n.Port0.LID, n.Port0.LMCKnown = 0, false
		n.Ports = append([]ib.TopoPort(nil), n.Ports...)
		for j := range n.Ports {
			n.Ports[j].LID, n.Ports[j].LMCKnown = 0, false
		}
		c.Nodes[i] = n
	}
	return &c
}

// keepsLIDs reports whether OpenSM can keep the fabric's LIDs: only when
// it runs with the LMC the ports have (another LMC moves LID ranges).
func (r *run) keepsLIDs() bool {
	for _, n := range r.f.Nodes {
		if n.LID != 0 && int(n.LMC) != r.opt.LMC {
			return false
		}
	}
	return true
}

// sameEmulation checks with ibnetdiscover's view of the emulation that it
// is the input fabric: every node with a GUID is there with its GUID, its
// LID where it has one, and every cable between the same ports of the same
// nodes.
func sameEmulation(f *lft.Fabric, net *ib.SimNet, disc *ib.Topology, lids bool) error {
	byGUID := make(map[uint64]*ib.TopoNode, len(disc.Nodes))
	for i := range disc.Nodes {
		byGUID[disc.Nodes[i].GUID] = &disc.Nodes[i]
	}
	for v, n := range f.Nodes {
		if net.GUIDs == nil || net.GUIDs[v] == 0 {
			continue
		}
		d, ok := byGUID[n.GUID]
		if !ok {
			return fmt.Errorf("%s (GUID 0x%016x) is missing", n.Name, n.GUID)
		}
		lid := d.Port0.LID
		if n.Kind == lft.Host && len(d.Ports) > 0 {
			lid = d.Ports[0].LID
		}
		if lids && n.LID != 0 && lid != n.LID {
			return fmt.Errorf("%s has LID %d, not %d", n.Name, lid, n.LID)
		}
		for _, l := range f.OutLinks(int32(v)) {
			k := f.Links[l]
			p := d.Port(int(net.Port[l]))
			if p == nil {
				return fmt.Errorf("%s port %d: no cable", n.Name, net.Port[l])
			}
			peer := disc.Nodes[p.Peer]
			if g := net.GUIDs[k.To]; g != 0 && (peer.GUID != g || p.PeerPort != int(net.PeerPort(l))) {
				return fmt.Errorf("%s port %d leads to 0x%016x port %d, not to %s port %d",
					n.Name, net.Port[l], peer.GUID, p.PeerPort, f.Nodes[k.To].Name, net.PeerPort(l))
			}
		}
	}
	return nil
}

// sameTopology checks with ibnetdiscover's view of the emulation (disc)
// that it is the topology want: every node with its GUID and kind, every
// cable between the same ports of the same nodes, and with lids every LID
// that want gives.
func sameTopology(want, disc *ib.Topology, lids bool) error {
	byGUID := make(map[uint64]*ib.TopoNode, len(disc.Nodes))
	for i := range disc.Nodes {
		byGUID[disc.Nodes[i].GUID] = &disc.Nodes[i]
	}
	if len(disc.Nodes) != len(want.Nodes) {
		return fmt.Errorf("%d nodes, the input has %d", len(disc.Nodes), len(want.Nodes))
	}
	for i := range want.Nodes {
		n := &want.Nodes[i]
		d, ok := byGUID[n.GUID]
		if !ok || d.Kind != n.Kind {
			return fmt.Errorf("%s %q (GUID 0x%016x) is missing", n.Kind, n.Desc, n.GUID)
		}
		if lids && n.Port0.LID != 0 && d.Port0.LID != n.Port0.LID {
			return fmt.Errorf("%q has LID %d, not %d", n.Desc, d.Port0.LID, n.Port0.LID)
		}
		if len(d.Ports) != len(n.Ports) {
			return fmt.Errorf("%q has %d cabled ports, not %d", n.Desc, len(d.Ports), len(n.Ports))
		}
		for _, p := range n.Ports {
			q := d.Port(p.Num)
			if q == nil {
				return fmt.Errorf("%q port %d: no cable", n.Desc, p.Num)
			}
			peer, dpeer := &want.Nodes[p.Peer], &disc.Nodes[q.Peer]
			if dpeer.GUID != peer.GUID || q.PeerPort != p.PeerPort {
				return fmt.Errorf("%q port %d leads to 0x%016x port %d, not to %q port %d",
					n.Desc, p.Num, dpeer.GUID, q.PeerPort, peer.Desc, p.PeerPort)
			}
			if lids && p.LID != 0 && q.LID != p.LID {
				return fmt.Errorf("%q port %d has LID %d, not %d", n.Desc, p.Num, q.LID, p.LID)
			}
		}
	}
	return nil
}

// emptyDir checks that dir, where dumps are to be kept, is empty or does
// not exist yet: dumps of another routing would mix with these.
func emptyDir(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("keep directory: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("keep directory %s is not empty: the dumps of this routing would mix with %s and others; give a new or empty directory", dir, entries[0].Name())
	}
	return nil
}
