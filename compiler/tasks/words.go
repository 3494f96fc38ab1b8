package tasks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler"
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
	if imp, ok := imperative(s, t.Name); ok {
		return imp
	}
	r, n := utf8.DecodeRuneInString(s)
	if len(s) > n && unicode.IsUpper(r) && !unicode.IsUpper(rune(s[n])) {
		s = string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

// imperative reads a doc that says what the tool does in the third
// person as an order: "The doctor signs the clinical note of a visit"
// (sign_note) → "sign the clinical note of a visit", "Records a payment"
// (record_payment) → "record a payment"; the verb is the tool name's
// first word, found among the doc's first words with an -s or -es. A doc
// that starts with an article and has no such verb is the name in words;
// ok is false for any other doc (an order already: "Cancel a booking").
func imperative(doc, name string) (string, bool) {
	nws := strings.Fields(humanize(name))
	ws := strings.Fields(doc)
	if len(nws) == 0 || len(ws) == 0 {
		return "", false
	}
	verb := nws[0]
	forms := []string{verb + "s", verb + "es"}
	if strings.HasSuffix(verb, "y") {
		forms = append(forms, strings.TrimSuffix(verb, "y")+"ies")
	}
	for i, w := range ws {
		if i > 3 {
			break
		}
		if slices.Contains(forms, strings.ToLower(w)) {
			return strings.Join(append([]string{verb}, ws[i+1:]...), " "), true
		}
	}
	switch strings.ToLower(ws[0]) {
	case "the", "a", "an", "this", "our":
		return humanize(name), true
	}
	return "", false
}

// valueText is a value as the words give it: free text, and names that
// hold punctuation, in quotes, other strings as they are, an enum value
// in words, an amount with its currency and its thousands grouped, a
// bool as yes or no (paramPhrase and boolPhrase say it with its name).
func (x *synth) valueText(v any, t *ir.Type) string {
	switch y := v.(type) {
	case string:
		switch t.Kind {
		case ir.KindEnum:
			return strings.ReplaceAll(y, "_", " ")
		case ir.KindDate:
			return y
		case ir.KindDateTime:
			return humanDateTime(y)
		}
		if needsQuotes(y, t) {
			return "“" + y + "”"
		}
		return y
	case json.Number:
		s := canonNumber(string(y))
		if t.Kind == ir.KindMoney && x.w.Currency != "" {
			return groupThousands(s) + " " + x.w.Currency
		}
		return s
	case bool:
		if y {
			return "yes"
		}
		return "no"
	case []any:
		elem := t
		if t.Kind == ir.KindList {
			elem = t.Elem
		}
		parts := make([]string, len(y))
		for i, e := range y {
			parts[i] = x.valueText(e, elem)
		}
		return joinAnd(parts)
	}
	return string(toJSON(v))
}

// humanDateTime writes a datetime as people write it: 2026-06-20T07:40:00Z
// → "07:40 UTC on 2026-06-20", with its seconds only when they are not
// zero and its offset when it is not UTC. The dataflow check reads both
// forms (inText); a value it cannot parse is written as it is.
func humanDateTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	clock := t.Format("15:04")
	if t.Second() != 0 || t.Nanosecond() != 0 {
		clock = t.Format("15:04:05.999999999")
	}
	zone := "UTC"
	if _, off := t.Zone(); off != 0 {
		zone = "UTC" + t.Format("-07:00")
	}
	return clock + " " + zone + " on " + t.Format("2006-01-02")
}

// needsQuotes reports whether a string value is quoted in the words: free
// text, a value with punctuation that would run into the sentence, or
// words that do not read as a name (“Found it cheaper”). A code, an email,
// a name in capitals (Camille Lefèvre, P2 High) is written as it is.
func needsQuotes(s string, t *ir.Type) bool {
	if t.Kind == ir.KindText || s == "" || strings.ContainsAny(s, ",;:!?()\"“”«»") || strings.HasSuffix(s, ".") {
		return true
	}
	ws := strings.Fields(s)
	if len(ws) != len(strings.Split(s, " ")) {
		return true // tabs, runs of spaces, spaces at the ends
	}
	if len(ws) == 1 {
		return false
	}
	for _, w := range ws {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

// groupThousands writes the integer part of a number with a comma every
// three digits: 27500 → 27,500. The dataflow check reads both forms.
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) < 4 {
		return sign + s
	}
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return sign + b.String()
}

// joinAnd joins phrases as a list: "a", "a and b", "a, b and c".
func joinAnd(ps []string) string {
	switch len(ps) {
	case 0:
		return ""
	case 1:
		return ps[0]
	}
	return strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1]
}

// boolPhrase says a bool parameter or field with its value, in words:
// with_conditions → "with conditions" / "without conditions";
// fraud_confirmed → "fraud confirmed" / "fraud not confirmed";
// temperature_ok → "temperature ok" / "temperature not ok"; any other
// (on_hold, accept) → "on hold set to yes" / "accept set to no".
func boolPhrase(name string, v bool) string {
	ws := boolWords(name)
	yes := "no"
	if v {
		yes = "yes"
	}
	if len(ws) == 0 {
		return yes
	}
	all := strings.Fields(humanize(name))
	last := ws[len(ws)-1]
	switch {
	case len(ws) > 1 && slices.Contains(boolPrepositions, ws[0]):
		// on_hold → "on hold" / "not on hold"
		if v {
			return strings.Join(ws, " ")
		}
		return "not " + strings.Join(ws, " ")
	case all[0] == "with" && len(all) > len(ws):
		if v {
			return "with " + strings.Join(ws, " ")
		}
		return "without " + strings.Join(ws, " ")
	case len(ws) > 1 && (strings.HasSuffix(last, "ed") || last == "ok"):
		if v {
			return strings.Join(ws, " ")
		}
		return strings.Join(ws[:len(ws)-1], " ") + " not " + last
	}
	return strings.Join(ws, " ") + " set to " + yes
}

