package gen

import (
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
)

// commentLines turns spec text into safe comment lines: split at line
// breaks, control and format characters (which include the byte order mark
// Go rejects inside a file) replaced by spaces, invalid UTF-8 replaced.
// Each line is later written as "// " + line, so no spec text can close or
// open a block comment, form a //go: directive or end the comment early.
func commentLines(s string) []string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var lines []string
	for _, l := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }) {
		l = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				return ' '
			}
			return r
		}, l)
		l = strings.TrimSpace(l)
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// oneLine is spec text as a single comment line.
func oneLine(s string) string { return strings.Join(commentLines(s), " ") }

// comment renders text as line comments ("// ..."), one statement per line.
// It bypasses jennifer's own comment formatting, which would paste text
// that starts with "//" or "/*" verbatim and wrap multi-line text in a
// block comment that "*/" could end.
func comment(text string) *jen.Statement {
	st := jen.Null()
	for i, l := range commentLines(text) {
		if i > 0 {
			st.Line()
		}
		st.Comment("// " + l)
	}
	return st
}

// doc is a doc comment: the generated sentence first, then the spec's text
// as a paragraph of its own when there is one.
func doc(sentence, specText string) *jen.Statement {
	st := jen.Comment("// " + oneLine(sentence))
	if lines := commentLines(specText); len(lines) > 0 {
		st.Line().Comment("//")
		for _, l := range lines {
			st.Line().Comment("// " + l)
		}
	}
	return st
}

// sentence makes the first letter upper case and ends the text with a
// period, for doc comments made from spec descriptions.
func sentence(s string) string {
	s = oneLine(s)
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	s = string(r)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// lowerFirst lower-cases the first letter, for doc sentences that start
// with the Go name ("Customer is a company we bill.").
func lowerFirst(s string) string {
	s = oneLine(s)
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsUpper(r[1]) {
		return s // an acronym
	}
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
