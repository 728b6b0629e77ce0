package opensm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"orcs/deadlock"
	"orcs/ib"
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
	// DumpFTS also reads the tables back from the emulated switches with
	// dump_fts (Result.FTS).
	DumpFTS bool
	// IBNetDiscover also runs ibnetdiscover (its output is kept with Keep).
	IBNetDiscover bool
	// Keep, when not empty, is a directory (created if need be) that
	// receives the net file, OpenSM's log and dumps and the diagnostics'
	// output.
	Keep string
	// Timeout bounds the whole routing; 0 means 10 minutes.
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
	// and dumps them (opensm-sl2vl.dump). At most MaxPathSLHosts hosts.
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
// a fresh cache directory, and the SM on the first host. OpenSM's MAD
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
		opt.Timeout = 10 * time.Minute
	}
	if err := emptyDir(opt.Keep); err != nil {
		return nil, err
	}
	if opt.Grace <= 0 {
		opt.Grace = 2 * time.Second
	}
	tools := opt.Tools
	if tools == nil {
		if tools, err = FindTools(); err != nil {
			return nil, err
		}
	}
	if _, err := simHost(f); err != nil {
		return nil, err
	}
	net, err := ib.PlanSimNet(f, ib.SimOptions{KeepPorts: opt.KeepPorts, KeepIdentity: opt.KeepIdentity})
	if err != nil {
		return nil, err
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
	ibsim *proc
	child *proc // the running client tool
	sock  string
}

func (r *run) path(name string) string { return filepath.Join(r.work, name) }

func (r *run) stopAll() {
	r.child.stop(r.opt.Grace)
	r.ibsim.stop(r.opt.Grace)
}