// boolPrepositions start a bool's name that says where its record is
// (on_hold, in_stock, under_review): the name is said, or not.
var boolPrepositions = []string{"on", "in", "under", "off", "out", "at"}

// bare reports whether the words of parameter p with value v are a phrase
// of their own, said after the with-list rather than in it: "on hold",
// "so that it is on hold", "received on 2026-03-07", "starting on 2026-08-03", "for 5 years" —
// "with received on …", "with starts on …", "with the years 5" do not
// read.
func (x *synth) bare(p *ir.Param, v any) bool {
	t := p.Type
	if t.Kind == ir.KindList {
		return false
	}
	if t.Kind == ir.KindBool {
		ws := boolWords(p.Name)
		return len(ws) > 1 && slices.Contains(boolPrepositions, ws[0])
	}
	if _, _, _, ok := verbOf(p.Name); ok {
		return true
	}
	if x.verbPrep(p) {
		return true
	}
	_, ok := unitOf(p, v)
	return ok
}

// verbPrep reports whether a date parameter's name is a verb and a
// preposition (cancel_on, deliver_by), the verb one the world's tools
// are named by (cancel_policy): it is said "to cancel on 2026-04-14",
// not "with cancel on 2026-04-14".
func (x *synth) verbPrep(p *ir.Param) bool {
	if p.Type.Kind != ir.KindDate && p.Type.Kind != ir.KindDateTime {
		return false
	}
	ws := strings.Fields(humanize(p.Name))
	if len(ws) != 2 || !slices.Contains(prepositions, ws[1]) {
		return false
	}
	if x.toolVerbs == nil {
		x.toolVerbs = map[string]bool{}
		for _, t := range x.w.Tools {
			if tw := strings.Fields(humanize(t.Name)); len(tw) > 1 {
				x.toolVerbs[tw[0]] = true
			}
		}
	}
	return x.toolVerbs[ws[0]]
}

// units are the plural nouns a count is given in: years → "for 5 years".
var units = []string{"years", "months", "weeks", "days", "hours", "nights", "minutes"}

// unitOf says a count parameter named by its unit with its value: years
// → "for 5 years", "for 1 year"; extra_nights → "for 2 extra nights".
func unitOf(p *ir.Param, v any) (string, bool) {
	n, isNum := v.(json.Number)
	if !isNum || (p.Type.Kind != ir.KindInt && p.Type.Kind != ir.KindDecimal) {
		return "", false
	}
	ws := strings.Fields(humanize(p.Name))
	if len(ws) == 0 || !slices.Contains(units, ws[len(ws)-1]) {
		return "", false
	}
	num := canonNumber(string(n))
	if num == "1" {
		ws[len(ws)-1] = strings.TrimSuffix(ws[len(ws)-1], "s")
	}
	return "for " + num + " " + strings.Join(ws, " "), true
}

// ingForm is the -ing form of a verb in the third person: starts →
// starting, expires → expiring.
func ingForm(v string) string {
	v = strings.TrimSuffix(v, "s")
	if strings.HasSuffix(v, "e") && !strings.HasSuffix(v, "ee") {
		v = strings.TrimSuffix(v, "e")
	}
	return v + "ing"
}

// afterWith writes the values of a write: the with-list, then the
// phrases of their own (bare).
func afterWith(with, bares []string) string {
	w := withList(with)
	switch {
	case len(bares) == 0:
		return w
	case w == "":
		return joinAnd(bares)
	}
	return w + ", " + joinAnd(bares)
}

// newValueOf is the field of another record parameter of t that t sets
// to the record p takes (rebook's `set booking.tour = tour`): the words
// say "the tour … as its new tour", so that the record reads as where the
// booking goes, not where it is.
func newValueOf(t *ir.Tool, p *ir.Param) *ir.Field {
	if p.Var == nil || t.Kind != ir.ToolCustom {
		return nil
	}
	var out *ir.Field
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		set, ok := st.(*ir.Set)
		if !ok || out != nil || set.Field == nil {
			return
		}
		v := set.Value
		if id, isID := v.(*ir.IDOf); isID {
			v = id.X
		}
		val, ok := v.(*ir.VarRef)
		tgt, ok2 := set.Target.(*ir.VarRef)
		if ok && ok2 && val.Var == p.Var && tgt.Var != p.Var {
			out = set.Field
		}
	}, nil)
	return out
}

// withList joins the values a write takes after "with": "with the
// reason …, the amount …"; a first one that says with or without itself
// ("with conditions", "without conditions") is not given a second.
func withList(items []string) string {
	switch {
	case len(items) == 0:
		return ""
	case strings.HasPrefix(items[0], "with "):
		return "with " + joinAnd(append([]string{strings.TrimPrefix(items[0], "with ")}, items[1:]...))
	case strings.HasPrefix(items[0], "without "):
		return joinAnd(items)
	}
	return "with " + joinAnd(items)
}

