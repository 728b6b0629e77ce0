package opensm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"orcs/gen"
)

func TestEngines(t *testing.T) {
	want := []string{"minhop", "updn", "dnup", "ftree", "lash", "dor", "nue", "dfsssp", "sssp", "torus-2QoS"}
	if got := Engines(); !slices.Equal(got, want) {
		t.Errorf("Engines() = %v, want %v", got, want)
	}
	Engines()[0] = "changed"
	if Engines()[0] != "minhop" {
		t.Error("Engines shares its slice")
	}
	for _, e := range want {
		if doc, err := EngineDoc(e); err != nil || doc == "" {
			t.Errorf("EngineDoc(%q) = %q, %v", e, doc, err)
		}
	}
	_, err := EngineDoc("torus-2qos")
	if msg := `unknown OpenSM routing engine "torus-2qos" (known: dfsssp, dnup, dor, ftree, lash, minhop, nue, sssp, torus-2QoS, updn); did you mean "torus-2QoS"?`; err == nil || err.Error() != msg {
		t.Errorf("EngineDoc(torus-2qos) error %v, want %s", err, msg)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"ftree" registered twice`) {
				t.Errorf("registering ftree twice: panic %v", r)
			}
		}()
		engines.Register("ftree", "again", engine{})
	}()
	if len(Engines()) != len(want) {
		t.Errorf("a failed registration changed Engines() to %v", Engines())
	}
}

// TestRouteRefusesUnknownEngine checks that a misspelt engine is refused
// before any tool starts (the tools given do not exist: starting one
// would fail differently), with the known names and the closest one, and
// even with AllowFallback (OpenSM used to fall back to minhop).
func TestRouteRefusesUnknownEngine(t *testing.T) {
	f, err := gen.Generate("kary:k=2,n=2")
	if err != nil {
		t.Fatal(err)
	}
	missing := &Tools{IBSim: "/nonexistent/ibsim", OpenSM: "/nonexistent/opensm"}
	for _, name := range []string{"ftre", "min-hop", "updn2", "file"} {
		_, err := Route(context.Background(), f, Options{Engine: name, AllowFallback: true, Tools: missing})
		if err == nil || !strings.Contains(err.Error(), "known:") || !strings.Contains(err.Error(), "ftree") {
			t.Errorf("engine %q: %v; want an unknown-engine error listing the engines", name, err)
		}
	}
	if err := CheckEngine("FTree"); err != nil {
		t.Errorf("CheckEngine(FTree) = %v; OpenSM takes any case", err)
	}
}
