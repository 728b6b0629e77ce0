package ib

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"orcs/lft"
)

// Speed is the active lane speed of an InfiniBand link.
type Speed uint8

// The lane speeds, slowest first (SpeedUnknown: the file gives none).
const (
	SpeedUnknown Speed = iota
	SDR
	DDR
	QDR
	FDR10
	FDR
	EDR
	HDR
	NDR
	XDR
)

// speedInfo holds each speed's name as ibnetdiscover writes it, its
// signalling rate per lane in Gb/s as iblinkinfo prints it (libibmad's
// table) and its encoding: SDR, DDR and QDR 8b/10b, FDR10 and faster
// 64b/66b. FDR10 signals at 10.3125 Gb/s, iblinkinfo prints "10.0 Gbps
// (FDR10)".
var speedInfo = [...]struct {
	name      string
	signal    float64 // Gb/s per lane on the wire
	printed   string  // iblinkinfo's speed field
	dataRatio float64 // data bits per signalled bit
}{
	SpeedUnknown: {"", 0, "", 0},
	SDR:          {"SDR", 2.5, "2.5 Gbps", 8.0 / 10},
	DDR:          {"DDR", 5, "5.0 Gbps", 8.0 / 10},
	QDR:          {"QDR", 10, "10.0 Gbps", 8.0 / 10},
	FDR10:        {"FDR10", 10.3125, "10.0 Gbps (FDR10)", 64.0 / 66},
	FDR:          {"FDR", 14.0625, "14.0625 Gbps", 64.0 / 66},
	EDR:          {"EDR", 25.78125, "25.78125 Gbps", 64.0 / 66},
	HDR:          {"HDR", 53.125, "53.125 Gbps", 64.0 / 66},
	NDR:          {"NDR", 106.25, "106.25 Gbps", 64.0 / 66},
	XDR:          {"XDR", 212.5, "212.5 Gbps", 64.0 / 66},
}

// String returns the speed's name ("FDR10"), "" when unknown.
func (s Speed) String() string {
	if int(s) < len(speedInfo) {
		return speedInfo[s].name
	}
	return "?"
}

// LaneGbps returns the data rate of one lane after encoding, in Gb/s:
// 2, 4 and 8 for SDR, DDR and QDR, 10 for FDR10, 13.64 for FDR, 25 for
// EDR, 51.52 for HDR, 103.03 for NDR; 0 when unknown.
func (s Speed) LaneGbps() float64 {
	if int(s) < len(speedInfo) {
		return speedInfo[s].signal * speedInfo[s].dataRatio
	}
	return 0
}

// LinkRate is the active width and speed of a link as a topology file
// gives them; the zero value means the file gives none.
type LinkRate struct {
	// Width is the number of lanes (1, 2, 4, 8 or 12), 0 when unknown.
	Width uint8
	// Speed is the lane speed.
	Speed Speed
}

// Known reports whether the rate is given.
func (r LinkRate) Known() bool { return r.Width > 0 && r.Speed != SpeedUnknown }

// String returns the rate as ibnetdiscover writes it ("4xFDR10"), or ""
// when it is not known.
func (r LinkRate) String() string {
	if !r.Known() {
		return ""
	}
	return strconv.Itoa(int(r.Width)) + "x" + r.Speed.String()
}

// Gbps returns the link's data rate in Gb/s (lanes × the lane's data rate
// after encoding): 40 for 4xFDR10, 32 for 4xQDR, 100 for 4xEDR; 0 when
// unknown.
func (r LinkRate) Gbps() float64 {
	if !r.Known() {
		return 0
	}
	return float64(r.Width) * r.Speed.LaneGbps()
}

// validWidth reports whether w lanes is an InfiniBand link width.
func validWidth(w int) bool { return w == 1 || w == 2 || w == 4 || w == 8 || w == 12 }

// parseSpeedName returns the speed named s ("QDR", "FDR10", …).
func parseSpeedName(s string) (Speed, bool) {
	for sp := SDR; int(sp) < len(speedInfo); sp++ {
		if speedInfo[sp].name == s {
			return sp, true
		}
	}
	return SpeedUnknown, false
}

// ParseLinkRate parses a rate as ibnetdiscover writes it at the end of a
// port line, "<width>x<speed>": 1xSDR, 4xQDR, 4xFDR10, 4xEDR, 4xHDR,
// 2xNDR, 12xDDR…
func ParseLinkRate(s string) (LinkRate, error) {
	w, sp, ok := strings.Cut(s, "x")
	if !ok {
		return LinkRate{}, fmt.Errorf("link rate %q: want <width>x<speed>, e.g. 4xFDR10", s)
	}
	return parseWidthSpeed(w, sp)
}

