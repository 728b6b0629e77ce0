package gen

import "strconv"

func init() {
	register(&topology{
		name:    "kary",
		routing: "d-mod-k",
		doc:     "k-ary n-tree (Petrini & Vanneschi): k^n hosts, n levels of k^(n-1) switches with 2k ports; d-mod-k routing",
		params: []param{
			{key: "k", doc: "hosts per leaf switch and up-links per switch (switch radix 2k)", min: 2},
			{key: "n", doc: "number of switch levels", min: 1},
		},
		size:  karySize,
		build: buildKary,
	})
}

// karySize: k^n hosts; n·k^(n-1) switches; n·k^n cables (k^n host cables
// and k^n between every two adjacent levels).
func karySize(s Spec) Size {
	k, n := s.num("k"), s.num("n")
	hosts := pow(k, n)
	radix := 2 * k
	if n == 1 {
		radix = k
	}
	return Size{
		Hosts:    hosts,
		Switches: mul(n, pow(k, n-1)),
		Links:    mul(2*n, hosts),
		Radix:    radix,
	}
}

// buildKary generates a k-ary n-tree.
//
// Hosts are the words d = (d_0 … d_{n-1}) in base k, d = Σ d_i·k^i. Switch
// w of level l (w < k^(n-1), digits w_0 … w_{n-2}) covers the hosts whose
// digits l+1 … n-1 equal its digits l … n-2 (its digits below l tell apart
// the k^l switches above the same subtree). Leaf w has host w·k+j on port
// j+1. Up port k+1+j of switch w at level l < n-1 leads to the level-l+1
// switch with digit l replaced by j, where it arrives on down port w_l+1.
// So level l has ports 1 … k down and k+1 … 2k up; the top level only uses
// ports 1 … k.
//
// Routing is d-mod-k (Zahavi): switch w at level l sends traffic for host d
// down on port d_l+1 when it covers d (the unique down path) and otherwise
// up on port k+1+d_l, with d_l = ⌊d / k^l⌋ mod k. A packet thus climbs
// exactly to the lowest common ancestor level and all traffic to one
// destination descends through one switch per level.
func buildKary(s Spec) (*Network, error) {
	k, n := s.num("k"), s.num("n")
	hosts := pow(k, n)
	width := pow(k, n-1) // switches per level
	nb := newNetBuilder(hosts, n*width)
	tree := &Tree{Levels: n, start: make([]int32, n+1)}
	name := make([]byte, 0, 24)
	for l := range n {
		tree.start[l] = int32(nb.b.NumNodes())
		ports := 2 * k
		if l == n-1 {
			ports = k
		}
		for w := range width {
			name = append(name[:0], 'S')
			name = strconv.AppendInt(name, int64(l), 10)
			name = append(name, '_')
			name = strconv.AppendInt(name, int64(w), 10)
			nb.addSwitch(string(name), ports)
		}
	}
	tree.start[n] = int32(nb.b.NumNodes())
	sw := func(l, w int) int32 { return tree.start[l] + int32(w) }

	for d := range hosts {
		nb.hostCable(d, sw(0, d/k), d%k+1)
	}
	for l, pl := 0, 1; l < n-1; l, pl = l+1, pl*k {
		for w := range width {
			digit := w / pl % k
			for j := range k {
				nb.cable(sw(l, w), k+1+j, sw(l+1, w+(j-digit)*pl), digit+1)
			}
		}
	}

	for l, pl := 0, 1; l < n; l, pl = l+1, pl*k {
		for w := range width {
			sub := w / pl
			nb.routeBy(sw(l, w), func(d int) int {
				j := d / pl % k
				if d/(pl*k) == sub {
					return j + 1
				}
				return k + 1 + j
			})
		}
	}
	f, err := nb.build(s)
	if err != nil {
		return nil, err
	}
	return &Network{Fabric: f, Tree: tree}, nil
}