// flagPhrase says that a record's bool field has a value, after the
// record's noun (singular or plural): "marked as active", "not marked
// as on hold", "with conditions", "without conditions", "with fraud
// confirmed", "with fraud not confirmed".
func flagPhrase(name string, v bool) string {
	ws := boolWords(name)
	all := strings.Fields(humanize(name))
	if len(ws) == 0 {
		return "marked " + map[bool]string{true: "yes", false: "no"}[v]
	}
	last := ws[len(ws)-1]
	switch {
	case all[0] == "with" && len(all) > len(ws):
		return boolPhrase(name, v) // with conditions, without conditions
	case len(ws) > 1 && (strings.HasSuffix(last, "ed") || last == "ok"):
		return "with " + boolPhrase(name, v)
	case v:
		return "marked as " + strings.Join(ws, " ")
	}
	return "not marked as " + strings.Join(ws, " ")
}

// participles are past participles that do not end in -ed.
var participles = []string{"sent", "paid", "made", "held", "given", "taken", "done", "set", "left", "built", "bought", "sold", "seen", "shown", "written", "kept", "lost", "won", "put", "cut", "read", "run", "begun", "drawn", "grown", "born", "due", "valid", "open"}

// verbOf reads a field's name as a verb and a preposition, when it says
// when something happened or holds: received_on → "received" "on"
// (finite false: "it was received on …"), ends_on → "ends" "on" (finite:
// "it ends on …"), valid_until → "valid" "until"; ok is false for other
// names (session_date, amount).
func verbOf(field string) (verb, prep string, finite, ok bool) {
	ws := strings.Fields(humanize(field))
	if len(ws) < 2 {
		return "", "", false, false
	}
	prep = ws[len(ws)-1]
	if !slices.Contains(prepositions, prep) {
		return "", "", false, false
	}
	head := ws[len(ws)-2]
	verb = strings.Join(ws[:len(ws)-1], " ")
	switch {
	case strings.HasSuffix(head, "ed") || slices.Contains(participles, head):
		return verb, prep, false, true
	case strings.HasSuffix(head, "s") && !strings.HasSuffix(head, "ss"):
		return verb, prep, true, true
	}
	return "", "", false, false
}

// finiteVerb reports whether a date field's last word reads as a verb in
// the third person (expires, ends, renews), not a plural or a noun in -s
// (address, status, bus).
func finiteVerb(w string) bool {
	return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// endsInPreposition reports whether a field's name ends in a preposition
// (customer_since, loyalty_until): "whose customer since is …" does not
// read.
func endsInPreposition(field string) bool {
	ws := strings.Fields(humanize(field))
	return len(ws) > 1 && slices.Contains(prepositions, ws[len(ws)-1])
}

var prepositions = []string{"on", "at", "until", "since", "by", "from", "to", "before", "after"}

// qualifier says, after a record's noun, that a field of it has a value:
// "marked as active", "requested on 2026-04-30", "that ends on
// 2026-03-31", "whose status is open".
func (x *synth) qualifier(field string, v any, t *ir.Type, wd *wording) string {
	if b, ok := v.(bool); ok && t.Kind == ir.KindBool {
		return wd.give(flagPhrase(field, b))
	}
	text := wd.give(x.valueText(v, t))
	if verb, prep, finite, ok := verbOf(field); ok {
		if finite {
			return "that " + verb + " " + prep + " " + text
		}
		return verb + " " + prep + " " + text
	}
	if endsInPreposition(field) {
		return "with " + humanize(field) + " " + text // with loyalty until 2024-01-05
	}
	if ws := strings.Fields(humanize(field)); (t.Kind == ir.KindDate || t.Kind == ir.KindDateTime) && finiteVerb(ws[len(ws)-1]) {
		// insurance_expires → "whose insurance expires on 2027-03-31"
		prep := "on "
		if t.Kind == ir.KindDateTime {
			prep = "at "
		}
		if len(ws) == 1 {
			return "that " + ws[0] + " " + prep + text
		}
		return "whose " + strings.Join(ws, " ") + " " + prep + text
	}
	return "whose " + humanize(field) + " is " + text
}

// boolWords are the words of a bool's name that say what it is about:
// its name in words without a leading is, has or with.
func boolWords(name string) []string {
	ws := strings.Fields(humanize(name))
	if len(ws) > 1 && slices.Contains([]string{"is", "has", "was", "with", "are"}, ws[0]) {
		ws = ws[1:]
	}
	return ws
}

// wording is the words of one instruction as they are written: the
// values given (facts), and the record of each entity mentioned last, so
// that a record named again is "the same …".
type wording struct {
	facts []string
	last  map[*ir.Entity]string
	// nth is, for a record the task creates when the words ask for more
	// than one new record of its entity, its place among them: "first ".
	nth map[string]string
}

func newWording() *wording { return &wording{last: map[*ir.Entity]string{}} }

// give records a value the words give and returns it.
func (wd *wording) give(v string) string {
	wd.facts = append(wd.facts, v)
	return v
}

// nameLike reports whether a field names its record the way a user says
// it before the record's kind: "claim SIN-2026-0431", "the policyholder
// Camille Lefèvre" rather than "the claim with claim number …".
func nameLike(field string) bool {
	ws := strings.Fields(humanize(field))
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "name", "number", "code", "id", "ref", "reference", "no", "tag", "sku", "msisdn", "iccid", "iban", "email", "title", "handle", "username", "login":
		return true
	}
	return false
}

