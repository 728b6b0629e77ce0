// Package opensm routes fabrics with the real InfiniBand tools: ibsim
// emulates the fabric's management plane, OpenSM routes it with one of its
// routing engines, and the forwarding tables OpenSM dumps are read back
// into an lft.Fabric that keeps the input's node names and link order.
//
// No InfiniBand hardware is needed. OpenSM and the diagnostics reach the
// emulated fabric through the preloaded libumad2sim library of ibsim. The
// tools come from the Debian packages named by Packages. Every Route runs
// in a private temporary directory with its own ibsim (and socket name),
// so several routes may run at once; the processes it starts are stopped
// by their PID when it returns, also on cancellation and timeout.
package opensm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Packages names the Debian packages that provide the tools.
const Packages = "opensm ibsim-utils infiniband-diags"

// Tools locates the programs Route runs.
type Tools struct {
	// IBSim is the ibsim program (ibsim-utils).
	IBSim string
	// OpenSM is the opensm program (opensm).
	OpenSM string
	// DumpFTS is the dump_fts program (infiniband-diags).
	DumpFTS string
	// IBNetDiscover is the ibnetdiscover program (infiniband-diags).
	IBNetDiscover string
	// UMAD2Sim is the library preloaded into OpenSM and the diagnostics
	// (libumad2sim0, pulled in by ibsim-utils).
	UMAD2Sim string
}

// MissingError reports a tool that is not installed.
type MissingError struct {
	// Tool is the missing program or library.
	Tool string
	// Package is the Debian package that provides it.
	Package string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s not found (Debian package %s): install the tools with: apt-get install %s",
		e.Tool, e.Package, Packages)
}

// FindTools looks the tools up in PATH, /usr/sbin and /sbin (where the
// diagnostics live), and libumad2sim.so in the usual library directories
// (the environment variable UMAD2SIM overrides it). A missing tool gives a
// *MissingError naming its Debian package.
func FindTools() (*Tools, error) {
	t := &Tools{}
	for _, p := range []struct {
		dst       *string
		name, pkg string
	}{
		{&t.IBSim, "ibsim", "ibsim-utils"},
		{&t.OpenSM, "opensm", "opensm"},
		{&t.DumpFTS, "dump_fts", "infiniband-diags"},
		{&t.IBNetDiscover, "ibnetdiscover", "infiniband-diags"},
	} {
		path, err := lookTool(p.name)
		if err != nil {
			return nil, &MissingError{Tool: p.name, Package: p.pkg}
		}
		*p.dst = path
	}
	lib := os.Getenv("UMAD2SIM")
	if lib == "" {
		for _, pat := range []string{"/usr/lib/*/umad2sim/libumad2sim.so", "/usr/lib/umad2sim/libumad2sim.so",
			"/usr/lib64/umad2sim/libumad2sim.so", "/usr/local/lib/umad2sim/libumad2sim.so"} {
			if m, _ := filepath.Glob(pat); len(m) > 0 {
				lib = m[0]
				break
			}
		}
	}
	if lib == "" {
		return nil, &MissingError{Tool: "libumad2sim.so", Package: "ibsim-utils (libumad2sim0)"}
	}
	if _, err := os.Stat(lib); err != nil {
		return nil, &MissingError{Tool: lib, Package: "ibsim-utils (libumad2sim0)"}
	}
	t.UMAD2Sim = lib
	return t, nil
}

// lookTool finds a program in PATH or in the sbin directories.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
