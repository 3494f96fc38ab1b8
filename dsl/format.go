package dsl

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format prints f in the canonical layout of the language, the one
// `worldc fmt` writes:
//
//   - two spaces of indentation; one prop, field, tool, statement, seed
//     record, assertion or solution call per line; a block opens at the end
//     of its header line and closes on a line of its own, and an empty
//     block is written `{}`;
//   - one blank line between top-level declarations; inside a block a blank
//     line of the source is kept (several become one), except right after
//     `{` and right before `}`;
//   - consecutive lines of one block (up to a blank line) are aligned in
//     columns: world props after the key, entity fields after the name,
//     seed records after the entity and after the handle, a task's persona,
//     instruction and tags after the keyword; trailing comments of
//     consecutive lines start in one column;
//   - strings are re-quoted with strconv.Quote; enum values are quoted only
//     when they are not identifiers; lists separated by commas get `, `;
//   - expressions are printed from the tree: every parenthesis of the source
//     is kept (the tree records it) and none is added, so the grouping never
//     changes.
//
// Comments (f.Comments) are kept, each exactly once: a comment on its own
// line stays before the line-level construct it precedes; a comment after
// the last token of a line stays at the end of that line; a comment inside
// a construct that is printed on one line (inside an expression, between a
// seed record's fields) moves to its own line before that construct.
// Placement uses the token positions recorded by Parse; on a tree built by
// hand, comments go to the nearest line-level position.
//
// Formatting is a fixed point: Format(Parse(Format(f))) == Format(f), and
// parsing the output gives the tree of f again (positions aside).
func Format(f *File) []byte {
	if f == nil {
		return nil
	}
	p := &printer{
		comments:   sortedComments(f.Comments),
		tokens:     f.tokens,
		trailIdx:   -1,
		blockStart: true,
	}
	for _, d := range f.Decls {
		p.decl(d)
		p.needBlank = true
	}
	p.flush(math.MaxInt, 0)
	return p.render()
}

// FormatSource parses src and returns it in the canonical layout. A syntax
// error is returned as an *Error.
func FormatSource(filename string, src []byte) ([]byte, error) {
	f, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return Format(f), nil
}

func sortedComments(cs []*Comment) []*Comment {
	out := make([]*Comment, 0, len(cs))
	for _, c := range cs {
		if c != nil {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Offset < out[j].Pos.Offset })
	return out
}

// printer lays out a file as a list of output lines, placing comments by
// source position, then renders the lines with column alignment.
type printer struct {
	comments []*Comment
	next     int // the first comment not printed yet
	tokens   []tokenPos

	out    []outLine
	indent int

	// lastLine is the source line of the last thing printed, to keep blank
	// lines of the source; 0 before anything.
	lastLine int
	// trailIdx is the output line a comment on source line trailLine joins
	// as a trailing comment; -1 when none may.
	trailIdx  int
	trailLine int
	// blockStart is set while nothing was printed since a `{` or the start
	// of the file: no blank line goes there.
	blockStart bool
	// needBlank asks for a blank line before the next line of its own (the
	// separation of top-level declarations).
	needBlank bool
}

// outLine is one output line: a blank line (no cells, no comment), a
// comment on its own line (no cells), or a line of cells with an optional
// trailing comment. Cells before the last are padded into columns.
type outLine struct {
	indent  int
	cells   []string
	comment string
}

// flush prints, at indent, the comments that start before offset limit: a
// comment on the source line where the last printed line ended joins it as
// a trailing comment, the others get lines of their own.
func (p *printer) flush(limit, indent int) {
	p.flushFrom(limit, indent, 0)
}

// flushFrom is flush for comments moved out of a construct that starts on
// source line startLine (when not 0): a blank line goes before them only
// where the source has one before the construct.
func (p *printer) flushFrom(limit, indent, startLine int) {
	for p.next < len(p.comments) && p.comments[p.next].Pos.Offset < limit {
		c := p.comments[p.next]
		p.next++
		if p.trailIdx >= 0 && c.Pos.Line == p.trailLine && p.out[p.trailIdx].comment == "" {
			p.out[p.trailIdx].comment = c.Text
			p.trailIdx = -1
			p.lastLine = max(p.lastLine, c.Pos.Line)
			continue
		}
		if startLine > 0 {
			p.space(startLine)
		} else {
			p.space(c.Pos.Line)
		}
		p.out = append(p.out, outLine{indent: indent, comment: c.Text})
		p.trailIdx = -1
		p.lastLine = max(p.lastLine, c.Pos.Line)
	}
}

// hasCommentIn reports whether a comment not printed yet starts after
// offset lo and before offset hi.
func (p *printer) hasCommentIn(lo, hi int) bool {
	rest := p.comments[p.next:]
	i := sort.Search(len(rest), func(i int) bool { return rest[i].Pos.Offset > lo })
	return i < len(rest) && rest[i].Pos.Offset < hi
}