// descText is how the words name a record.
func (x *synth) descText(d *desc, wd *wording) string {
	ew := humanize(d.e.Name)
	switch d.kind {
	case "created":
		return "the " + wd.nth[d.id] + "new " + ew
	case "seen":
		return "the " + ew + " concerned"
	}
	if wd.last[d.e] == d.id {
		return "the same " + ew
	}
	defer func() { wd.last[d.e] = d.id }()
	switch d.kind {
	case "key":
		f := d.facts[0]
		v := wd.give(x.valueText(f.v, f.t))
		if nameLike(f.field) {
			return "the " + ew + " " + v
		}
		return "the " + ew + " with " + humanize(f.field) + " " + v
	case "ref":
		return "the " + humanize(d.field) + " of " + x.descText(d.parent, wd)
	}
	var b strings.Builder
	b.WriteString("the " + ew)
	var with, quals []string
	for i, f := range d.facts {
		if f.t.Kind == ir.KindBool {
			b, _ := f.v.(bool)
			quals = append(quals, x.qualifier(f.field, b, f.t, wd))
			continue
		}
		if _, _, _, ok := verbOf(f.field); ok {
			quals = append(quals, x.qualifier(f.field, f.v, f.t, wd))
			continue
		}
		v := wd.give(x.valueText(f.v, f.t))
		if i == 0 && nameLike(f.field) {
			b.WriteString(" " + v)
			continue
		}
		with = append(with, humanize(f.field)+" "+v)
	}
	if len(with) > 0 {
		b.WriteString(" with " + joinAnd(with))
	}
	for i, q := range quals {
		if i == 0 && len(with) > 0 {
			b.WriteString(",") // the claim with status open, raised on …
		}
		b.WriteString(" " + q)
	}
	// What tells the record apart comes before the records it belongs
	// to, so that it reads as the record's.
	for i, f := range d.extra {
		if i == 0 && len(with) > 0 && len(quals) == 0 {
			b.WriteString(",") // the invoice with status issued, issued on …
		}
		b.WriteString(" " + x.qualifier(f.field, f.v, f.t, wd))
	}
	var subs []string
	for _, s := range d.subs {
		subs = append(subs, x.descText(s, wd))
	}
	if len(subs) > 0 {
		b.WriteString(" for " + joinAnd(subs))
	}
	return b.String()
}

// role is a parameter's name in words, without a final "id" or "ids".
func role(p *ir.Param) string {
	r := humanize(p.Name)
	for _, s := range []string{" ids", " id"} {
		r = strings.TrimSuffix(r, s)
	}
	return r
}

// asRole writes a record a parameter other than the first takes: "the
// loss adjuster Sandrine Faure" when the parameter's name says no more
// than the record's kind, else "the employee Arjun Nair as engineer".
func asRole(t *ir.Tool, p *ir.Param, e *ir.Entity, text string) string {
	if f := newValueOf(t, p); f != nil && !f.Type.Optional {
		// A field that always holds a record: the write changes it.
		return text + " as its new " + humanize(f.Name)
	}
	ew := strings.Fields(humanize(e.Name))
	for _, w := range strings.Fields(role(p)) {
		if !slices.Contains(ew, w) {
			return text + " as " + role(p)
		}
	}
	return text
}

// paramPhrase is a value with what it is: "the reason “Found it
// cheaper”", "paid until 2026-09-30", "the effective date 2026-09-30",
// "fraud not confirmed".
func (x *synth) paramPhrase(p *ir.Param, v any, text string) string {
	t := p.Type
	if t.Kind == ir.KindList {
		t = t.Elem
	}
	if b, ok := v.(bool); ok && t.Kind == ir.KindBool {
		return boolPhrase(p.Name, b)
	}
	if u, ok := unitOf(p, v); ok {
		return u
	}
	r := role(p)
	ws := strings.Fields(r)
	last := ws[len(ws)-1]
	if x.verbPrep(p) {
		return "to " + r + " " + text // to cancel on 2026-04-14
	}
	if _, _, finite, ok := verbOf(p.Name); ok && finite && len(ws) > 1 {
		// starts_on → "starting on 2026-08-03"
		ws[len(ws)-2] = ingForm(ws[len(ws)-2])
		return strings.Join(ws, " ") + " " + text
	}
	switch {
	case slices.Contains([]string{"on", "until", "from", "to", "since", "by", "at", "before", "after", "for"}, last) || (len(ws) > 1 && strings.HasSuffix(last, "ed")):
		// received_by, paid_until, delivered_on: a phrase of its own.
		return r + " " + text
	case len(ws) == 1 && strings.HasSuffix(last, "ed") && t.Kind.Numeric():
		// counted → "0 counted", not "the counted 0"
		return text + " " + r
	case t.Kind == ir.KindDateTime &&
		!slices.ContainsFunc(ws, func(w string) bool { return w == "date" || w == "day" || w == "time" }):
		// requested_pickup → "the requested pickup at 14:00 UTC on …"
		return "the " + r + " at " + text
	case (t.Kind == ir.KindDate || t.Kind == ir.KindDateTime) &&
		!slices.ContainsFunc(ws, func(w string) bool { return w == "date" || w == "day" || w == "time" || w == "cycle" || w == "month" }):
		r += " date"
	}
	return "the " + r + " " + text
}