// route does the work of Route.
func (r *run) route(ctx context.Context) (*Result, error) {
	var netText bytes.Buffer
	if err := r.net.Write(&netText); err != nil {
		return nil, err
	}
	if err := os.WriteFile(r.path("fabric.net"), netText.Bytes(), 0o644); err != nil {
		return nil, err
	}
	topo, err := ib.ReadSimNet(netText.Bytes(), "fabric.net")
	if err != nil {
		return nil, fmt.Errorf("the net file written for ibsim does not read back: %w", err)
	}
	res := &Result{Engine: r.opt.Engine, Net: r.net, Topology: topo}
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

	t1 := time.Now()
	res.Command = "opensm " + strings.ReplaceAll(strings.Join(args, " "), r.work, "WORK")
	cmd := exec.Command(r.tools.OpenSM, args...)
	cmd.Dir = r.work
	cmd.Env = append(r.clientEnv(), "OSM_CACHE_DIR="+r.path("cache"))
	r.child, err = startProc("opensm", cmd, r.path("opensm.out"))
	if err != nil {
		return nil, err
	}
	logPath := r.path("opensm.log")
	var poll func() error
	if r.opt.NoFallback {
		poll = func() error {
			data, _ := os.ReadFile(logPath)
			if s := ParseLog(data); s.NoEngine {
				return fmt.Errorf("OpenSM: %s could not route the fabric (no_fallback): %s",
					r.opt.Engine, strings.Join(s.Notes, "; "))
			}
			return nil
		}
	}
	if r.opt.PathSLs {
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
	if err != nil {
		return nil, r.withLog(err, "opensm.log")
	}
	logData, err := os.ReadFile(logPath)
	if err != nil {
		return nil, r.withLog(fmt.Errorf("OpenSM wrote no log: %w", err), "opensm.out")
	}
	res.Log = ParseLog(logData)
	res.Used = res.Log.Used
	if !res.Log.SubnetUp || res.Used == "" {
		return nil, r.withLog(fmt.Errorf("OpenSM did not bring the subnet up with %s", r.opt.Engine), "opensm.log")
	}
	res.Fallback = res.Used != res.Engine

	if r.opt.DumpFTS {
		data, err := r.client(ctx, "dump_fts", r.tools.DumpFTS)
		if err != nil {
			return nil, err
		}
		if res.FTS, err = ib.ReadLFTDump(data, "dump_fts.txt"); err != nil {
			return nil, err
		}
	}
	if r.opt.IBNetDiscover || r.opt.KeepIdentity {
		data, err := r.client(ctx, "ibnetdiscover", r.tools.IBNetDiscover)
		if err != nil {
			return nil, err
		}
		if r.opt.KeepIdentity {
			disc, err := ib.ReadNetDiscover(data, "ibnetdiscover.txt")
			if err == nil {
				err = sameEmulation(r.f, r.net, disc, r.keepsLIDs())
			}
			if err != nil {
				return nil, fmt.Errorf("the emulated fabric is not the input (ibnetdiscover): %w", err)
			}
		}
	}
	r.ibsim.stop(r.opt.Grace)

	dump, err := os.ReadFile(r.path("dump/opensm-lfts.dump"))
	if err != nil {
		return nil, r.withLog(fmt.Errorf("OpenSM wrote no opensm-lfts.dump: %w", err), "opensm.log")
	}
	if res.LFTs, err = ib.ReadLFTDump(dump, "opensm-lfts.dump"); err != nil {
		return nil, err
	}
	if res.Fabric, err = routedFabric(r.f, r.net, withoutLIDs(topo), res.LFTs); err != nil {
		return nil, err
	}
	if r.opt.PathSLs {
		if res.Lanes, err = r.pathLanes(res.Fabric); err != nil {
			return nil, err
		}
	}
	if res.Fallback && !r.opt.AllowFallback {
		return res, &FallbackError{Requested: res.Engine, Used: res.Used, Notes: res.Log.Notes}
	}
	return res, nil
}

// openSMArgs builds OpenSM's command line and writes its seed files.
func (r *run) openSMArgs(topo *ib.Topology) ([]string, error) {
	engine := r.opt.Engine
	if r.opt.NoFallback {
		engine += ",no_fallback"
	}
	args := []string{"-o", "-e", "-d", "2", "-D", "0x43", "-t", "1000", "-R", engine}
	if r.opt.PathSLs {
		args = args[1:] // stay up: the SA answers PathRecords while OpenSM runs
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
		conf, err := os.ReadFile(r.opt.TorusConfig)
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
		data, err := os.ReadFile(file.path)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(r.path(file.name), data, 0o644); err != nil {
			return nil, err
		}
		args = append(args, file.flag, r.path(file.name))
	}
	args = append(args, r.opt.ExtraArgs...)
	return append(args, "-f", r.path("opensm.log"), "--dump_files_dir", r.path("dump")), nil
}

// startIBSim starts ibsim on the net file and waits until it is ready.
func (r *run) startIBSim(ctx context.Context) error {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	r.sock = fmt.Sprintf("orcs%d.%d.%s", os.Getpid(), sockSeq.Add(1), hex.EncodeToString(rnd[:]))
	nodes, switches, ports := r.net.Limits()
	// At least ibsim's own defaults.
	nodes, switches, ports = max(nodes, 2048), max(switches, 256), max(ports, 13312)
	cmd := exec.Command(r.tools.IBSim, "-s", "-n", "-N", strconv.Itoa(nodes), "-S", strconv.Itoa(switches),
		"-P", strconv.Itoa(ports), "fabric.net")
	cmd.Dir = r.work
	cmd.Env = append(os.Environ(), "IBSIM_SOCKNAME="+r.sock)
	var err error
	logPath := r.path("ibsim.log")
	if r.ibsim, err = startProc("ibsim", cmd, logPath); err != nil {
		return err
	}
	limit := min(r.opt.Timeout, 30*time.Second+time.Duration(nodes)*5*time.Millisecond)
	err = r.ibsim.until(ctx, limit, r.opt.Grace, func() bool {
		data, _ := os.ReadFile(logPath)
		return bytes.Contains(data, []byte("Network simulator ready."))
	})
	if err != nil {
		return r.withLog(err, "ibsim.log")
	}
	return nil
}

// MaxSimHost is the longest node id that ibsim lets a client attach to
// (SIM_HOST): ibsim 0.10 keeps 31 bytes of it and then finds no such node.
const MaxSimHost = 31

// simHost is the host the SM and the diagnostics attach to: the first host
// whose name ibsim can take as SIM_HOST.
func simHost(f *lft.Fabric) (string, error) {
	for h := range f.NumHosts() {
		if name := f.HostName(h); len(name) <= MaxSimHost {
			return name, nil
		}
	}
	return "", fmt.Errorf("no host name has at most %d bytes: ibsim attaches OpenSM to a host by a name of at most %d bytes (first host: %q); shorten the host names",
		MaxSimHost, MaxSimHost, f.HostName(0))
}

// clientEnv is the environment of the tools that talk to ibsim.
func (r *run) clientEnv() []string {
	env := append(os.Environ(), "IBSIM_SOCKNAME="+r.sock, "LD_PRELOAD="+r.tools.UMAD2Sim)
	if host, err := simHost(r.f); err == nil {
		env = append(env, "SIM_HOST="+host)
	}
	return env
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
	for _, pat := range []string{"*.net", "*.log", "*.txt", "*.conf", "*.guids", "dump/*"} {
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

// routedFabric rebuilds f with the tables of an OpenSM dump of its net.
func routedFabric(f *lft.Fabric, net *ib.SimNet, topo *ib.Topology, lfts *ib.Routing) (*lft.Fabric, error) {
	ib, err := ib.Build(topo, lfts, ib.Options{})
	if err != nil {
		return nil, err
	}
	// ib node → f node, through the GUIDs of the net file.
	byGUID := make(map[uint64]int32, len(topo.Nodes))
	for _, n := range topo.Nodes {
		v, ok := f.NodeByName(n.ID)
		if !ok {
			return nil, fmt.Errorf("node %q of the net file is not in the fabric", n.ID)
		}
		byGUID[n.GUID] = v
	}
	toF := make([]int32, len(ib.Nodes))
	toIB := make([]int32, len(f.Nodes))
	for i := range toIB {
		toIB[i] = -1
	}
	for i, n := range ib.Nodes {
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
			if l < 0 || f.Links[l].To != toF[k.To] {
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
