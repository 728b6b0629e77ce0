// Package plural writes counts with their noun in the right number: "1
// run", "2 runs", "1 switch", "3 switches", so that no output reads "1
// links".
package plural

import (
	"strconv"
	"strings"
)

// N returns n and the noun, singular when n is 1 (or −1) and plural
// otherwise: N(1, "link") is "1 link", N(0, "link") "0 links". The noun is
// given in the singular; see Noun for how the plural is formed.
func N[T ~int | ~int32 | ~int64 | ~uint64](n T, noun string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, noun)
}

// Noun returns the noun in the number n asks for: noun when n is 1 (or
// −1), else its plural: "es" after s, x, z, ch and sh (switch →
// switches), "ies" for a consonant and y (entry → entries), "s" otherwise.
// A noun of several words ("link-window", "ordered pair") takes the
// plural on its last word; a noun that contains a space followed by a
// qualifier in parentheses is not supported: write the count apart.
func Noun[T ~int | ~int32 | ~int64 | ~uint64](n T, noun string) string {
	if n == 1 || int64(n) == -1 || noun == "" {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case len(noun) >= 2 && noun[len(noun)-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Verb returns one when n is 1 (or −1) and other otherwise, for the word
// that agrees with a count: Verb(n, "lies", "lie"), Verb(n, "its", "their").
func Verb[T ~int | ~int32 | ~int64 | ~uint64](n T, one, other string) string {
	if n == 1 || int64(n) == -1 {
		return one
	}
	return other
}

// Some lists the first n items, separated by commas, and says how many
// are left out: Some([]string{"a", "b", "c", "d"}, 2) is "a, b and 2
// more"; all of them when there are no more than n.
func Some(items []string, n int) string {
	shown := items[:min(len(items), max(n, 0))]
	s := strings.Join(shown, ", ")
	if more := len(items) - len(shown); more > 0 {
		s += " and " + strconv.Itoa(more) + " more"
	}
	return s
}