// clauseText is one write as words: its action (the tool's doc), the
// record it acts on, then the others and the values it takes, each said
// once; free text last. A write whose outcome another tool's words could
// describe says the outcome (see outcomes).
func (x *synth) clauseText(cl clause, wd *wording) string {
	f := x.byTool[cl.c.tool]
	var object string
	var with, texts, bares []string
	mark := len(wd.facts)
	for _, a := range cl.c.args {
		if e := f.names[a.p]; e != nil {
			var ds []string
			for _, d := range cl.descs[a.p] {
				ds = append(ds, x.descText(d, wd))
			}
			if len(ds) == 0 {
				continue
			}
			if object == "" {
				object = joinAnd(ds)
			} else {
				with = append(with, asRole(cl.c.tool, a.p, e, joinAnd(ds)))
			}
			continue
		}
		if ins := cl.inner[a.p]; len(ins) > 0 {
			var ts []string
			for _, in := range ins {
				ts = append(ts, in.text)
				wd.facts = append(wd.facts, in.facts...)
			}
			with = append(with, joinAnd(ts)+" as "+role(a.p))
			continue
		}
		v := x.valueText(a.v, a.p.Type)
		if slices.Contains(wd.facts[mark:], v) {
			continue // the record was named by it: said once
		}
		if a.p.Type.Kind == ir.KindBool {
			b, _ := a.v.(bool)
			if x.bare(a.p, a.v) {
				bares = append(bares, "so that it is "+wd.give(boolPhrase(a.p.Name, b)))
			} else {
				with = append(with, wd.give(boolPhrase(a.p.Name, b)))
			}
			continue
		}
		wd.give(v)
		phrase := x.paramPhrase(a.p, a.v, v)
		if x.bare(a.p, a.v) {
			bares = append(bares, phrase)
			continue
		}
		if freeText(a.p, a.p.Type) || a.p.Type.Kind == ir.KindText {
			texts = append(texts, phrase)
		} else {
			with = append(with, phrase)
		}
	}
	with = append(with, texts...)
	values := afterWith(with, bares)
	var b strings.Builder
	b.WriteString(action(cl.c.tool))
	switch {
	case object != "" && values != "":
		b.WriteString(": " + object + ", " + values)
	case object != "":
		b.WriteString(": " + object)
	case values != "":
		b.WriteString(", " + values)
	}
	if o := x.outcomeOf(cl.c.tool); o != nil {
		b.WriteString(", so that its " + humanize(o.field.Name) + " is " + wd.give(o.words()) + ", not " + strings.Join(o.othersWords(), " or "))
	}
	return b.String()
}

// words writes the instruction of a chain or a refusal: the writes asked
// for, in order; a write the policy implies is left to the agent when it
// needs no value the words would have to give.
func (x *synth) words(origin string, cls []clause, withheld bool) (string, []string) {
	wd := newWording()
	wd.nth = x.newOrdinals(cls)
	var parts []string
	implied := false
	for _, cl := range cls {
		if cl.c.implied && cl.silent {
			implied = true
			continue
		}
		parts = append(parts, x.clauseText(cl, wd))
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
		b.WriteString(" Only that, please; make no other change.")
	}
	return b.String(), wd.facts
}

// newOrdinals numbers the records the asked-for writes of cls create,
// per entity, when there is more than one: two claims sent, then a
// payment for "the first new claim" (not "the new claim", which either
// would be).
func (x *synth) newOrdinals(cls []clause) map[string]string {
	byEntity := map[*ir.Entity][]string{}
	var order []*ir.Entity
	for _, cl := range cls {
		if cl.c.implied && cl.silent || cl.c.id == "" || cl.c.tool.Returns == nil {
			continue
		}
		e := recordEntity(cl.c.tool.Returns)
		if e == nil || x.startHas(e, cl.c.id) || slices.Contains(byEntity[e], cl.c.id) {
			continue // not new, or returned again by a later write
		}
		if _, ok := byEntity[e]; !ok {
			order = append(order, e)
		}
		byEntity[e] = append(byEntity[e], cl.c.id)
	}
	out := map[string]string{}
	for _, e := range order {
		ids := byEntity[e]
		if len(ids) < 2 {
			continue
		}
		for i, id := range ids {
			out[id] = ordinal(i+1) + " "
		}
	}
	return out
}

// ordinal is n in words: first, second, …; 11th on.
func ordinal(n int) string {
	ws := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if n >= 1 && n <= len(ws) {
		return ws[n-1]
	}
	return fmt.Sprintf("%dth", n)
}

// programWords writes the instruction of a loop.
func (x *synth) programWords(c *call, e *ir.Entity, anchor *desc, cond *fact, by *ir.Param) (string, []string) {
	wd := newWording()
	var b strings.Builder
	b.WriteString("For every " + humanize(e.Name) + " of " + x.descText(anchor, wd))
	if cond != nil {
		b.WriteString(" " + x.qualifier(cond.field, cond.v, cond.t, wd))
	}
	b.WriteString(", please " + action(c.tool))
	f := x.byTool[c.tool]
	var with, texts, bares []string
	for _, a := range c.args {
		if f.names[a.p] != nil {
			continue
		}
		if a.p.Type.Kind == ir.KindBool {
			v, _ := a.v.(bool)
			if x.bare(a.p, a.v) {
				bares = append(bares, "so that it is "+wd.give(boolPhrase(a.p.Name, v)))
			} else {
				with = append(with, wd.give(boolPhrase(a.p.Name, v)))
			}
			continue
		}
		v := wd.give(x.valueText(a.v, a.p.Type))
		if x.bare(a.p, a.v) {
			bares = append(bares, x.paramPhrase(a.p, a.v, v))
			continue
		}
		if freeText(a.p, a.p.Type) || a.p.Type.Kind == ir.KindText {
			texts = append(texts, x.paramPhrase(a.p, a.v, v))
		} else {
			with = append(with, x.paramPhrase(a.p, a.v, v))
		}
	}
	if values := afterWith(append(with, texts...), bares); values != "" {
		b.WriteString(", " + values)
	}
	if o := x.outcomeOf(c.tool); o != nil {
		b.WriteString(", so that its " + humanize(o.field.Name) + " is " + wd.give(o.words()) + ", not " + strings.Join(o.othersWords(), " or "))
	}
	b.WriteString(". Leave the others as they are.")
	return b.String(), wd.facts
}

