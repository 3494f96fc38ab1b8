package gen

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/jsonobj"
)

// toolsFile renders the argument structs, the tool methods, their JSON
// handlers and schemas, and the registry.
func (g *generator) toolsFile(f *goFile) {
	f.Anon("embed")
	f.Comment("pageSize is the most records a list or search tool returns.")
	f.Const().Id("pageSize").Op("=").Lit(ir.PageSize)
	f.Line()
	for _, t := range g.w.Tools {
		restore := g.at(toolOrigin(t))
		g.named(ir.Named{Kind: "tool", Name: t.Name}, toolOrigin(t))
		g.argsType(f, t)
		g.argsDecoder(f, t)
		g.toolMethod(f, t)
		g.toolHandler(f, t)
		restore()
	}
	g.registry(f)
}

func (g *generator) toolDescription(t *ir.Tool) string {
	if d := oneLine(t.Doc); d != "" {
		return d
	}
	if t.Entity != nil {
		e := t.Entity.Name
		switch t.Kind {
		case ir.ToolGet:
			return fmt.Sprintf("Get a %s by id.", e)
		case ir.ToolList:
			return fmt.Sprintf("List %s records in order, %d at a time from offset.", e, ir.PageSize)
		case ir.ToolSearch:
			var by []string
			for _, f := range t.By {
				by = append(by, f.Name)
			}
			return fmt.Sprintf("Search %s records by %s (at most %d).", e, strings.Join(by, ", "), ir.PageSize)
		case ir.ToolCreate:
			return fmt.Sprintf("Create a %s.", e)
		case ir.ToolUpdate:
			return fmt.Sprintf("Update fields of a %s; omitted fields are unchanged.", e)
		case ir.ToolDelete:
			return fmt.Sprintf("Delete a %s that no other record refers to.", e)
		}
	}
	return sentence(strings.ReplaceAll(t.Name, "_", " "))
}

func (g *generator) paramDescription(t *ir.Tool, p *ir.Param) string {
	var parts []string
	if d := oneLine(p.Doc); d != "" {
		parts = append(parts, sentence(d))
	} else if p.Field != nil && oneLine(p.Field.Doc) != "" {
		parts = append(parts, sentence(p.Field.Doc))
	}
	switch p.Type.Kind {
	case ir.KindRef:
		s := fmt.Sprintf("The id of a %s record", p.Type.Entity.Name)
		if ex := g.exampleID(p.Type.Entity); ex != "" {
			s += fmt.Sprintf(" (e.g. %q)", ex)
		}
		parts = append(parts, s+".")
	case ir.KindMoney:
		if g.w.Currency != "" {
			parts = append(parts, "Amount in "+oneLine(g.w.Currency)+".")
		}
	case ir.KindDate:
		parts = append(parts, "A date, YYYY-MM-DD.")
	case ir.KindDateTime:
		parts = append(parts, "A date-time, RFC 3339 in UTC (2026-03-14T09:30:00Z).")
	}
	switch {
	case t.Kind == ir.ToolSearch:
		if p.Type.Kind.Textual() {
			parts = append(parts, "Matches records containing this text, ignoring case; null for any.")
		} else {
			parts = append(parts, "Matches records with this value; null for any.")
		}
	case t.Kind == ir.ToolUpdate && p.Field != nil:
		parts = append(parts, "Null leaves the field unchanged.")
	case t.Kind == ir.ToolCreate && p.Field != nil && p.Field.Default != nil:
		parts = append(parts, "Null for the default.")
	case t.Kind == ir.ToolList && p.Name == "offset":
		parts = append(parts, "Number of records to skip; null for 0.")
	case p.Type.Optional:
		parts = append(parts, "Optional: null when not given.")
	}
	return strings.Join(parts, " ")
}

// exampleID is an id of the form of e's records' ids that is no
// record's, for the schemas' examples: a real id would hand the agent a
// record a task uses, and it could skip the lookups the task tests. The
// form is the first seed record's: its prefix up to the last underscore
// and "example" (ph_lefevre → ph_example), or its digits zeroed
// (#W2378156 → #W0000000); a digit is appended until no record of the
// world or of a task's seed has the id. "" when e has no seed record.
func (g *generator) exampleID(e *ir.Entity) string {
	first := ""
	for _, r := range g.w.Seed {
		if r.Entity == e {
			first = r.ID
			break
		}
	}
	if first == "" {
		return ""
	}
	var ex string
	if i := strings.LastIndexByte(first, '_'); i > 0 {
		ex = first[:i+1] + "example"
	} else if strings.ContainsAny(first, "0123456789") {
		ex = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '0'
			}
			return r
		}, first)
	} else {
		ex = first + "_example"
	}
	isRecord := func(id string) bool {
		for _, r := range g.w.Seed {
			if r.ID == id {
				return true
			}
		}
		for _, t := range g.w.Tasks {
			for _, r := range t.Seed {
				if r.ID == id {
					return true
				}
			}
		}
		return false
	}
	for n, base := 2, ex; isRecord(ex); n++ {
		ex = base + strconv.Itoa(n)
	}
	return ex
}

