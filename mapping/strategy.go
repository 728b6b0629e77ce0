package mapping

import (
	"fmt"

	"orcs/registry"
)

// Strategy is a way to place a job.
type Strategy struct {
	// Name is the registry name (--strategy).
	Name string
	// Doc is a one-line description.
	Doc string
	// Place computes a placement of p's ranks onto p's hosts.
	Place func(p *Problem) (Placement, error)
}

// strategies holds the strategies by name.
var strategies = registry.New[*Strategy]("strategy")

// register adds a strategy; called from the init function of its file.
func register(s *Strategy) { strategies.Register(s.Name, s.Doc, s) }

// Lookup returns the strategy of that name; the error for an unknown name
// lists the known ones.
func Lookup(name string) (*Strategy, error) { return strategies.Lookup(name) }

// order is the order in which strategies are listed: from the plainest to
// the most thorough.
var order = []string{"linear", "random", "greedy", "rcm", "bisect", "tile", "search"}

// Names lists the strategies, from the plainest to the most thorough.
func Names() []string { return append([]string(nil), order...) }

// Doc returns the description of a strategy.
func Doc(name string) string {
	d, _ := strategies.Doc(name)
	return d
}

// Place runs the named strategy and checks its result.
func (p *Problem) Place(name string) (Placement, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	pl, err := s.Place(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.Check(pl); err != nil {
		return nil, fmt.Errorf("%s: bug: %w", name, err)
	}
	return pl, nil
}