// space prints a blank line before a line of its own that starts on source
// line line, when the source had one there or a declaration ended.
func (p *printer) space(line int) {
	if p.needBlank || (!p.blockStart && p.lastLine > 0 && line > p.lastLine+1) {
		p.out = append(p.out, outLine{indent: p.indent})
	}
	p.needBlank = false
	p.blockStart = false
}

// emit appends a line of cells whose last token ends on source line
// endLine.
func (p *printer) emit(startLine, endLine int, cells ...string) {
	p.space(startLine)
	p.out = append(p.out, outLine{indent: p.indent, cells: cells})
	p.trailIdx = len(p.out) - 1
	p.trailLine = endLine
	p.lastLine = max(p.lastLine, endLine)
}

// line prints a line-level construct spanning [start, end) in the source.
// Comments before it are printed first; comments inside it move before it.
func (p *printer) line(start, end Pos, cells ...string) {
	p.flush(start.Offset, p.indent)
	p.moveInner(start, end.Offset)
	p.emit(start.Line, end.Line, cells...)
}

// moveInner prints the comments inside the construct about to be printed,
// which starts at start, up to offset limit, on lines of their own before
// it.
func (p *printer) moveInner(start Pos, limit int) {
	p.trailIdx = -1
	p.flushFrom(limit, p.indent, start.Line)
}

// open prints the header line of a block: the header spans from start to
// the `{` at brace.
func (p *printer) open(start, brace Pos, header string) {
	p.flush(start.Offset, p.indent)
	p.moveInner(start, brace.Offset+1)
	p.emit(start.Line, brace.Line, header+" {")
	p.indent++
	p.blockStart = true
}

// close prints the `}` that ends just before end. Comments before it stay
// inside the block.
func (p *printer) close(end Pos) {
	p.flush(end.Offset-1, p.indent)
	p.indent--
	p.out = append(p.out, outLine{indent: p.indent, cells: []string{"}"}})
	p.trailIdx = len(p.out) - 1
	p.trailLine = end.Line
	p.lastLine = max(p.lastLine, end.Line)
	p.blockStart = false
}

// reopen prints `} else … {`: the block that ends at the `}` before end
// closes and the one opening at brace starts. Comments between them stay
// in the first block.
func (p *printer) reopen(brace Pos, text string) {
	p.flush(brace.Offset, p.indent)
	p.indent--
	p.out = append(p.out, outLine{indent: p.indent, cells: []string{text}})
	p.trailIdx = len(p.out) - 1
	p.trailLine = brace.Line
	p.lastLine = max(p.lastLine, brace.Line)
	p.indent++
	p.blockStart = true
}

// block prints `header {`, n children and `}`; a block with no children
// and no comment inside is printed `header {}` on one line.
func (p *printer) block(start, brace, end Pos, header string, n int, child func(i int)) {
	if n == 0 && !p.hasCommentIn(brace.Offset, end.Offset-1) {
		p.line(start, end, header+" {}")
		return
	}
	p.open(start, brace, header)
	for i := range n {
		child(i)
	}
	p.close(end)
}

// tok returns the position of the token k tokens away from the token at
// base, as recorded by Parse; base itself when it is not known.
func (p *printer) tok(base Pos, k int) Pos {
	i := tokenIndex(p.tokens, base.Offset)
	if i < 0 || i+k < 0 || i+k >= len(p.tokens) {
		return base
	}
	t := p.tokens[i+k]
	return Pos{Filename: base.Filename, Offset: t.offset, Line: t.line}
}

// after is the end of a span whose last token (a string or a punctuation
// mark, on one line) starts at pos.
func after(pos Pos) Pos {
	pos.Offset++
	return pos
}

func (p *printer) decl(d *Decl) {
	switch {
	case d == nil:
	case d.World != nil:
		p.world(d.World)
	case d.Service != nil:
		p.service(d.Service)
	case d.Record != nil:
		p.record(d.Record)
	case d.Invariant != nil:
		p.invariant(d.Invariant)
	case d.Rule != nil:
		p.rule(d.Rule)
	case d.Seed != nil:
		p.seed(d.Seed)
	case d.Task != nil:
		p.task(d.Task)
	}
}

func (p *printer) world(w *World) {
	p.block(w.Pos, p.tok(w.Pos, 2), w.EndPos, "world "+w.Name, len(w.Props), func(i int) {
		pr := w.Props[i]
		if pr == nil {
			return
		}
		if pr.From != nil {
			p.line(pr.Pos, pr.EndPos, pr.Key, "from "+strconv.Quote(*pr.From))
			return
		}
		p.line(pr.Pos, pr.EndPos, pr.Key, literal(pr.Value))
	})
}

// docTokens is the number of tokens a doc string adds to a header.
func docTokens(doc *string) int {
	if doc != nil {
		return 1
	}
	return 0
}