// An outcome is the value a write sets an enum field of its record to,
// when another writing tool sets the same field to a value the same
// words describe: resolve_ticket's resolved and close_ticket's closed
// both answer "close out the ticket as fixed", and a rubric that grades
// one fails the agent that did the other. The words then say the value.
type outcome struct {
	field  *ir.Field
	value  string
	others []string
}

func (o *outcome) words() string { return strings.ReplaceAll(o.value, "_", " ") }

func (o *outcome) othersWords() []string {
	var out []string
	for _, v := range o.others {
		out = append(out, strings.ReplaceAll(v, "_", " "))
	}
	return out
}

// outcomeClasses are values that the same everyday words describe: a
// case finished (closed out, done), called off, let through, paused.
var outcomeClasses = [][]string{
	{"resolved", "closed", "completed", "complete", "done", "finished", "fixed", "settled", "paid", "implemented", "fulfilled", "delivered", "exited", "archived"},
	{"cancelled", "canceled", "withdrawn", "revoked", "rejected", "refused", "declined", "retired", "terminated", "voided", "void", "denied", "deleted"},
	{"approved", "accepted", "admitted", "authorized", "authorised", "granted"},
	{"suspended", "on_hold", "paused", "frozen", "blocked", "held"},
}

func outcomeClass(v string) int {
	for i, c := range outcomeClasses {
		if slices.Contains(c, v) {
			return i
		}
	}
	return -1
}

// outcomeOf is the outcome of tool when another writing tool rivals it
// (see outcome); nil otherwise.
func (x *synth) outcomeOf(t *ir.Tool) *outcome {
	if x.outcomes == nil {
		x.outcomes = rivalOutcomes(x.w)
	}
	return x.outcomes[t]
}

// rivalOutcomes finds, for every tool, the enum field of a record it
// takes that its body sets to a constant unconditionally, and the tools
// that set the same field to another constant of the same class.
func rivalOutcomes(w *ir.World) map[*ir.Tool]*outcome {
	type set struct {
		tool  *ir.Tool
		field *ir.Field
		value string
	}
	var sets []set
	for _, t := range w.Tools {
		if t.Kind != ir.ToolCustom {
			continue
		}
		params := map[*ir.Var]bool{}
		for _, p := range t.Params {
			if p.Var != nil && p.Type.Kind == ir.KindRef {
				params[p.Var] = true
			}
		}
		for _, s := range t.Body { // top level only: unconditional
			st, ok := s.(*ir.Set)
			if !ok || st.Field == nil || st.Field.Type.Kind != ir.KindEnum {
				continue
			}
			ref, ok := st.Target.(*ir.VarRef)
			lit, isLit := st.Value.(*ir.Lit)
			if !ok || !isLit || !params[ref.Var] || lit.Value == nil || outcomeClass(lit.Value.Str) < 0 {
				continue
			}
			sets = append(sets, set{t, st.Field, lit.Value.Str})
		}
	}
	out := map[*ir.Tool]*outcome{}
	for _, a := range sets {
		for _, b := range sets {
			if a.tool == b.tool || a.field != b.field || a.value == b.value || outcomeClass(a.value) != outcomeClass(b.value) {
				continue
			}
			o := out[a.tool]
			if o == nil {
				o = &outcome{field: a.field, value: a.value}
				out[a.tool] = o
			}
			if o.field == a.field && !slices.Contains(o.others, b.value) {
				o.others = append(o.others, b.value)
			}
		}
	}
	return out
}

// checkWords is the dataflow check of a task: every argument of its
// golden solution is given in the instruction, or was shown by an
// observation of an earlier call (whose own arguments passed the same
// check), or is the result of a bound call; the outcome of a write that
// another tool's words could describe is said; and no internal id — of a
// record users do not know by its id — appears in the words.
func (x *synth) checkWords(t *task) string {
	missing, leaked := x.wordProblems(t, t.instruction)
	switch {
	case len(missing) > 0:
		return "dataflow"
	case len(leaked) > 0:
		return "leak"
	}
	return ""
}