// argsType renders the tool's argument struct.
func (g *generator) argsType(f *goFile, t *ir.Tool) {
	ti := g.tools[t]
	f.Commentf("%s are the arguments of the tool %s.", ti.args, t.Name)
	var fields []jen.Code
	for _, p := range t.Params {
		c := jen.Null()
		if d := g.paramDescription(t, p); d != "" {
			c = comment(d).Line()
		}
		fields = append(fields, c.Id(ti.fields[p]).Add(g.goType(p.Type)).Tag(map[string]string{"json": p.Name}))
	}
	f.Type().Id(ti.args).Struct(fields...)
	f.Line()
}

// resultType is the Go type a tool method returns besides error, nil for
// a tool that returns null.
func (g *generator) resultType(t *ir.Tool) *jen.Statement {
	switch t.Kind {
	case ir.ToolGet, ir.ToolCreate, ir.ToolUpdate, ir.ToolDelete:
		return jen.Op("*").Id(g.ents[t.Entity].typ)
	case ir.ToolList, ir.ToolSearch:
		return jen.Index().Op("*").Id(g.ents[t.Entity].typ)
	}
	if t.Returns == nil {
		return nil
	}
	return g.goType(t.Returns)
}

// resultIR is the type of the tool's result (nil: none).
func (g *generator) resultIR(t *ir.Tool) *ir.Type {
	switch t.Kind {
	case ir.ToolGet, ir.ToolCreate, ir.ToolUpdate, ir.ToolDelete:
		return &ir.Type{Kind: ir.KindRecord, Entity: t.Entity}
	case ir.ToolList, ir.ToolSearch:
		return &ir.Type{Kind: ir.KindList, Elem: &ir.Type{Kind: ir.KindRecord, Entity: t.Entity}}
	}
	return t.Returns
}

// encodedByRegistry reports whether runtime.Registry encodes a result of
// type t without reflection as it is: the Go types string, int64, float64
// and bool, and those with an AppendJSON method (records, dates).
func encodedByRegistry(t *ir.Type) bool {
	if pointerOpt(t) {
		return false
	}
	switch t.Kind {
	case ir.KindList, ir.KindMap, ir.KindEnum:
		return false
	}
	return true
}

func (g *generator) zeroValue(t *ir.Tool) *jen.Statement {
	switch t.Kind {
	case ir.ToolCustom:
	default:
		return jen.Nil()
	}
	r := t.Returns
	if r == nil {
		return nil
	}
	if r.Optional || r.Kind == ir.KindRecord || r.Kind == ir.KindList || r.Kind == ir.KindMap {
		return jen.Nil()
	}
	switch r.Kind {
	case ir.KindStruct:
		return jen.Id(g.structs[r.Struct].typ).Values()
	case ir.KindString, ir.KindText, ir.KindRef, ir.KindEnum:
		return jen.Lit("")
	case ir.KindBool:
		return jen.False()
	case ir.KindDecimal, ir.KindMoney:
		if g.exact() {
			return jen.Qual(rt, "Decimal").Values()
		}
	}
	return jen.Lit(0)
}

// toolMethod renders the tool as a typed method of State.
func (g *generator) toolMethod(f *goFile, t *ir.Tool) {
	ti := g.tools[t]
	what := g.toolDescription(t)
	f.Add(doc(fmt.Sprintf("%s implements the tool %s (service %s): %s", ti.method, t.Name, t.Service.Name, lowerFirst(what)), ""))
	results := jen.Error()
	if rt := g.resultType(t); rt != nil {
		results = jen.Parens(jen.List(rt, jen.Error()))
	}
	var bodyCode []jen.Code
	var stmts int
	var parts []part
	if t.Kind == ir.ToolCustom {
		bodyCode, stmts, parts = g.customBody(t)
	} else {
		bodyCode = g.standardBody(t)
	}
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(ti.method).Params(jen.Id("args").Id(ti.args)).Add(results).Block(bodyCode...)
	if len(parts) > 0 {
		f.bodyParts(stmts, parts...)
	}
	f.Line()
}