func (p *printer) service(s *Service) {
	header := "service " + s.Name + doc(s.Doc)
	p.block(s.Pos, p.tok(s.Pos, 2+docTokens(s.Doc)), s.EndPos, header, len(s.Members), func(i int) {
		m := s.Members[i]
		switch {
		case m == nil:
		case m.Entity != nil:
			p.entity(m.Entity)
		case m.Record != nil:
			p.record(m.Record)
		case m.Tool != nil:
			p.tool(m.Tool)
		}
	})
}

func (p *printer) entity(e *Entity) {
	header := "entity " + e.Name
	keyTokens := 0
	if e.Key != nil {
		header += " key " + *e.Key
		keyTokens = 2
	}
	header += doc(e.Doc)
	p.block(e.Pos, p.tok(e.Pos, 2+keyTokens+docTokens(e.Doc)), e.EndPos, header, len(e.Fields), func(i int) {
		p.field(e.Fields[i])
	})
}

// field prints an entity or record field: the name, then the type,
// constraints and doc, aligned in two columns with its neighbours.
func (p *printer) field(f *Field) {
	if f == nil {
		return
	}
	rest := typ(f.Type)
	for _, c := range f.Constraints {
		rest += " " + constraint(c)
	}
	rest += doc(f.Doc)
	p.line(f.Pos, f.EndPos, f.Name, rest)
}

// record prints a value record: its fields, then each case as a block of
// its own fields.
func (p *printer) record(r *RecordDecl) {
	header := "record " + r.Name
	byTokens := 0
	if r.By != nil {
		header += " by " + *r.By
		byTokens = 2
	}
	header += doc(r.Doc)
	p.block(r.Pos, p.tok(r.Pos, 2+byTokens+docTokens(r.Doc)), r.EndPos, header, len(r.Items), func(i int) {
		it := r.Items[i]
		switch {
		case it == nil:
		case it.Field != nil:
			p.field(it.Field)
		case it.Case != nil:
			c := it.Case
			p.block(c.Pos, p.tok(c.Pos, 2), c.EndPos, "case "+c.Name, len(c.Fields), func(j int) {
				p.field(c.Fields[j])
			})
		}
	})
}

func (p *printer) tool(t *Tool) {
	switch {
	case t.Std != nil:
		s := t.Std
		text := "tool " + t.Name + ": " + s.Kind + " " + qualName(s.Entity)
		if len(s.By) > 0 {
			text += " by " + strings.Join(s.By, ", ")
		}
		p.line(t.Pos, t.EndPos, text+doc(s.Doc))
	case t.Custom != nil:
		c := t.Custom
		params := make([]string, 0, len(c.Params))
		for _, prm := range c.Params {
			if prm != nil {
				params = append(params, prm.Name+": "+typ(prm.Type)+doc(prm.Doc))
			}
		}
		header := "tool " + t.Name + "(" + strings.Join(params, ", ") + ")" + doc(c.Doc)
		if c.Body == nil {
			p.line(t.Pos, t.EndPos, header+" {}")
			return
		}
		p.stmtBlock(t.Pos, header, c.Body)
	default:
		p.line(t.Pos, t.EndPos, "tool "+t.Name)
	}
}

// stmtBlock prints `header {` statements `}` for a block that starts at
// body.Pos.
func (p *printer) stmtBlock(start Pos, header string, body *Block) {
	p.block(start, body.Pos, body.EndPos, header, len(body.Stmts), func(i int) {
		p.stmt(body.Stmts[i])
	})
}

func (p *printer) stmt(s *Stmt) {
	switch {
	case s == nil:
	case s.Require != nil:
		msg := strconv.Quote(s.Require.Message)
		if s.Require.MessageExpr != nil {
			msg = exprString(s.Require.MessageExpr)
		}
		p.line(s.Pos, s.EndPos, "require "+exprString(s.Require.Cond)+" else "+msg)
	case s.Fail != nil:
		p.line(s.Pos, s.EndPos, "fail "+exprString(s.Fail.Message))
	case s.Var != nil:
		decl := "var " + s.Var.Name
		if s.Var.Type != nil {
			decl += ": " + typ(s.Var.Type)
		}
		p.line(s.Pos, s.EndPos, decl+" = "+exprString(s.Var.Value))
	case s.Let != nil:
		value := insertString(s.Let.Insert)
		if s.Let.Insert == nil {
			value = exprString(s.Let.Value)
		}
		p.line(s.Pos, s.EndPos, "let "+s.Let.Name+" = "+value)
	case s.Set != nil:
		var w exprWriter
		w.postfix(s.Set.Target)
		w.WriteString(" = ")
		w.expr(s.Set.Value)
		p.line(s.Pos, s.EndPos, "set "+w.String())
	case s.Insert != nil:
		p.line(s.Pos, s.EndPos, insertString(s.Insert))
	case s.Delete != nil:
		p.line(s.Pos, s.EndPos, "delete "+exprString(s.Delete.Target))
	case s.Return != nil:
		p.line(s.Pos, s.EndPos, "return "+exprString(s.Return.Value))
	case s.If != nil:
		p.ifStmt(s.If)
	case s.For != nil:
		f := s.For
		source := postfixString(f.Source)
		if f.To != nil {
			source += ".." + postfixString(f.To)
		}
		header := "for " + f.Var + " in " + source
		if f.Key != "" {
			header = "for " + f.Key + ", " + f.Var + " in " + source
		}
		if f.Where != nil {
			header += " where " + exprString(f.Where)
		}
		if f.Body == nil {
			p.line(s.Pos, s.EndPos, header+" {}")
			return
		}
		p.stmtBlock(s.Pos, header, f.Body)
	}
}