// wordProblems is the check of checkWords on an instruction for t (its
// own, or words written for it by another writer): the values the words
// must give and do not, as the words would say them, and the internal
// ids they hold. The values t's template words gave (t.facts) are what a
// user knows.
func (x *synth) wordProblems(t *task, instruction string) (missing, leaked []string) {
	seen := map[string]bool{}
	lower := strings.ToLower(instruction)
	miss := func(s string) {
		if !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	for _, c := range t.calls {
		for _, a := range c.args {
			if a.bound != "" {
				continue
			}
			for _, s := range argAtoms(a.v) {
				if seen[s] || inText(lower, s, a.p) {
					continue
				}
				miss(atomWords(s, a.p))
			}
		}
		if o := x.outcomeOf(c.tool); o != nil && !c.lookup && c.fails == "" && !containsWord(lower, strings.ToLower(o.words())) {
			miss(humanize(o.field.Name) + " " + o.words())
		}
		atoms(c.obs, seen)
	}
	// What the words give as values is what a user knows; no such value
	// is an internal id, nor the id of something inside a record.
	rest := instruction
	for _, f := range t.facts {
		raw := strings.Trim(f, "“”")
		if x.internal[raw] || x.inner[raw] {
			if !slices.Contains(leaked, raw) && strings.Contains(instruction, f) {
				leaked = append(leaked, raw)
			}
		}
		rest = strings.ReplaceAll(rest, f, " ")
	}
	for _, tok := range idToken.FindAllString(rest, -1) {
		inner := x.inner[tok] && strings.ContainsAny(tok, "0123456789")
		if (x.internal[tok] || inner || x.createdID(tok)) && !slices.Contains(leaked, tok) {
			leaked = append(leaked, tok)
		}
	}
	return missing, leaked
}

// atomWords is a value an argument passes as the words should give it.
func atomWords(s string, p *ir.Param) string {
	t := p.Type
	if t.Kind == ir.KindList {
		t = t.Elem
	}
	switch t.Kind {
	case ir.KindEnum:
		return strings.ReplaceAll(s, "_", " ")
	case ir.KindBool:
		return boolPhrase(p.Name, s == "true")
	case ir.KindDateTime:
		return humanDateTime(s)
	}
	return s
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

// inText reports whether the words give the value s that parameter p
// takes: an enum value in words or as written, a number as written or
// with its thousands grouped (27,500), a bool by the words of its name
// (boolPhrase: "fraud not confirmed") or as true or false, text as it is.
func inText(lower, s string, p *ir.Param) bool {
	t := p.Type
	if t.Kind == ir.KindList {
		t = t.Elem
	}
	ls := strings.ToLower(s)
	switch t.Kind {
	case ir.KindEnum:
		return containsWord(lower, strings.ReplaceAll(ls, "_", " ")) || containsWord(lower, ls)
	case ir.KindInt, ir.KindDecimal, ir.KindMoney:
		return containsWord(lower, ls) || containsWord(lower, groupThousands(ls))
	case ir.KindDateTime:
		return strings.Contains(lower, ls) || strings.Contains(lower, strings.ToLower(humanDateTime(s)))
	case ir.KindBool:
		if containsWord(lower, ls) {
			return true
		}
		ws := boolWords(p.Name)
		for _, w := range ws {
			if !containsWord(lower, w) {
				return false
			}
		}
		return len(ws) > 0
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

// Words written by another writer than the templates — an LLM, with
// `worldc tasks --model` (internal/taskwords) — go through the same
// check as the template words before they replace them: every value the
// golden solution needs is given (or observed), the outcome of a write
// another tool's words describe is said, and no internal id appears.

// WordsRequest is what a writer of a task's words is given: the task's
// golden run and rubric, the values the words must give and the ids they
// must not hold, and the template's words as a start.
type WordsRequest struct {
	Task   string `json:"task"`
	Origin string `json:"origin"`
	// Persona and Instruction are the template's.
	Persona     string `json:"persona"`
	Instruction string `json:"instruction"`
	// Steps are the calls of the golden solution, one a line (internal
	// ids shown as [id]); Rubric its expect assertions.
	Steps  []string `json:"steps"`
	Rubric []string `json:"rubric"`
	// Values are what the words must give, as the template gives them
	// (quotes removed); Outcomes the end states they must say.
	Values   []string `json:"values"`
	Outcomes []string `json:"outcomes,omitempty"`
	// Forbidden are ids the golden run passes that a user does not know.
	Forbidden []string `json:"forbidden,omitempty"`
	Refusal   bool     `json:"refusal,omitempty"`
}

// Words are the words written for one task.
type Words struct {
	Persona, Instruction string
}

// WordsProblems are what the check found wrong with words written for a
// task: values missing, ids leaked, or a form the spec cannot hold.
type WordsProblems struct {
	Missing []string `json:"missing,omitempty"`
	Leaked  []string `json:"leaked,omitempty"`
	Form    string   `json:"form,omitempty"`
}

// OK reports whether the check found nothing.
func (p WordsProblems) OK() bool { return len(p.Missing) == 0 && len(p.Leaked) == 0 && p.Form == "" }

// Reason is the first kind of problem: form, missing or leak ("" for none).
func (p WordsProblems) Reason() string {
	switch {
	case p.Form != "":
		return "form"
	case len(p.Missing) > 0:
		return "missing"
	case len(p.Leaked) > 0:
		return "leak"
	}
	return ""
}

// WordsCount counts how the words of a synthesis were written when an LLM
// was asked: kept from the model (Repaired of them after the repair
// round), or the template's after all (Fallbacks, by reason).
type WordsCount struct {
	Model     string         `json:"model"`
	LLM       int            `json:"llm"`
	Repaired  int            `json:"repaired"`
	Template  int            `json:"template"`
	Fallbacks map[string]int `json:"fallbacks,omitempty"`
	// PromptTokens and CompletionTokens are the endpoint's counts.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Bounds of words written by another writer.
const (
	maxInstruction = 4000
	maxPersona     = 200
)

// WordsRequests are the requests of the synthesised tasks, in the order
// of r.Tasks.
func (r *Result) WordsRequests() []WordsRequest {
	out := make([]WordsRequest, len(r.kept))
	for i, t := range r.kept {
		out[i] = r.x.wordsRequest(t)
	}
	return out
}

func (x *synth) wordsRequest(t *task) WordsRequest {
	q := WordsRequest{Task: t.name, Origin: t.origin, Persona: t.persona, Instruction: t.instruction,
		Refusal: t.origin == OriginRefusal, Values: []string{}}
	secret := func(s string) bool { return x.internal[s] || x.inner[s] || x.createdID(s) }
	for _, a := range t.assertions {
		q.Rubric = append(q.Rubric, idToken.ReplaceAllStringFunc(a, func(tok string) string {
			if secret(tok) {
				return "[id]"
			}
			return tok
		}))
	}
	for _, c := range t.calls {
		var args []string
		for _, a := range c.args {
			if a.bound != "" {
				args = append(args, a.p.Name+": "+a.bound)
				continue
			}
			v := maskIDs(a.v, secret)
			args = append(args, a.p.Name+": "+string(toJSON(v)))
			for _, s := range argAtoms(a.v) {
				if secret(s) && !slices.Contains(q.Forbidden, s) {
					q.Forbidden = append(q.Forbidden, s)
				}
			}
		}
		line := c.tool.Name + "(" + strings.Join(args, ", ") + ")"
		switch {
		case c.lookup:
			line = "look up: " + line
		case c.fails != "":
			line = "refused: " + line + " fails " + strconvQuote(c.fails)
		case c.implied:
			line = "required by the policy: " + line
		}
		if c.bind != "" {
			line += " → " + c.bind
		}
		q.Steps = append(q.Steps, line)
		if o := x.outcomeOf(c.tool); o != nil && !c.lookup && c.fails == "" {
			q.Outcomes = append(q.Outcomes, humanize(o.field.Name)+" "+o.words()+" (not "+strings.Join(o.othersWords(), " or ")+")")
		}
	}
	for _, f := range t.facts {
		v := strings.TrimSuffix(strings.TrimPrefix(f, "“"), "”")
		if !slices.Contains(q.Values, v) {
			q.Values = append(q.Values, v)
		}
	}
	slices.Sort(q.Forbidden)
	return q
}

// maskIDs is v with the strings secret reports replaced by [id].
func maskIDs(v any, secret func(string) bool) any {
	switch y := v.(type) {
	case string:
		if secret(y) {
			return "[id]"
		}
	case []any:
		out := make([]any, len(y))
		for i, e := range y {
			out[i] = maskIDs(e, secret)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range y {
			if secret(k) {
				k = "[id]"
			}
			out[k] = maskIDs(e, secret)
		}
		return out
	}
	return v
}

func strconvQuote(s string) string { return string(toJSON(s)) }

// CheckWords checks words written for task i of r.Tasks: the dataflow
// check of the template words (every value the solution needs given or
// observed, the outcome said), no internal id in the instruction or the
// persona, and a form the spec holds (not empty, bounded, printable).
func (r *Result) CheckWords(i int, w Words) WordsProblems {
	t := r.kept[i]
	var p WordsProblems
	switch {
	case strings.TrimSpace(w.Instruction) == "" || strings.TrimSpace(w.Persona) == "":
		p.Form = "the persona and the instruction must not be empty"
	case len(w.Instruction) > maxInstruction || len(w.Persona) > maxPersona:
		p.Form = fmt.Sprintf("the instruction has at most %d bytes, the persona %d", maxInstruction, maxPersona)
	case !printable(w.Instruction) || !printable(w.Persona):
		p.Form = "the persona and the instruction are one line of printable UTF-8 text each"
	}
	if p.Form != "" {
		return p
	}
	p.Missing, p.Leaked = r.x.wordProblems(t, w.Instruction)
	_, leakedPersona := r.x.wordProblems(&task{facts: t.facts}, w.Persona)
	for _, l := range leakedPersona {
		if !slices.Contains(p.Leaked, l) {
			p.Leaked = append(p.Leaked, l)
		}
	}
	return p
}

// printable reports whether s is valid UTF-8 without control characters
// (line breaks included: an instruction is one paragraph).
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// SetWords replaces the words of the tasks for which ws holds any (a
// zero Words keeps the template's) and writes the spec and the metadata
// again; count goes into the summary. Every replacement must pass
// CheckWords; the written spec is checked again as a whole.
func (r *Result) SetWords(ws []Words, count WordsCount) error {
	if len(ws) != len(r.kept) {
		return fmt.Errorf("tasks: %d words for %d tasks", len(ws), len(r.kept))
	}
	for i, w := range ws {
		if w == (Words{}) {
			continue
		}
		if p := r.CheckWords(i, w); !p.OK() {
			return fmt.Errorf("tasks: the words of %s do not pass the check (%s)", r.kept[i].name, p.Reason())
		}
	}
	for i, w := range ws {
		if w == (Words{}) {
			continue
		}
		t := r.kept[i]
		t.persona, t.instruction, t.llm = w.Persona, w.Instruction, true
	}
	x := r.x
	out, err := x.emit(r.src, r.kept)
	if err != nil {
		return err
	}
	if _, diags := compiler.CheckSource(x.opts.Filename, out, x.checkOpts()...); diags.HasErrors() {
		return fmt.Errorf("tasks: the spec with the new words does not check:\n%s", firstLines(diags.Text(), 20))
	}
	summary := r.Summary
	nr := x.result(out, r.kept)
	nr.src, nr.Summary = r.src, summary
	nr.Summary.Words = &count
	*r = *nr
	return nil
}
