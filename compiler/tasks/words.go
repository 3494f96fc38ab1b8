package tasks

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler/ir"
)

// The words of a task are written offline from templates: what each
// write does (its tool's doc, in the agent's language rather than the
// tool's name), the records it acts on as a user identifies them, and
// the values the user gives. They are marked as template-written in the
// task's meta and its metadata.

// humanize writes a spec name as words: credit_limit → credit limit,
// ReturnAuthorization → return authorization.
func humanize(name string) string {
	ws := ir.Words(name)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, " ")
}

// action is what a tool does, as an imperative clause: its doc up to the
// first colon or semicolon, without a final point, its first letter in
// lower case; or its name in words.
func action(t *ir.Tool) string {
	s := strings.TrimSpace(t.Doc)
	if i := strings.IndexAny(s, ":;"); i > 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return humanize(t.Name)
	}
	r, n := utf8.DecodeRuneInString(s)
	if len(s) > n && unicode.IsUpper(r) && !unicode.IsUpper(rune(s[n])) {
		s = string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

// valueText is a value as the words give it: text in quotes, an enum
// value in words, an amount with the currency.
func (x *synth) valueText(v any, t *ir.Type) string {
	switch y := v.(type) {
	case string:
		switch t.Kind {
		case ir.KindEnum:
			return strings.ReplaceAll(y, "_", " ")
		case ir.KindDate, ir.KindDateTime:
			return y
		}
		return "“" + y + "”"
	case json.Number:
		s := canonNumber(string(y))
		if t.Kind == ir.KindMoney && x.w.Currency != "" {
			return s + " " + x.w.Currency
		}
		return s
	case bool:
		if y {
			return "true"
		}
		return "false"
	case []any:
		elem := t
		if t.Kind == ir.KindList {
			elem = t.Elem
		}
		parts := make([]string, len(y))
		for i, e := range y {
			parts[i] = x.valueText(e, elem)
		}
		return strings.Join(parts, ", ")
	}
	return string(toJSON(v))
}

// descText is how the words name a record.
func (x *synth) descText(d *desc, rendered *[]string) string {
	ew := humanize(d.e.Name)
	switch d.kind {
	case "created":
		return "the new " + ew
	case "seen":
		return "the " + ew + " concerned"
	case "key":
		f := d.facts[0]
		v := x.valueText(f.v, f.t)
		*rendered = append(*rendered, v)
		return "the " + ew + " " + v
	case "ref":
		return "the " + humanize(d.field) + " of " + x.descText(d.parent, rendered)
	}
	var b strings.Builder
	b.WriteString("the " + ew)
	for i, f := range d.facts {
		if i == 0 {
			b.WriteString(" with ")
		} else {
			b.WriteString(" and ")
		}
		v := x.valueText(f.v, f.t)
		*rendered = append(*rendered, v)
		b.WriteString(humanize(f.field) + " " + v)
	}
	// What tells the record apart comes before the records it belongs
	// to, so that it reads as the record's.
	for _, f := range d.extra {
		v := x.valueText(f.v, f.t)
		*rendered = append(*rendered, v)
		b.WriteString(" whose " + humanize(f.field) + " is " + v)
	}
	for i, s := range d.subs {
		if i == 0 {
			b.WriteString(" for ")
		} else {
			b.WriteString(" and ")
		}
		b.WriteString(x.descText(s, rendered))
	}
	return b.String()
}

// clauseText is one write as words: its action, then the records and
// values it takes.
func (x *synth) clauseText(cl clause, rendered *[]string) string {
	var b strings.Builder
	b.WriteString(action(cl.c.tool))
	f := x.byTool[cl.c.tool]
	first := true
	for _, a := range cl.c.args {
		if f.names[a.p] != nil {
			var ds []string
			for _, d := range cl.descs[a.p] {
				ds = append(ds, x.descText(d, rendered))
			}
			if len(ds) == 0 {
				continue
			}
			if first {
				b.WriteString(" — " + strings.Join(ds, " and "))
				first = false
			} else {
				b.WriteString("; " + humanize(a.p.Name) + ": " + strings.Join(ds, " and "))
			}
			continue
		}
		var v string
		if ins := cl.inner[a.p]; len(ins) > 0 {
			var ts []string
			for _, in := range ins {
				ts = append(ts, in.text)
				*rendered = append(*rendered, in.facts...)
			}
			v = strings.Join(ts, " and ")
		} else {
			v = x.valueText(a.v, a.p.Type)
			*rendered = append(*rendered, v)
		}
		if first {
			b.WriteString(" — ")
			first = false
		} else {
			b.WriteString("; ")
		}
		b.WriteString(strings.TrimSuffix(humanize(a.p.Name), " id") + ": " + v)
	}
	return b.String()
}

// words writes the instruction of a chain or a refusal: the writes asked
// for, in order; a write the policy implies is left to the agent when it
// needs no value the words would have to give.
func (x *synth) words(origin string, cls []clause, withheld bool) (string, []string) {
	var rendered []string
	var parts []string
	implied := false
	for _, cl := range cls {
		if cl.c.implied && cl.silent {
			implied = true
			continue
		}
		parts = append(parts, x.clauseText(cl, &rendered))
	}
	var b strings.Builder
	for i, p := range parts {
		switch {
		case i == 0:
			b.WriteString("Please " + p + ".")
		case i == len(parts)-1 && len(parts) > 2:
			b.WriteString(" Finally, " + p + ".")
		default:
			b.WriteString(" Then " + p + ".")
		}
	}
	if implied {
		b.WriteString(" Take care of anything our policy requires along the way.")
	}
	if withheld {
		b.WriteString(" Only that, please: make no other change.")
	}
	return b.String(), rendered
}

// programWords writes the instruction of a loop.
func (x *synth) programWords(c *call, e *ir.Entity, anchor *desc, cond *fact, by *ir.Param) (string, []string) {
	var rendered []string
	var b strings.Builder
	b.WriteString("For every " + humanize(e.Name) + " of " + x.descText(anchor, &rendered))
	if cond != nil {
		v := x.valueText(cond.v, cond.t)
		rendered = append(rendered, v)
		b.WriteString(" whose " + humanize(cond.field) + " is " + v)
	}
	b.WriteString(", please " + action(c.tool))
	f := x.byTool[c.tool]
	sep := " — "
	for _, a := range c.args {
		if f.names[a.p] != nil {
			continue
		}
		v := x.valueText(a.v, a.p.Type)
		rendered = append(rendered, v)
		b.WriteString(sep + humanize(a.p.Name) + ": " + v)
		sep = "; "
	}
	b.WriteString(". Leave the others as they are.")
	return b.String(), rendered
}

// checkWords is the dataflow check of a task: every argument of its
// golden solution is given in the instruction, or was shown by an
// observation of an earlier call (whose own arguments passed the same
// check), or is the result of a bound call; and no internal id — of a
// record users do not know by its id — appears in the words.
func (x *synth) checkWords(t *task) string {
	seen := map[string]bool{}
	lower := strings.ToLower(t.instruction)
	for _, c := range t.calls {
		for _, a := range c.args {
			if a.bound != "" {
				continue
			}
			for _, s := range argAtoms(a.v) {
				if seen[s] || inText(lower, s, a.p.Type) {
					continue
				}
				return "dataflow"
			}
		}
		atoms(c.obs, seen)
	}
	// What the words give as values is what a user knows; no such value
	// is an internal id, nor the id of something inside a record.
	rest := t.instruction
	for _, f := range t.facts {
		raw := strings.Trim(f, "“”")
		if x.internal[raw] || x.inner[raw] {
			return "leak"
		}
		rest = strings.ReplaceAll(rest, f, " ")
	}
	for _, tok := range idToken.FindAllString(rest, -1) {
		if x.internal[tok] || x.createdID(tok) {
			return "leak"
		}
	}
	return ""
}

var idToken = regexp.MustCompile(`[A-Za-z0-9_#-]+`)

// createdID reports whether s has the form of an id the world makes for a
// new record (<entity>_<n>) of an entity whose ids users do not know.
func (x *synth) createdID(s string) bool {
	i := strings.LastIndexByte(s, '_')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for _, r := range s[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	prefix := s[:i]
	for _, e := range x.w.Entities {
		if e.Key == nil && !x.keyKnown[e] && ir.SnakeName(e.Name) == prefix {
			return true
		}
	}
	return false
}

// argAtoms are the scalars an argument passes.
func argAtoms(v any) []string {
	set := map[string]bool{}
	atoms(v, set)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}

// inText reports whether the words give the value s of type t.
func inText(lower, s string, t *ir.Type) bool {
	if t.Kind == ir.KindList {
		t = t.Elem
	}
	ls := strings.ToLower(s)
	switch t.Kind {
	case ir.KindEnum:
		return containsWord(lower, strings.ReplaceAll(ls, "_", " ")) || containsWord(lower, ls)
	case ir.KindInt, ir.KindDecimal, ir.KindMoney, ir.KindBool:
		return containsWord(lower, ls)
	}
	return strings.Contains(lower, ls)
}

// containsWord reports whether w occurs in s with no letter or digit
// right before or after it.
func containsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		before, _ := utf8.DecodeLastRuneInString(s[:at])
		after, _ := utf8.DecodeRuneInString(s[at+len(w):])
		isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
		if (at == 0 || !isWord(before)) && (at+len(w) == len(s) || !isWord(after)) {
			return true
		}
		i = at + 1
	}
}