// ifStmt prints an if / else if / else chain. Its blocks are never folded
// to `{}`, so that `} else` always has a `}` to follow.
func (p *printer) ifStmt(s *If) {
	if s.Then == nil {
		return
	}
	p.open(s.Pos, s.Then.Pos, "if "+exprString(s.Cond))
	p.stmts(s.Then.Stmts)
	for {
		switch {
		case s.ElseIf != nil && s.ElseIf.Then != nil:
			p.reopen(s.ElseIf.Then.Pos, "} else if "+exprString(s.ElseIf.Cond)+" {")
			s = s.ElseIf
			p.stmts(s.Then.Stmts)
			continue
		case s.Else != nil:
			p.reopen(s.Else.Pos, "} else {")
			p.stmts(s.Else.Stmts)
			p.close(s.Else.EndPos)
		default:
			p.close(s.Then.EndPos)
		}
		return
	}
}

func (p *printer) stmts(ss []*Stmt) {
	for _, s := range ss {
		p.stmt(s)
	}
}

func (p *printer) invariant(inv *Invariant) {
	header, k := "invariant "+inv.Name, 0
	if inv.Always {
		header, k = "always "+header, k+1
	}
	if inv.Local {
		header, k = "local "+header, k+1
	}
	p.open(inv.Pos, p.tok(inv.Pos, 2+k), header)
	p.line(p.tok(inv.Pos, 3+k), after(p.tok(inv.Pos, 4+k)), "policy "+strconv.Quote(inv.Policy))
	forLine := "for " + inv.Var + " in " + postfixString(inv.Source)
	forEnd := endOf(inv.Source)
	if inv.Where != nil {
		forLine += " where " + exprString(inv.Where)
		forEnd = inv.Where.EndPos
	}
	p.line(p.tok(inv.Pos, 5+k), forEnd, forLine)
	if inv.Check != nil {
		p.line(p.tok(inv.Check.Pos, -1), inv.Check.EndPos, "require "+exprString(inv.Check))
	}
	p.close(inv.EndPos)
}

func (p *printer) rule(r *Rule) {
	p.open(r.Pos, p.tok(r.Pos, 2), "rule "+r.Name)
	p.line(p.tok(r.Pos, 3), after(p.tok(r.Pos, 4)), "policy "+strconv.Quote(r.Policy))
	on := "on " + strings.Join(r.Tool, ".")
	if r.Params != nil {
		on += "(" + strings.Join(r.Params, ", ") + ")"
	}
	onEnd := 2*len(r.Tool) - 1 // the tokens of the tool's name
	if r.Params != nil {
		onEnd += 2 + max(2*len(r.Params)-1, 0)
	}
	p.line(p.tok(r.Pos, 5), after(p.tok(r.Pos, 5+onEnd)), on)
	if r.Check != nil {
		p.line(p.tok(r.Check.Pos, -1), r.Check.EndPos, "require "+exprString(r.Check))
	}
	p.close(r.EndPos)
}

func endOf(x *Postfix) Pos {
	if x == nil {
		return Pos{}
	}
	return x.EndPos
}

func (p *printer) seed(s *Seed) {
	// Records and loads, each list in source order, interleaved by position.
	type item struct {
		r *Record
		l *Load
	}
	items := make([]item, 0, len(s.Records)+len(s.Loads))
	ri, li := 0, 0
	for ri < len(s.Records) || li < len(s.Loads) {
		if li == len(s.Loads) || ri < len(s.Records) && s.Records[ri] != nil && s.Loads[li] != nil && s.Records[ri].Pos.Offset <= s.Loads[li].Pos.Offset {
			items = append(items, item{r: s.Records[ri]})
			ri++
		} else {
			items = append(items, item{l: s.Loads[li]})
			li++
		}
	}
	p.block(s.Pos, p.tok(s.Pos, 1), s.EndPos, "seed", len(items), func(i int) {
		if l := items[i].l; l != nil {
			text := "load " + qualName(l.Entity) + " from " + strconv.Quote(l.From)
			if l.At != nil {
				text += " at " + strconv.Quote(*l.At)
			}
			if len(l.Fields) > 0 {
				fields := make([]string, 0, len(l.Fields))
				for _, f := range l.Fields {
					if f != nil {
						fields = append(fields, f.Name+": "+strconv.Quote(f.Source))
					}
				}
				text += " " + braced(fields, ", ")
			}
			p.line(l.Pos, l.EndPos, text)
			return
		}
		r := items[i].r
		if r == nil {
			return
		}
		p.line(r.Pos, r.EndPos, qualName(r.Entity), r.Handle, fieldValues(r.Fields))
	})
}