// lookupRefs looks up the ref parameters (in order) of a standard tool,
// as compiler/eval does before anything else: a missing one is not_found.
func (g *generator) lookupRefs(t *ir.Tool, zero *jen.Statement) []jen.Code {
	var out []jen.Code
	id := g.idParam(t)
	for _, p := range t.Params {
		if p.Type.Kind != ir.KindRef && p != id {
			out = append(out, g.lookupNestedRefs(t, p, func(err jen.Code) jen.Code { return jen.Return(jen.Add(zero), err) })...)
			continue
		}
		if p.Type.Kind != ir.KindRef || p == id {
			continue
		}
		tableType := g.ents[p.Type.Entity].typ
		arg := jen.Id("args").Dot(g.tools[t].fields[p])
		fail := jen.Return(jen.Add(zero), jen.Err())
		if p.Type.Optional {
			out = append(out, jen.If(jen.Add(arg).Op("!=").Nil()).Block(
				jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(jen.Op("*").Add(jen.Id("args").Dot(g.tools[t].fields[p]))), jen.Err().Op("!=").Nil()).Block(fail),
			))
			continue
		}
		out = append(out, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(arg), jen.Err().Op("!=").Nil()).Block(fail))
	}
	return out
}

// idParam is the parameter naming the record of a get, update or delete
// tool: "id", or for an entity with a key field the parameter named after
// the key (or setting it), as compiler/eval finds it.
func (g *generator) idParam(t *ir.Tool) *ir.Param {
	if t.Kind == ir.ToolCustom || t.Entity == nil {
		return nil
	}
	for _, p := range t.Params {
		if p.Field == nil && (p.Name == "id" || p.Name == t.Entity.IDName()) {
			return p
		}
	}
	if t.Entity.Key != nil && (t.Kind == ir.ToolGet || t.Kind == ir.ToolUpdate || t.Kind == ir.ToolDelete) {
		for _, p := range t.Params {
			if p.Field == t.Entity.Key {
				return p
			}
		}
	}
	return nil
}