// parseWidthSpeed parses a width ("4", "4x" or "4X") and a speed name.
func parseWidthSpeed(w, sp string) (LinkRate, error) {
	w = strings.TrimRight(w, "xX")
	n, err := strconv.Atoi(w)
	if err != nil || !validWidth(n) {
		return LinkRate{}, fmt.Errorf("link width %q: want 1x, 2x, 4x, 8x or 12x", w)
	}
	speed, ok := parseSpeedName(sp)
	if !ok {
		return LinkRate{}, fmt.Errorf("link speed %q: want SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR", sp)
	}
	return LinkRate{Width: uint8(n), Speed: speed}, nil
}

// rateWord parses the last word of an ibnetdiscover port line when it is a
// rate ("4xFDR10"); other words (or "4x???", a speed ibnetdiscover could
// not name) give the zero rate.
func rateWord(word []byte) LinkRate {
	// "4xSDR": read in place, without the strings of ParseLinkRate.
	if i := bytes.IndexByte(word, 'x'); i == 1 || i == 2 {
		n := 0
		for _, b := range word[:i] {
			if b < '0' || b > '9' {
				n = -1
				break
			}
			n = 10*n + int(b-'0')
		}
		if n >= 0 {
			if !validWidth(n) {
				return LinkRate{}
			}
			for sp := SDR; int(sp) < len(speedInfo); sp++ {
				if speedInfo[sp].name == string(word[i+1:]) {
					return LinkRate{Width: uint8(n), Speed: sp}
				}
			}
			return LinkRate{}
		}
	}
	r, err := ParseLinkRate(string(word))
	if err != nil {
		return LinkRate{}
	}
	return r
}

// linkInfoRate parses iblinkinfo's width ("4X") and speed ("10.0 Gbps",
// "10.0 Gbps (FDR10)", "25.78125 Gbps") fields.
func linkInfoRate(width, speed string) (LinkRate, error) {
	for sp := SDR; int(sp) < len(speedInfo); sp++ {
		if speedInfo[sp].printed == speed {
			return parseWidthSpeed(width, sp.String())
		}
	}
	return LinkRate{}, fmt.Errorf("link speed %q: not one iblinkinfo prints (2.5 Gbps … 106.25 Gbps)", speed)
}

// subnetLstRate parses opensm-subnet.lst's PHY= and SPD= values: SPD is
// the lane's signalling rate in Gb/s as OpenSM writes it ("2.5", "5",
// "10", "14", "25") or "FDR10"; "??" (a speed OpenSM cannot name) gives
// the zero rate.
func subnetLstRate(phy, spd string) LinkRate {
	name := map[string]string{"2.5": "SDR", "5": "DDR", "10": "QDR", "FDR10": "FDR10", "14": "FDR", "25": "EDR", "50": "HDR", "100": "NDR"}[spd]
	r, err := parseWidthSpeed(phy, name)
	if err != nil {
		return LinkRate{}
	}
	return r
}

// LinkRates returns the rate of every link of f, a fabric Build or
// BuildTopology made of t: the rate the topology gives for the link's
// sending port, else for its receiving port (the two ends of a cable run
// at one rate); the zero rate where it gives none. It returns nil when t
// gives no rate at all.
func LinkRates(t *Topology, f *lft.Fabric) []LinkRate {
	byGUID := make(map[uint64]int, len(t.Nodes))
	any := false
	for i := range t.Nodes {
		byGUID[t.Nodes[i].GUID] = i
		for _, p := range t.Nodes[i].Ports {
			any = any || p.Rate.Known()
		}
	}
	if !any {
		return nil
	}
	rate := func(node, port int32) LinkRate {
		i, ok := byGUID[f.Nodes[node].GUID]
		if !ok || port <= 0 {
			return LinkRate{}
		}
		if p := t.Nodes[i].Port(int(port)); p != nil {
			return p.Rate
		}
		return LinkRate{}
	}
	rates := make([]LinkRate, len(f.Links))
	for l, k := range f.Links {
		rates[l] = rate(k.From, k.FromPort)
		if !rates[l].Known() {
			rates[l] = rate(k.To, k.ToPort)
		}
	}
	return rates
}