// fieldValues is `{ name: value, … }`.
func fieldValues(fvs []*FieldValue) string {
	fields := make([]string, 0, len(fvs))
	for _, fv := range fvs {
		if fv != nil {
			fields = append(fields, fv.Name+": "+valueOf(fv.Composite, fv.Value))
		}
	}
	return braced(fields, ", ")
}

// valueOf prints a constant that is a composite or a literal.
func valueOf(c *Composite, l *Literal) string {
	if c != nil {
		return composite(c)
	}
	return literal(l)
}

// composite prints a list, map or record constant on one line.
func composite(c *Composite) string {
	switch {
	case c == nil:
		return ""
	case c.List != nil:
		elems := make([]string, 0, len(c.List.Elems))
		for _, v := range c.List.Elems {
			if v != nil {
				elems = append(elems, valueOf(v.Composite, v.Lit))
			}
		}
		return "[" + strings.Join(elems, ", ") + "]"
	case c.Map != nil:
		entries := make([]string, 0, len(c.Map.Entries))
		for _, e := range c.Map.Entries {
			if e != nil && e.Value != nil {
				entries = append(entries, strconv.Quote(e.Key)+": "+valueOf(e.Value.Composite, e.Value.Lit))
			}
		}
		return braced(entries, ", ")
	case c.Record != nil:
		return c.Record.Name + " " + fieldValues(c.Record.Fields)
	}
	return ""
}

func (p *printer) task(t *Task) {
	p.open(t.Pos, p.tok(t.Pos, 2), "task "+t.Name)
	p.line(p.tok(t.Pos, 3), after(p.tok(t.Pos, 4)), "persona", strconv.Quote(t.Persona))
	p.line(p.tok(t.Pos, 5), after(p.tok(t.Pos, 6)), "instruction", strconv.Quote(t.Instruction))
	for _, c := range t.Clock {
		if c != nil {
			p.line(c.Pos, c.EndPos, c.Key, literal(c.Value))
		}
	}
	if t.Tags != nil {
		p.line(p.tok(t.Tags.Pos, -1), t.Tags.EndPos, "tags", tagsString(t.Tags))
	}
	if m := t.Meta; m != nil {
		p.block(m.Pos, p.tok(m.Pos, 1), m.EndPos, "meta", len(m.Entries), func(i int) {
			if e := m.Entries[i]; e != nil && e.Value != nil {
				p.line(e.Pos, e.EndPos, e.Key+":", valueOf(e.Value.Composite, e.Value.Lit))
			}
		})
	}
	if t.Seed != nil {
		p.seed(t.Seed)
	}
	if e := t.Expect; e != nil {
		p.block(p.tok(e.Pos, -1), e.Pos, e.EndPos, "expect", len(e.Assertions), func(i int) {
			if a := e.Assertions[i]; a != nil {
				p.line(a.Pos, a.EndPos, a.String())
			}
		})
	}
	if s := t.Solution; s != nil {
		p.block(p.tok(s.Pos, -1), s.Pos, s.EndPos, "solution", len(s.Calls), func(i int) {
			c := s.Calls[i]
			if c == nil {
				return
			}
			args := make([]string, 0, len(c.Args))
			for _, a := range c.Args {
				if a != nil {
					args = append(args, a.Name+": "+valueOf(a.Composite, a.Value))
				}
			}
			text := c.Tool + "(" + strings.Join(args, ", ") + ")"
			if c.Fails != nil {
				text += " fails " + strconv.Quote(*c.Fails)
			}
			if c.Bind != nil {
				text = *c.Bind + " = " + text
			}
			p.line(c.Pos, c.EndPos, text)
		})
	}
	p.close(t.EndPos)
}

// String is the assertion in canonical form, on one line: what the
// formatter prints, and what reports name it by, whatever the source's
// layout.
func (a *Assertion) String() string {
	switch {
	case a.Invariant != nil:
		return "invariant " + *a.Invariant
	case a.Unchanged:
		text := "unchanged"
		for i, x := range a.Except {
			if i == 0 {
				text += " except "
			} else {
				text += ", "
			}
			text += postfixString(x)
		}
		return text
	case a.Answer != nil:
		return "answer " + exprString(a.Answer)
	case a.Expr != nil:
		return exprString(a.Expr)
	}
	return ""
}

