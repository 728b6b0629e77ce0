package ib

import "bytes"

// Files that administrators bring often hold more than the tool's output:
// a terminal session pasted with its shell prompts, or the tool's standard
// error captured together with its output (2>&1). The line scanner skips
// such lines, and every reader reports them as warnings (see
// Topology.Warnings), so that the data lines keep their line numbers.

// noise says why line l is not output of an InfiniBand tool, or "" when it
// may be. It recognises
//
//   - shell prompts: "[root@host dir]# cmd", "user@host:~$ cmd",
//     "bash-5.1# cmd", "$ cmd";
//   - messages of libibmad: "ibwarn: [pid] func: ...", "ibpanic: ...";
//   - errors of infiniband-diags: "<tool>: iberror: ...";
//   - errors of libibnetdisc: "<source>.c:<line>; umad (...) bad status ...".
func noise(l []byte) string {
	if len(l) == 0 {
		return ""
	}
	// The first byte of most lines of the formats rules noise out: table
	// entries (0x...), indented and comment lines, subnet list lines.
	switch b := l[0]; {
	case b == '0' && len(l) > 1 && (l[1] == 'x' || l[1] == 'X'),
		b == ' ', b == '\t', b == '#', b == '{', b == '"':
		return ""
	}
	switch {
	case bytes.HasPrefix(l, []byte("ibwarn: ")), bytes.HasPrefix(l, []byte("ibpanic: ")),
		bytes.HasPrefix(l, []byte("iberror: ")):
		return "a diagnostic message of libibmad"
	case isPrompt(l):
		return "a shell prompt line"
	}
	c := cursor{b: l}
	w := c.field()
	switch {
	case bytes.HasSuffix(w, []byte(":")) && c.lit(" iberror: "):
		return "an error message of infiniband-diags"
	case isSourceRef(w):
		return "an error message of libibnetdisc"
	}
	return ""
}

// isPrompt recognises a shell prompt at the start of a line.
func isPrompt(l []byte) bool {
	// "$ cmd" or a lone "$".
	if l[0] == '$' && (len(l) == 1 || l[1] == ' ' || l[1] == '\t') {
		return true
	}
	// "[user@host dir]# cmd" and "[user@host dir]$ cmd".
	if l[0] == '[' {
		end := bytes.IndexByte(l, ']')
		if end < 0 || bytes.IndexByte(l[:end], '@') < 0 {
			return false
		}
		rest := bytes.TrimLeft(l[end+1:], " ")
		return len(rest) > 0 && (rest[0] == '#' || rest[0] == '$') && (len(rest) == 1 || rest[1] == ' ')
	}
	// "user@host:~$ cmd", "host:~ # cmd", "bash-5.1# cmd": a word of
	// name characters (with '@' or '-' and a digit, or ':') ending in the
	// prompt character, then a blank or the end of the line.
	i := 0
	for i < len(l) && (isNameByte(l[i]) || l[i] == '@' || l[i] == ':' || l[i] == '~' || l[i] == '/') {
		i++
	}
	if i == 0 {
		return false
	}
	word := l[:i]
	rest := l[i:]
	if len(rest) > 0 && rest[0] == ' ' && (bytes.IndexByte(word, ':') >= 0) {
		rest = rest[1:] // "host:~ # cmd"
	}
	if len(rest) == 0 || rest[0] != '#' && rest[0] != '$' {
		return false
	}
	if len(rest) > 1 && rest[1] != ' ' {
		return false
	}
	hasAt := bytes.IndexByte(word, '@') > 0
	shell := bytes.HasPrefix(word, []byte("bash-")) || bytes.HasPrefix(word, []byte("sh-")) || bytes.HasPrefix(word, []byte("zsh-"))
	return hasAt || shell || bytes.IndexByte(word, ':') > 0
}

// isNameByte reports whether b may appear in a user or host name.
func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '.' || b == '_' || b == '-'
}

// isSourceRef recognises "<path>.c:<line>;", the prefix of libibnetdisc's
// error messages.
func isSourceRef(w []byte) bool {
	if !bytes.HasSuffix(w, []byte(";")) {
		return false
	}
	w = w[:len(w)-1]
	i := bytes.LastIndex(w, []byte(".c:"))
	if i <= 0 || i+3 == len(w) {
		return false
	}
	for _, b := range w[i+3:] {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}