// standardBody implements get/list/search/create/update/delete with
// compiler/eval's semantics.
func (g *generator) standardBody(t *ir.Tool) []jen.Code {
	ti := g.tools[t]
	ei := g.ents[t.Entity]
	table := jen.Id("s").Dot(ei.table)
	argOf := func(p *ir.Param) *jen.Statement { return jen.Id("args").Dot(ti.fields[p]) }
	var out []jen.Code
	p := g.idParam(t)
	if p != nil && p.Type.Kind != ir.KindRef {
		// A key given as a string is looked up after the refs among the
		// arguments (compiler/eval's order), a ref in parameter order.
		out = append(out, g.lookupRefs(t, jen.Nil())...)
	}
	if p != nil {
		out = append(out, jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("s").Dot("find"+ei.typ).Call(argOf(p)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	if p == nil || p.Type.Kind == ir.KindRef {
		out = append(out, g.lookupRefs(t, jen.Nil())...)
	}
	switch t.Kind {
	case ir.ToolGet:
		return append(out, jen.Return(jen.Id("r"), jen.Nil()))

	case ir.ToolList:
		var offset *ir.Param
		for _, p := range t.Params {
			if p.Name == "offset" && p.Field == nil {
				offset = p
			}
		}
		out = append(out, jen.Var().Id("offset").Int64())
		if offset != nil {
			out = append(out, jen.If(argOf(offset).Op("!=").Nil()).Block(
				jen.Id("offset").Op("=").Op("*").Add(argOf(offset)),
			), jen.If(jen.Id("offset").Op("<").Lit(0)).Block(
				jen.Return(jen.Nil(), jen.Qual(rt, "InvalidArguments").Call(jen.Lit(`argument "offset": must be >= 0`))),
			))
		}
		return append(out,
			jen.Id("out").Op(":=").Make(jen.Index().Op("*").Id(ei.typ), jen.Lit(0), jen.Min(jen.Int64().Call(jen.Add(table).Dot("Len").Call()), jen.Lit(ir.PageSize))),
			jen.Var().Id("i").Int64(),
			jen.For(jen.Id("r").Op(":=").Range().Add(table).Dot("All").Call()).Block(
				jen.If(jen.Len(jen.Id("out")).Op("==").Id("pageSize")).Block(jen.Break()),
				jen.If(jen.Id("i").Op(">=").Id("offset")).Block(jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("r"))),
				jen.Id("i").Op("++"),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)

	case ir.ToolSearch:
		var conds []jen.Code
		var pre []jen.Code
		for _, p := range t.Params {
			if p.Field == nil {
				continue
			}
			fieldName := ei.fields[p.Field]
			arg := argOf(p)
			val := jen.Id("r").Dot(fieldName)
			if p.Field.Type.Optional {
				val = jen.Op("*").Id("r").Dot(fieldName)
			}
			var miss *jen.Statement
			if p.Field.Type.Kind.Textual() {
				q := unexported(p.Name) + "Lower"
				pre = append(pre, jen.Var().Id(q).String(), jen.If(jen.Add(arg).Op("!=").Nil()).Block(
					jen.Id(q).Op("=").Qual(rt, "PyLower").Call(jen.Op("*").Add(argOf(p)))))
				miss = jen.Op("!").Qual(rt, "ContainsLower").Call(val, jen.Id(q))
			} else {
				miss = jen.Add(val).Op("!=").Op("*").Add(argOf(p))
			}
			if p.Field.Type.Optional {
				miss = jen.Id("r").Dot(fieldName).Op("==").Nil().Op("||").Add(miss)
			}
			conds = append(conds, jen.If(jen.Add(argOf(p)).Op("!=").Nil().Op("&&").Parens(miss)).Block(jen.Continue()))
		}
		out = append(out, pre...)
		loop := append([]jen.Code{jen.If(jen.Len(jen.Id("out")).Op("==").Id("pageSize")).Block(jen.Break())}, conds...)
		loop = append(loop, jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("r")))
		return append(out,
			jen.Id("out").Op(":=").Index().Op("*").Id(ei.typ).Values(),
			jen.For(jen.Id("r").Op(":=").Range().Add(table).Dot("All").Call()).Block(loop...),
			jen.Return(jen.Id("out"), jen.Nil()),
		)

	case ir.ToolCreate:
		dict := jen.Dict{}
		if t.Entity.Key == nil {
			dict[jen.Id("ID")] = jen.Add(table).Dot("NextID").Call(jen.Lit(ei.snake))
		}
		var after []jen.Code
		for _, p := range t.Params {
			if p.Field == nil {
				continue
			}
			fl := p.Field
			name := ei.fields[fl]
			switch {
			case !p.Type.Optional:
				dict[jen.Id(name)] = argOf(p)
			case fl.Type.Optional:
				dict[jen.Id(name)] = argOf(p)
				if fl.Default != nil && fl.Default.Kind != ir.KindNull {
					base := *fl.Type
					base.Optional = false
					after = append(after, jen.If(jen.Add(argOf(p)).Op("==").Nil()).Block(
						jen.Var().Id("def").Add(g.baseGoType(&base)).Op("=").Add(g.newScope().lit(fl.Default, &base).c),
						jen.Id("r").Dot(name).Op("=").Op("&").Id("def"),
					))
				}
			default: // a defaulted required field
				if fl.Default != nil {
					dict[jen.Id(name)] = g.newScope().lit(fl.Default, fl.Type).c
				}
				val := jen.Op("*").Add(argOf(p))
				if !pointerOpt(p.Type) {
					val = argOf(p)
				}
				after = append(after, jen.If(jen.Add(argOf(p)).Op("!=").Nil()).Block(
					jen.Id("r").Dot(name).Op("=").Add(val)))
			}
		}
		out = append(out, jen.Id("r").Op(":=").Op("&").Id(ei.typ).Values(dict))
		out = append(out, after...)
		return append(out,
			jen.If(jen.Err().Op(":=").Id("s").Dot(ei.check).Call(jen.Id("r")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.If(jen.Err().Op(":=").Add(table).Dot("Insert").Call(jen.Id("r")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("r"), jen.Nil()),
		)

	case ir.ToolUpdate:
		out = append(out,
			jen.List(jen.Id("r"), jen.Err()).Op("=").Add(table).Dot("Mut").Call(jen.Id("r").Dot(ei.id)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		for _, p := range t.Params {
			if p.Field == nil || p == g.idParam(t) {
				continue
			}
			fl := p.Field
			name := ei.fields[fl]
			val := jen.Op("*").Add(argOf(p))
			if fl.Type.Optional || !pointerOpt(p.Type) {
				val = argOf(p)
			}
			set := []jen.Code{jen.Id("r").Dot(name).Op("=").Add(val)}
			if g.fieldNeedsCheck(fl) {
				set = append(set, jen.If(jen.Err().Op(":=").Id("s").Dot(g.checkFieldName(fl)).Call(jen.Id("r")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
			}
			out = append(out, jen.If(jen.Add(argOf(p)).Op("!=").Nil()).Block(set...))
		}
		return append(out, jen.Return(jen.Id("r"), jen.Nil()))

	case ir.ToolDelete:
		return append(out,
			jen.If(jen.Err().Op(":=").Id("s").Dot("delete"+ei.typ).Call(jen.Id("r").Dot(ei.id)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("r"), jen.Nil()),
		)
	}
	panic(unexpectedAt(t.Pos, "unknown tool kind %q", t.Kind))
}

// customBody compiles a custom tool's statements after binding its
// parameters: ref parameters are looked up (not_found), the others read
// from args. It also returns how many Go statements the body has, and
// which of them each of the tool's own statements compiled to, for the
// position map.
func (g *generator) customBody(t *ir.Tool) (code []jen.Code, stmts int, parts []part) {
	sc := g.newScope()
	sc.budget = true
	b := &body{sc: sc, tool: t, zero: g.zeroValue(t)}
	ti := g.tools[t]
	var prologue []jen.Code
	errDeclared := false
	for _, p := range t.Params {
		arg := jen.Id("args").Dot(ti.fields[p])
		field := ti.fields[p]
		if p.Var == nil {
			continue
		}
		if p.Type.Kind != ir.KindRef {
			sc.vars[p.Var] = func() *jen.Statement { return jen.Id("args").Dot(field) }
			prologue = append(prologue, g.lookupNestedRefs(t, p, func(err jen.Code) jen.Code { return b.fail(err) })...)
			continue
		}
		tableType := g.ents[p.Type.Entity].typ
		if !b.used(p.Var) {
			if p.Type.Optional {
				prologue = append(prologue, jen.If(jen.Add(arg).Op("!=").Nil()).Block(
					jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(jen.Op("*").Add(jen.Id("args").Dot(field))), jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err()))))
			} else {
				prologue = append(prologue, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(arg), jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err())))
			}
			continue
		}
		name := sc.bind(p.Var)
		b.recVars = append(b.recVars, p.Var)
		if p.Type.Optional {
			if !errDeclared {
				prologue = append(prologue, jen.Var().Err().Error())
				errDeclared = true
			}
			prologue = append(prologue,
				jen.Var().Id(name).Op("*").Id(g.ents[p.Type.Entity].typ),
				jen.If(jen.Add(arg).Op("!=").Nil()).Block(
					jen.If(jen.List(jen.Id(name), jen.Err()).Op("=").Id("s").Dot("find"+tableType).Call(jen.Op("*").Add(jen.Id("args").Dot(field))), jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err()))))
			continue
		}
		if errDeclared {
			prologue = append(prologue, jen.List(jen.Id(name), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(arg))
		} else {
			prologue = append(prologue, jen.List(jen.Id(name), jen.Err()).Op(":=").Id("s").Dot("find"+tableType).Call(arg))
			errDeclared = true
		}
		prologue = append(prologue, jen.If(jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err())))
	}
	type compiled struct {
		st ir.Stmt
		n  int // Go statements
	}
	var each []compiled
	list := b.stmtsEach(t.Body, func(st ir.Stmt, code []jen.Code) { each = append(each, compiled{st, b.goStmts(code)}) })
	if b.usesErr && !errDeclared {
		prologue = append([]jen.Code{jen.Var().Err().Error()}, prologue...)
	}
	out := append(prologue, list...)
	if !terminates(t.Body) {
		if b.zero == nil {
			out = append(out, jen.Return(jen.Nil()))
		} else {
			out = append(out, jen.Return(b.zero, jen.Nil()))
		}
	}
	i := b.goStmts(prologue)
	for _, c := range each {
		if o, ok := stmtOrigin(t, c.st); ok && c.n > 0 {
			parts = append(parts, part{first: i, n: c.n, from: o})
		}
		i += c.n
	}
	return out, b.goStmts(out), parts
}

// lookupNestedRefs looks up the refs inside an argument of a composite
// type, in JSON order, as compiler/eval does: the first missing one fails
// the call with not_found.
func (g *generator) lookupNestedRefs(t *ir.Tool, p *ir.Param, fail func(err jen.Code) jen.Code) []jen.Code {
	if p.Type.Kind == ir.KindRef || !refsIn(p.Type, nil, map[*ir.StructDef]bool{}) {
		return nil
	}
	c := &checker{g: g}
	return c.eachRef(p.Type, jen.Id("args").Dot(g.tools[t].fields[p]), nil, func(id *jen.Statement, e *ir.Entity, _ *jen.Statement) []jen.Code {
		return []jen.Code{jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("s").Dot("find"+g.ents[e].typ).Call(id), jen.Err().Op("!=").Nil()).Block(fail(jen.Err()))}
	})
}

// toolHandler renders the JSON entry point of a tool: strict decoding,
// then the typed method.
func (g *generator) toolHandler(f *goFile, t *ir.Tool) {
	ti := g.tools[t]
	var required []jen.Code
	required = append(required, jen.Id("raw"), jen.Op("&").Id("slow"))
	for _, p := range t.Params {
		if p.Required() {
			required = append(required, jen.Lit(p.Name))
		}
	}
	call := jen.Id("s").Dot(ti.method).Call(jen.Id("args"))
	ret := []jen.Code{jen.Return(call)}
	if g.resultType(t) == nil {
		ret = []jen.Code{jen.Return(jen.Nil(), call)}
	} else if res := g.resultIR(t); !encodedByRegistry(res) {
		// The registry encodes the result with its AppendJSON method:
		// give it one.
		ret = []jen.Code{
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(call),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Qual(rt, "JSONAppenderFunc").Call(jen.Func().Params(jen.Id("dst").Index().Byte()).Index().Byte().Block(
				jen.Return(g.appendOf(res, jen.Id("dst"), jen.Id("v"))))), jen.Nil()),
		}
	}
	f.Commentf("%s decodes the JSON arguments of %s and calls %s: by", ti.call, t.Name, ti.method)
	f.Comment("their decode method, or, when it cannot, by runtime.DecodeArgs, for")
	f.Comment("its error.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(ti.call).Params(jen.Id("raw").Qual("encoding/json", "RawMessage")).Parens(jen.List(jen.Any(), jen.Error())).Block(append([]jen.Code{
		jen.Var().Id("args").Id(ti.args),
		jen.If(jen.Op("!").Id("args").Dot("decode").Call(g.argsText(t))).Block(
			// a variable of its own: &slow escapes, args need not
			jen.Var().Id("slow").Id(ti.args),
			jen.If(jen.Err().Op(":=").Qual(rt, "DecodeArgs").Call(required...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("args").Op("=").Id("slow"),
		),
	}, ret...)...,
	)
	f.Line()
}

// registry renders the tool registry: the tools' descriptions and schemas
// are tools.json (see toolsJSON), their handlers a table in the same order.
func (g *generator) registry(f *goFile) {
	var handlers []jen.Code
	var parts []part
	for i, t := range g.w.Tools {
		handlers = append(handlers, jen.Line().Parens(jen.Op("*").Id("State")).Dot(g.tools[t].call))
		parts = append(parts, part{first: i, n: 1, from: toolOrigin(t)})
	}
	if len(handlers) > 0 {
		handlers = append(handlers, jen.Line())
	}
	f.Comment("toolsJSON holds the tools' names, services, descriptions and parameter")
	f.Comment("schemas, in declaration order.")
	f.Comment("")
	f.Comment("//go:embed tools.json")
	f.Var().Id("toolsJSON").String()
	f.Line()
	f.Comment("registry holds the world's tools in declaration order: those of")
	f.Comment("tools.json with their handlers; it is built once and shared by all")
	f.Comment("episodes.")
	f.Var().Id("registry").Op("=").Qual(rt, "RegistryOf").Call(jen.Id("toolsJSON"), jen.Index().Func().Params(jen.Op("*").Id("State"), jen.Qual("encoding/json", "RawMessage")).Parens(jen.List(jen.Any(), jen.Error())).Values(handlers...))
	if len(parts) > 0 {
		f.eltParts(len(parts), parts...)
	}
	f.Line()
}

// ordered is a JSON object that keeps its members in insertion order, and
// kv makes one of its members (jsonobj's, by short names).
type ordered = jsonobj.Object

var kv = jsonobj.M

// schema is the JSON schema of a tool's arguments, safe for OpenAI strict
// mode: additionalProperties false, every property required, optional ones
// nullable. A record named in more than one place of the schema (two
// parameters or fields of its type, a record inside itself) is described
// once in $defs and referred to with $ref; one named once is written in
// place. Either way every record is described once, and the schema grows
// with the spec, not with the records' nesting.
func (g *generator) schema(t *ir.Tool) string {
	props := ordered{}
	required := []string{}
	ctx := &schemaCtx{uses: recordUses(t), defs: map[*ir.StructDef]bool{}}
	for _, p := range t.Params {
		props = append(props, kv(p.Name, g.typeSchema(p.Type, g.paramDescription(t, p), ctx)))
		required = append(required, p.Name)
	}
	s := ordered{
		kv("type", "object"),
		kv("properties", props),
		kv("required", required),
		kv("additionalProperties", false),
	}
	if len(ctx.order) > 0 {
		defs := ordered{}
		for i := 0; i < len(ctx.order); i++ {
			sd := ctx.order[i]
			defs = append(defs, kv(sd.Name, g.structSchema(&ir.Type{Kind: ir.KindStruct, Struct: sd}, "", ctx)))
		}
		s = append(s, kv("$defs", defs))
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(unexpectedAt(t.Pos, "the schema of tool %s: %v", t.Name, err)) // only strings, bools and nested objects
	}
	return string(b)
}

// schemaCtx is what building one tool's schema keeps track of: how many
// places of the schema name each record, and the records that have a
// definition in $defs, in the order met.
type schemaCtx struct {
	uses  map[*ir.StructDef]int
	defs  map[*ir.StructDef]bool
	order []*ir.StructDef
}

// recordUses counts the places of a tool's schema that name each record
// reachable from its parameters: a parameter, an element or value type, a
// field of a record written in place (a variant's common fields once per
// case, as structSchema writes them). A record is expanded only when first
// met, so the count takes time linear in the records' declarations; a
// record inside itself is met at least twice.
func recordUses(t *ir.Tool) map[*ir.StructDef]int {
	uses := map[*ir.StructDef]int{}
	var visit func(ty *ir.Type)
	visit = func(ty *ir.Type) {
		for ty != nil && (ty.Kind == ir.KindList || ty.Kind == ir.KindMap) {
			ty = ty.Elem
		}
		if ty == nil || ty.Kind != ir.KindStruct || ty.Struct == nil {
			return
		}
		sd := ty.Struct
		uses[sd]++
		if uses[sd] > 1 {
			return
		}
		if sd.Tag == nil || len(sd.Cases) == 0 {
			for _, f := range sd.Fields {
				visit(f.Type)
			}
			return
		}
		for _, c := range sd.Cases {
			for _, f := range sd.Fields {
				visit(f.Type)
			}
			for _, f := range c.Fields {
				visit(f.Type)
			}
		}
	}
	for _, p := range t.Params {
		visit(p.Type)
	}
	return uses
}

// mapNote is added to the description of every map in a schema.
const mapNote = "An object from any string keys to values. (OpenAI strict mode cannot express a map, whose objects must forbid additional properties: a tool with a map parameter is offered without strict mode.)"

// typeSchema is the JSON schema of a value of t, safe for OpenAI strict
// mode except for maps: records are objects with every field required
// (optional ones nullable) and no other property, variants one object per
// case (anyOf), lists arrays with items, maps objects whose
// additionalProperties is the schema of their values.
func (g *generator) typeSchema(t *ir.Type, desc string, ctx *schemaCtx) ordered {
	typed := func(typ string) any {
		if t.Optional {
			return []string{typ, "null"}
		}
		return typ
	}
	withDesc := func(o ordered, d string) ordered {
		if d != "" {
			o = append(o, kv("description", d))
		}
		return o
	}
	switch t.Kind {
	case ir.KindList:
		return append(withDesc(ordered{kv("type", typed("array"))}, desc), kv("items", g.typeSchema(t.Elem, g.valueNote(t.Elem), ctx)))
	case ir.KindMap:
		return append(withDesc(ordered{kv("type", typed("object"))}, strings.TrimSpace(desc+" "+mapNote)), kv("additionalProperties", g.typeSchema(t.Elem, g.valueNote(t.Elem), ctx)))
	case ir.KindStruct:
		sd := t.Struct
		if ctx.uses[sd] > 1 {
			// A record named in several places: a reference to its
			// definition.
			if !ctx.defs[sd] {
				ctx.defs[sd] = true
				ctx.order = append(ctx.order, sd)
			}
			ref := ordered{kv("$ref", "#/$defs/"+sd.Name)}
			if t.Optional {
				return withDesc(ordered{kv("anyOf", []any{ref, ordered{kv("type", "null")}})}, desc)
			}
			return withDesc(ref, desc)
		}
		return g.structSchema(t, desc, ctx)
	}
	return g.scalarSchema(t, desc)
}

// structSchema is the schema of a value record: an object with every field
// required (optional ones nullable) and no other property; a variant is one
// such object per case (anyOf).
func (g *generator) structSchema(t *ir.Type, desc string, ctx *schemaCtx) ordered {
	sd := t.Struct
	typed := func(typ string) any {
		if t.Optional {
			return []string{typ, "null"}
		}
		return typ
	}
	withDesc := func(o ordered, d string) ordered {
		if d != "" {
			o = append(o, kv("description", d))
		}
		return o
	}
	object := func(fields []*ir.Field, d string, tag ordered, typ any) ordered {
		props := ordered{}
		required := []string{}
		if tag != nil {
			props = append(props, kv(sd.Tag.Name, tag))
			required = append(required, sd.Tag.Name)
		}
		for _, f := range fields {
			props = append(props, kv(f.Name, g.typeSchema(f.Type, g.fieldNote(f), ctx)))
			required = append(required, f.Name)
		}
		return append(withDesc(ordered{kv("type", typ)}, d), kv("properties", props), kv("required", required), kv("additionalProperties", false))
	}
	if sd.Tag == nil {
		return object(sd.Fields, desc, nil, typed("object"))
	}
	var cases []any
	for _, c := range sd.Cases {
		cases = append(cases, object(append(append([]*ir.Field{}, sd.Fields...), c.Fields...), "A "+sd.Name+" of case "+c.Name+".",
			ordered{kv("type", "string"), kv("enum", []string{c.Name})}, "object"))
	}
	if t.Optional {
		cases = append(cases, ordered{kv("type", "null")})
	}
	return withDesc(ordered{kv("anyOf", cases)}, desc)
}

// scalarSchema is the schema of a scalar, an enum or a ref.
func (g *generator) scalarSchema(t *ir.Type, desc string) ordered {
	typed := func(typ string) any {
		if t.Optional {
			return []string{typ, "null"}
		}
		return typ
	}
	withDesc := func(o ordered, d string) ordered {
		if d != "" {
			o = append(o, kv("description", d))
		}
		return o
	}
	var typ string
	var extra ordered
	switch t.Kind {
	case ir.KindInt:
		typ = "integer"
	case ir.KindDecimal, ir.KindMoney:
		typ = "number"
	case ir.KindBool:
		typ = "boolean"
	case ir.KindDate:
		typ = "string"
		extra = append(extra, kv("format", "date"))
	case ir.KindDateTime:
		typ = "string"
		extra = append(extra, kv("format", "date-time"))
	case ir.KindEnum:
		typ = "string"
		vals := []any{}
		for _, v := range t.Enum.Values {
			vals = append(vals, v)
		}
		if t.Optional {
			vals = append(vals, nil)
		}
		extra = append(extra, kv("enum", vals))
	default:
		typ = "string"
	}
	return append(withDesc(ordered{kv("type", typed(typ))}, desc), extra...)
}

// fieldNote describes a field of a record in a schema: its doc and what
// its type means.
func (g *generator) fieldNote(f *ir.Field) string {
	var parts []string
	if d := sentence(f.Doc); d != "" {
		parts = append(parts, d)
	}
	if n := g.valueNote(f.Type); n != "" {
		parts = append(parts, n)
	}
	if f.Type.Optional {
		parts = append(parts, "Null when not set.")
	}
	return strings.Join(parts, " ")
}

// valueNote says what a value of t means when its JSON type does not.
func (g *generator) valueNote(t *ir.Type) string {
	switch t.Kind {
	case ir.KindRef:
		return fmt.Sprintf("The id of a %s record.", t.Entity.Name)
	case ir.KindMoney:
		if g.w.Currency != "" {
			return "Amount in " + oneLine(g.w.Currency) + "."
		}
	case ir.KindDate:
		return "A date, YYYY-MM-DD."
	case ir.KindDateTime:
		return "A date-time, RFC 3339 in UTC (2026-03-14T09:30:00Z)."
	}
	return ""
}