func tagsString(t *Tags) string {
	var parts []string
	if t.Domain != nil {
		parts = append(parts, "domain "+strconv.Quote(*t.Domain))
	}
	if len(t.Capabilities) > 0 {
		parts = append(parts, "capabilities ["+strings.Join(t.Capabilities, " ")+"]")
	}
	if len(t.Difficulty) > 0 {
		parts = append(parts, "difficulty ["+strings.Join(t.Difficulty, " ")+"]")
	}
	return braced(parts, " ")
}

// braced is `{ a, b }`, or `{}` for no items.
func braced(items []string, sep string) string {
	if len(items) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(items, sep) + " }"
}

func doc(s *string) string {
	if s == nil {
		return ""
	}
	return " " + strconv.Quote(*s)
}

func qualName(q *QualName) string {
	if q == nil {
		return ""
	}
	return strings.Join(q.Parts, ".")
}

func typ(t *Type) string {
	if t == nil {
		return ""
	}
	var s string
	switch {
	case t.Enum != nil:
		values := make([]string, 0, len(t.Enum.Values))
		for _, v := range t.Enum.Values {
			if v == nil {
				continue
			}
			if isIdent(v.Name) {
				values = append(values, v.Name)
			} else {
				values = append(values, strconv.Quote(v.Name))
			}
		}
		s = "enum " + braced(values, " ")
	case t.Ref != nil:
		s = "ref " + qualName(t.Ref)
	case t.List != nil:
		s = "list<" + typ(t.List) + ">"
	case t.Map != nil:
		s = "map<" + t.Map.Key + ", " + typ(t.Map.Value) + ">"
	case t.Named != nil:
		s = qualName(t.Named)
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// isIdent reports whether s is an identifier token.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isIdentStart(c) && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func constraint(c *Constraint) string {
	switch {
	case c == nil:
		return ""
	case c.Unique:
		return "unique"
	case c.Default != nil:
		return "= " + literal(c.Default)
	default:
		return c.Op + " " + literal(c.Bound)
	}
}

func literal(l *Literal) string {
	switch {
	case l == nil:
		return ""
	case l.DateTime != nil:
		return *l.DateTime
	case l.Date != nil:
		return *l.Date
	case l.Number != nil:
		return *l.Number
	case l.String != nil:
		return strconv.Quote(*l.String)
	case l.Bool != nil:
		return *l.Bool
	case l.Null:
		return "null"
	case l.Ident != nil:
		return *l.Ident
	}
	return ""
}

func insertString(in *Insert) string {
	if in == nil {
		return ""
	}
	fields := make([]string, 0, len(in.Fields))
	for _, f := range in.Fields {
		if f != nil {
			fields = append(fields, f.Name+": "+exprString(f.Value))
		}
	}
	return "insert " + qualName(in.Entity) + " " + braced(fields, ", ")
}

func exprString(e *Expr) string {
	var w exprWriter
	w.expr(e)
	return w.String()
}

// String is the expression in canonical form, on one line.
func (x *Postfix) String() string { return postfixString(x) }

func postfixString(x *Postfix) string {
	var w exprWriter
	w.postfix(x)
	return w.String()
}

// exprWriter prints expressions level by level, exactly as the tree nests
// them: binary operators get a space on each side, and parentheses appear
// only where the tree has a Paren.
type exprWriter struct {
	strings.Builder
}

func (w *exprWriter) expr(e *Expr) {
	if e == nil {
		return
	}
	if c := e.If; c != nil {
		w.WriteString("if ")
		w.expr(c.Cond)
		w.WriteString(" then ")
		w.expr(c.Then)
		w.WriteString(" else ")
		w.expr(c.Else)
		return
	}
	w.and(e.Left)
	for _, r := range e.Right {
		w.WriteString(" or ")
		w.and(r)
	}
}

func (w *exprWriter) and(e *AndExpr) {
	if e == nil {
		return
	}
	w.not(e.Left)
	for _, r := range e.Right {
		w.WriteString(" and ")
		w.not(r)
	}
}

func (w *exprWriter) not(e *NotExpr) {
	for e != nil && e.Not != nil {
		w.WriteString("not ")
		e = e.Not
	}
	if e != nil {
		w.cmp(e.Cmp)
	}
}

func (w *exprWriter) cmp(e *CmpExpr) {
	if e == nil {
		return
	}
	w.add(e.Left)
	if e.Op != "" {
		op := e.Op
		if op == "notin" {
			op = "not in"
		}
		w.WriteString(" " + op + " ")
		w.add(e.Right)
	}
}

func (w *exprWriter) add(e *AddExpr) {
	if e == nil {
		return
	}
	w.mul(e.Left)
	for _, r := range e.Right {
		if r == nil {
			continue
		}
		w.WriteString(" " + r.Op + " ")
		w.mul(r.Operand)
	}
}

func (w *exprWriter) mul(e *MulExpr) {
	if e == nil {
		return
	}
	w.unary(e.Left)
	for _, r := range e.Right {
		if r == nil {
			continue
		}
		w.WriteString(" " + r.Op + " ")
		w.unary(r.Operand)
	}
}

func (w *exprWriter) unary(u *Unary) {
	for u != nil && u.Neg != nil {
		w.WriteByte('-')
		u = u.Neg
		if startsWithMinus(u) {
			w.WriteByte(' ')
		}
	}
	if u != nil {
		w.postfix(u.Postfix)
		if u.As != nil {
			w.WriteString(" as " + typ(u.As))
		}
	}
}

// startsWithMinus reports whether u prints with a leading `-`, which must
// not touch a preceding `-`.
func startsWithMinus(u *Unary) bool {
	if u.Neg != nil {
		return true
	}
	lit := u.Postfix
	return lit != nil && lit.Primary != nil && lit.Primary.Lit != nil &&
		lit.Primary.Lit.Number != nil && strings.HasPrefix(*lit.Primary.Lit.Number, "-")
}

func (w *exprWriter) postfix(x *Postfix) {
	if x == nil {
		return
	}
	w.primary(x.Primary)
	for _, s := range x.Suffixes {
		switch {
		case s == nil:
		case s.Field != nil:
			w.WriteString("." + *s.Field)
		default:
			w.WriteByte('[')
			w.expr(s.Index)
			w.WriteByte(']')
		}
	}
}

func (w *exprWriter) primary(p *Primary) {
	switch {
	case p == nil:
	case p.Agg != nil:
		a := p.Agg
		w.WriteString(a.Op() + "(")
		if a.Kind == "" {
			w.expr(a.Value)
			w.WriteString(" for ")
		}
		w.WriteString(a.Var + " in ")
		w.postfix(a.Source)
		if a.Where != nil {
			w.WriteString(" where ")
			w.expr(a.Where)
		}
		w.WriteByte(')')
	case p.Call != nil:
		w.WriteString(p.Call.Func + "(")
		for i, arg := range p.Call.Args {
			if i > 0 {
				w.WriteString(", ")
			}
			w.expr(arg)
		}
		w.WriteByte(')')
	case p.Lit != nil:
		w.WriteString(literal(p.Lit))
	case p.List != nil:
		w.WriteByte('[')
		for i, el := range p.List.Elems {
			if i > 0 {
				w.WriteString(", ")
			}
			w.expr(el)
		}
		w.WriteByte(']')
	case p.Struct != nil:
		w.WriteString(p.Struct.QualifiedName() + " ")
		w.fieldInits(p.Struct.Fields)
	case p.Match != nil:
		w.WriteString("matches(")
		w.expr(p.Match.X)
		w.WriteString(", ")
		w.fieldInits(p.Match.Fields)
		w.WriteByte(')')
	case p.Map != nil:
		if len(p.Map.Entries) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{ ")
		for i, e := range p.Map.Entries {
			if i > 0 {
				w.WriteString(", ")
			}
			if e != nil {
				w.WriteString(strconv.Quote(e.Key) + ": ")
				w.expr(e.Value)
			}
		}
		w.WriteString(" }")
	case p.Paren != nil:
		w.WriteByte('(')
		w.expr(p.Paren)
		w.WriteByte(')')
	}
}

// fieldInits writes `{ name: value, … }`, or `{}` when there are none.
func (w *exprWriter) fieldInits(fields []*FieldInit) {
	if len(fields) == 0 {
		w.WriteString("{}")
		return
	}
	w.WriteString("{ ")
	for i, f := range fields {
		if i > 0 {
			w.WriteString(", ")
		}
		if f != nil {
			w.WriteString(f.Name + ": ")
			w.expr(f.Value)
		}
	}
	w.WriteString(" }")
}

// render writes the lines. Runs of non-blank lines at one indentation form
// a section; in a section every cell but a line's last is padded to the
// widest cell of its column, and the trailing comments of consecutive lines
// start in one column.
func (p *printer) render() []byte {
	var b bytes.Buffer
	out := p.out
	for len(out) > 0 && out[len(out)-1].cells == nil && out[len(out)-1].comment == "" {
		out = out[:len(out)-1]
	}
	for i := 0; i < len(out); {
		if isBlank(out[i]) {
			b.WriteByte('\n')
			i++
			continue
		}
		j := i + 1
		for j < len(out) && !isBlank(out[j]) && out[j].indent == out[i].indent {
			j++
		}
		renderSection(&b, out[i:j])
		i = j
	}
	return b.Bytes()
}

func isBlank(l outLine) bool { return l.cells == nil && l.comment == "" }

func renderSection(b *bytes.Buffer, lines []outLine) {
	var widths []int
	for _, l := range lines {
		for k := 0; k < len(l.cells)-1; k++ {
			if k == len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], utf8.RuneCountInString(l.cells[k]))
		}
	}
	texts := make([]string, len(lines))
	for i, l := range lines {
		var t strings.Builder
		for k, c := range l.cells {
			t.WriteString(c)
			if k < len(l.cells)-1 {
				t.WriteString(strings.Repeat(" ", widths[k]-utf8.RuneCountInString(c)+1))
			}
		}
		texts[i] = t.String()
	}
	indent := ""
	if len(lines) > 0 {
		indent = strings.Repeat("  ", max(lines[0].indent, 0))
	}
	level := 0
	if len(lines) > 0 {
		level = max(lines[0].indent, 0)
	}
	for i := 0; i < len(lines); {
		l := lines[i]
		if l.cells == nil {
			b.WriteString(indent + l.comment + "\n")
			i++
			continue
		}
		if len(indent)+utf8.RuneCountInString(texts[i]) > lineWidth {
			// A long line of one construct: broken at its brackets, its
			// trailing comment after the last line.
			wrapped := wrapLine(texts[i], level)
			for k, w := range wrapped {
				b.WriteString(w)
				if k == len(wrapped)-1 && l.comment != "" {
					b.WriteString(" " + l.comment)
				}
				b.WriteByte('\n')
			}
			i++
			continue
		}
		if l.comment == "" {
			b.WriteString(indent + texts[i] + "\n")
			i++
			continue
		}
		// A run of consecutive lines with trailing comments.
		j, col := i, 0
		for j < len(lines) && lines[j].cells != nil && lines[j].comment != "" && len(indent)+utf8.RuneCountInString(texts[j]) <= lineWidth {
			col = max(col, utf8.RuneCountInString(texts[j]))
			j++
		}
		for k := i; k < j; k++ {
			pad := strings.Repeat(" ", col-utf8.RuneCountInString(texts[k])+1)
			b.WriteString(indent + texts[k] + pad + lines[k].comment + "\n")
		}
		i = j
	}
}

