package samplingsim

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
)

// MultPrime is the random 31-bit prime of H_mult' (thesis §5.4).
const MultPrime = 1846571429

// HashMult is H_mult'(id, d) = bit 31 of (1 846 571 429 · id · d mod 2^32),
// the one-bit hash of the probabilistic headers (thesis §5.4). For a fixed
// id ≢ 0 (mod 2^32) it is 1 for exactly half of all d (Theorem 5.1).
func HashMult(id, d uint32) uint8 {
	return uint8((MultPrime * id * d) >> 31)
}

// HashCRC is the CRC alternative of §5.4: the least significant bit of the
// CRC-32 (IEEE) of the 64-bit product id·d, little endian.
func HashCRC(id, d uint32) uint8 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(id)*uint64(d))
	return uint8(crc32.ChecksumIEEE(b[:]) & 1)
}

// hashKind selects the hash function in the hot path without a function
// value.
type hashKind uint8

const (
	hashMult hashKind = iota
	hashCRC
)

// hashNames maps the command-line names to hash kinds.
var hashNames = map[string]hashKind{"mult": hashMult, "crc": hashCRC}

func lookupHash(name string) (hashKind, error) {
	k, ok := hashNames[name]
	if !ok {
		return 0, fmt.Errorf("unknown hash %q (known: crc, mult)", name)
	}
	return k, nil
}

// bit returns H(id, d) for the hash kind.
func (k hashKind) bit(id, d uint32) uint8 {
	if k == hashCRC {
		return HashCRC(id, d)
	}
	return HashMult(id, d)
}

// LinkCode returns the integer d that stands for the output port port of
// switch sw in the hash (§5.4): sw·2^(9+portBits) + port·2^9 + 509. With the
// thesis's portBits = 6 this is sw·2^15 + port·2^9 + 509, which is at least
// 509 so that d is never small (small arguments correlate H_mult', see the
// counterexample of ids 2 and 6). 509 is the largest prime below 2^9.
func LinkCode(sw, port uint32, portBits int) uint32 {
	return sw<<(9+portBits) + port<<9 + 509
}

// portBitsFor returns the port field width needed for ports up to maxPort,
// at least 6 (the thesis's width).
func portBitsFor(maxPort int) int {
	return max(6, bits.Len(uint(maxPort)))
}
