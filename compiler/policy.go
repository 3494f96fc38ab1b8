package compiler

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/dsl"
)

// MaxPolicySize is the largest policy document (`policy from "…"`), in
// bytes (W019). It also counts towards MaxDataBytes.
const MaxPolicySize = 1 << 20

// readPolicy reads the policy document of `policy from "file"` into the
// world. The document must be UTF-8 text without NUL bytes and not blank:
// it is shown to agents as it is.
func (c *checker) readPolicy(p *dsl.Prop) {
	clean, bad := cleanSpecPath("policy document", *p.From)
	if bad != "" {
		c.errorf(diag.DataFile, p.Pos, p.EndPos, "%s", bad)
		return
	}
	data, ok := c.readSpecFile("policy document", clean, MaxPolicySize, p.Pos, p.EndPos)
	if !ok {
		return
	}
	display := c.displayPath(clean)
	at := func(off int) dsl.Pos {
		line, col := newLineIndex(data).at(off)
		return dsl.Pos{Filename: display, Offset: off, Line: line, Column: col}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		pos := at(i)
		c.errorf(diag.DataFile, pos, pos, "NUL byte in policy document %q; it must be UTF-8 text", clean)
		return
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		pos := at(i)
		c.errorf(diag.DataFile, pos, pos, "invalid UTF-8 byte 0x%02x in policy document %q; it must be UTF-8 text", data[i], clean)
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		c.errorf(diag.DataFile, p.Pos, p.EndPos, "policy document %q is empty", clean)
		return
	}
	c.w.Policy, c.w.PolicyFile = string(data), clean
}

// normalizeSpace collapses every run of white space of s into one space
// and trims both ends: the form in which W024 compares an invariant's
// policy text with the policy document, so that line breaks and
// indentation do not matter, and nothing else is forgiven.
func normalizeSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// checkPolicyTexts is W024: with a policy document, every invariant's
// policy text must occur in it (see normalizeSpace), so that the rule the
// agent reads cannot drift from the hidden check's documentation.
func (c *checker) checkPolicyTexts(decls []*dsl.Invariant) {
	if c.w.PolicyFile == "" {
		return
	}
	doc := normalizeSpace(c.w.Policy)
	for _, d := range decls {
		text := normalizeSpace(d.Policy)
		if text == "" || strings.Contains(doc, text) {
			continue // an empty text is W004
		}
		pos, end := d.PolicyPos, d.PolicyEnd
		if pos.Line == 0 {
			pos, end = d.Pos, d.EndPos
		}
		c.errorf(diag.PolicyTextNotInDocument, pos, end, "the policy text of invariant %s is not in the policy document %q (compared with each run of white space as one space): %s",
			d.Name, c.w.PolicyFile, policyMismatch(doc, text))
	}
}

// policyMismatch says where text, which does not occur in doc, departs
// from it: the longest start of text that doc contains, and what follows
// in text and in doc.
func policyMismatch(doc, text string) string {
	// Every start of a start found is found: search the longest.
	lo, hi := 0, len(text) // doc contains text[:lo], not text[:hi]
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if strings.Contains(doc, text[:mid]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	for lo > 0 && lo < len(text) && !utf8.RuneStart(text[lo]) {
		lo--
	}
	if lo == 0 {
		return fmt.Sprintf("the document has no passage starting with %q", head(text, 30))
	}
	i := strings.Index(doc, text[:lo])
	rest := doc[i+lo:]
	theirs := "where the document ends"
	if rest != "" {
		theirs = fmt.Sprintf("where the document has %q", head(rest, 30))
	}
	return fmt.Sprintf("it agrees with the document up to %q, then has %q %s", tail(text[:lo], 30), head(text[lo:], 30), theirs)
}

// head is the first n runes of s, with "…" when it is cut.
func head(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// tail is the last n runes of s, with "…" when it is cut.
func tail(s string, n int) string {
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if n--; n == 0 && i > 0 {
			return "…" + s[i:]
		}
	}
	return s
}