// lineWidth is the width, indentation included, beyond which a line of one
// construct is broken at its brackets.
const lineWidth = 100

// wrapLine lays out text, one line of one construct at indentation level,
// in lines of at most lineWidth where it can. A require's ` else
// "message"` goes on a line of its own, one level deeper. Otherwise the
// longest bracketed list on the line — ( ), [ ] or { } holding commas
// outside any inner bracket or string, and at least minListWidth long —
// puts each of its items on a line of its own, one level deeper, and its
// closing bracket and the rest of the line on the next. The parts are laid
// out the same way. A line with neither stays as it is. The result is a
// pure function of the one-line text, so formatting stays a fixed point,
// and it parses as the same tree: the language separates tokens by any
// white space.
func wrapLine(text string, level int) []string {
	indent := strings.Repeat("  ", level)
	if len(indent)+utf8.RuneCountInString(text) <= lineWidth {
		return []string{indent + text}
	}
	if k := topLevelElse(text); k > 0 {
		return append(wrapLine(text[:k], level), wrapLine(text[k+1:], level+1)...)
	}
	open, close := longestList(text)
	if open < 0 || close-open-1 < minListWidth {
		return []string{indent + text}
	}
	out := []string{indent + text[:open+1]}
	items := splitTopLevel(text[open+1:close], ',')
	for k, it := range items {
		if k < len(items)-1 {
			it += ","
		}
		out = append(out, wrapLine(it, level+1)...)
	}
	return append(out, wrapLine(text[close:], level)...)
}

// minListWidth is the length below which a bracketed list is not worth a
// line per item (`["DE", "FR"]` stays on its line).
const minListWidth = 30

// longestList returns the byte offsets of the brackets of the longest
// bracketed list at the top level of text that holds a comma of its own;
// -1, -1 when there is none.
func longestList(text string) (open, close int) {
	open, close = -1, -1
	var stack []int
	commas := map[int]bool{} // open offsets whose list has a comma
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '"':
			i = skipString(text, i)
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			if len(stack) == 0 || !matches(text[stack[len(stack)-1]], c) {
				return -1, -1 // unbalanced: leave the line alone
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && commas[o] && i-o > close-open {
				open, close = o, i
			}
		case ',':
			if len(stack) > 0 {
				commas[stack[len(stack)-1]] = true
			}
		}
	}
	return open, close
}

// topLevelElse returns the offset of the space before the first ` else `
// of text outside brackets and strings that is not the else of a
// conditional expression (`if c then a else b`: each ` then ` awaits its
// else); -1 when there is none.
func topLevelElse(text string) int {
	depth, thens := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = skipString(text, i)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ' ':
			switch {
			case depth != 0:
			case strings.HasPrefix(text[i:], " then "):
				thens++
			case strings.HasPrefix(text[i:], " else ") && thens > 0:
				thens--
			case strings.HasPrefix(text[i:], " else "):
				return i
			}
		}
	}
	return -1
}

func matches(open, close byte) bool {
	return open == '(' && close == ')' || open == '[' && close == ']' || open == '{' && close == '}'
}

// skipString returns the offset of the quote that closes the string
// starting at text[i] (the last offset when it is not closed).
func skipString(text string, i int) int {
	for i++; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(text) - 1
}
