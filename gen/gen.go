// Package gen compiles a checked world (the IR of compiler/ir) to the Go
// package of its environment: typed entity structs and a copy-on-write
// State, the seed, the tools with their JSON schemas, invariant checkers,
// tasks with rubric graders and golden solutions, the policy document, and
// conformance checks with a thin test file over them.
//
// Generation is pure: Generate returns the files by relative path and
// writes nothing; GeneratePackage returns them with the package's position
// map, where each Go declaration comes from in the spec (positions.go).
// The output is gofmt'd, starts with the "Code generated" header and is
// byte-identical for the same IR: nothing depends on map iteration order,
// time or paths.
//
// Every string that comes from the spec (docs, messages, policy text, enum
// values, seed data) reaches Go source only as a literal rendered by
// jennifer's Lit or as a sanitised line comment (see comment), never pasted
// into source text.
//
// Composite values (value records, variants, list<T>, map<string, T>) are
// plain Go values: a struct per record, a slice, a map; the shapes, and the
// copy rules that keep copy-on-write rows from sharing memory, are
// described in composite.go. An entity with a key field has no ID field:
// the key field is the id.
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/imports"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

const rt = runtime.ModulePath

// headerText is ir.Header as jen's HeaderComment takes it, without "// ".
var headerText = strings.TrimPrefix(ir.Header, "// ")

// Generate compiles w to the files of package generated/<w.Name>/, keyed by
// file name: the Go sources and the data they embed: seed.json (the seed),
// policy.md (the visible policy), tools.json (the tools' descriptions and
// schemas) and probes.json (the conformance probes). IR that the checker would not
// produce (an operator, function, expression or tool kind the generator
// has no code for) is an error naming the world and the spec position, not
// a panic.
func Generate(w *ir.World) (files map[string][]byte, err error) {
	if w == nil {
		return nil, fmt.Errorf("gen: nil world")
	}
	defer func() {
		if r := recover(); r != nil {
			files, err = nil, recovered(w, r)
		}
	}()
	g, err := newGenerator(w)
	if err != nil {
		return nil, err
	}
	p, err := g.run(false)
	if err != nil {
		return nil, err
	}
	return p.Files, nil
}

// generator holds the names chosen for one world and what its files need.
type generator struct {
	// taskData is what tasksFile made of the tasks: tasks.json's lines.
	taskData *rubricRows
	w        *ir.World
	pkg      string
	today    runtime.Date     // w.Today
	now      runtime.DateTime // w.Now (today at 00:00 UTC when not given)

	pkgNames   *namespace // package-level identifiers
	stateNames *namespace // fields and methods of State
	ents       map[*ir.Entity]*entityInfo
	structs    map[*ir.StructDef]*structInfo
	enums      map[*ir.EnumDef]*enumInfo
	tools      map[*ir.Tool]*toolInfo
	invs       map[*ir.Invariant]string // checker method names
	// always lists the always-invariants in declaration order; alwaysIn
	// names their checkers on some records; alw is what checking them
	// after every call needs (see always.go), nil without them.
	always   []*ir.Invariant
	alwaysIn map[*ir.Invariant]string
	alw      *alwaysInfo

	// helpers the compiled code uses, emitted into state.go on demand
	needAt    map[*ir.Entity]bool    // s.<entity>At(id): follow a ref inside an expression
	needIDs   map[*ir.Entity]bool    // s.<entity>IDs(): snapshot of ids for `for`
	needEqual map[*ir.StructDef]bool // <Record>.equal: == on value records
	// needEntityEqual: (*<Entity>).equal, whole-record comparisons
	needEntityEqual map[*ir.Entity]bool
	needMod         bool
	needDiv         bool // s.div: an exact decimal division
	needPow         bool // s.pow: an exact decimal power
	needRoundTo     bool // s.roundTo: round_to of an exact decimal
	needRoundToInt  bool // s.roundToInt: round_to of an int
	needCalendar    bool // calendar and s.addWorkingDays: the working days
	// taskClocks: some task sets its own clock, so that today and now are
	// the State's (s.today, s.now) rather than constants.
	taskClocks bool
	needRange  bool // s.intRange: the ints of `for i in a..b`
	needCalc   bool
	needDate   bool
	need       map[string]bool // package-level helpers of composite.go by name

	consts     []constDecl // constants of graders, rendered at the end of their file
	constNames map[ir.Expr]string

	// origin is what the declarations emitted now come from (see at), and
	// names the elements the package's checks name in their failures: the
	// generator's records for the position map (positions.go).
	origin ir.Origin
	names  map[ir.Named]ir.Origin
}

// constDecl is a constant of a grader and where it comes from.
type constDecl struct {
	code jen.Code
	from ir.Origin
}

type entityInfo struct {
	e      *ir.Entity
	typ    string // Go type: Customer
	table  string // State field: Customers
	snake  string // id prefix: customer
	lower  string // stem of unexported helpers: customer
	id     string // Go field of the id: ID, or the key field's (OrderID)
	fields map[*ir.Field]string
	// referrers are the ref fields (of any entity) pointing at this one.
	referrers []*ir.Field
	// check is the State method checking a record about to be written
	// (checkCustomer), checks those of its fields that need one
	// (checkCustomerTier); both come from the State namespace.
	check  string
	checks map[*ir.Field]string
}

// structInfo names a value record's Go type and fields.
type structInfo struct {
	s      *ir.StructDef
	typ    string               // Go type: Address
	plain  string               // the same struct without methods, for decoding: addressFields
	fields map[*ir.Field]string // every field, the tag and case fields included
	cases  map[*ir.Field]*ir.Case
}

type enumInfo struct {
	def    *ir.EnumDef
	typ    string            // CustomerTier
	consts map[string]string // value → CustomerTierGold
	values string            // the unexported []string of the values
}

type toolInfo struct {
	t      *ir.Tool
	method string // SetTier
	call   string // callSetTier: the handler decoding JSON arguments
	args   string // SetTierArgs
	fields map[*ir.Param]string
}

func newGenerator(w *ir.World) (*generator, error) {
	g := &generator{
		w:               w,
		pkg:             w.Name,
		ents:            map[*ir.Entity]*entityInfo{},
		enums:           map[*ir.EnumDef]*enumInfo{},
		tools:           map[*ir.Tool]*toolInfo{},
		invs:            map[*ir.Invariant]string{},
		alwaysIn:        map[*ir.Invariant]string{},
		needAt:          map[*ir.Entity]bool{},
		needIDs:         map[*ir.Entity]bool{},
		needEqual:       map[*ir.StructDef]bool{},
		needEntityEqual: map[*ir.Entity]bool{},
		need:            map[string]bool{},
		constNames:      map[ir.Expr]string{},
		structs:         map[*ir.StructDef]*structInfo{},
	}
	if !isIdent(w.Name) {
		return nil, fmt.Errorf("gen: world name %q is not a Go package name", w.Name)
	}
	today, err := runtime.ParseDate(w.Today)
	if err != nil {
		return nil, fmt.Errorf("gen: world %s: %s: today: %v", w.Name, w.Pos, err)
	}
	g.today = today
	if g.now, err = runtime.ParseDateTime(g.worldNow()); err != nil {
		return nil, fmt.Errorf("gen: world %s: %s: now: %v", w.Name, w.Pos, err)
	}
	for _, t := range w.Tasks {
		g.taskClocks = g.taskClocks || t.Today != ""
	}
	g.pkgNames = newNamespace(append(append([]string{}, ir.ReservedGoNames...), fixedPackageNames...)...)
	g.stateNames = newNamespace(append(append([]string{}, ir.ReservedStateMethods...), fixedStateNames...)...)
	for _, e := range w.Entities {
		ei := &entityInfo{e: e, fields: map[*ir.Field]string{}}
		ei.typ = g.pkgNames.name(e, exported(e.Name))
		ei.snake = ir.SnakeName(e.Name)
		ei.lower = unexported(e.Name)
		ei.table = g.stateNames.name(e, plural(ei.typ))
		// An entity with a key field has no ID field: the key is the id.
		fns := newNamespace(recordMethods...)
		if e.Key == nil {
			fns = newNamespace(append([]string{"ID"}, recordMethods...)...)
			ei.id = "ID"
		}
		for _, f := range e.Fields {
			ei.fields[f] = fns.name(f, exported(f.Name))
		}
		if e.Key != nil {
			ei.id = ei.fields[e.Key]
		}
		g.ents[e] = ei
	}
	for _, sd := range w.Structs {
		si := &structInfo{s: sd, fields: map[*ir.Field]string{}, cases: map[*ir.Field]*ir.Case{}}
		si.typ = g.pkgNames.name(sd, exported(sd.Name))
		si.plain = g.pkgNames.name([2]any{sd, "fields"}, unexported(si.typ)+"Fields")
		fns := newNamespace(append([]string{"MarshalJSON", "UnmarshalJSON"}, recordMethods...)...)
		for _, f := range sd.AllFields() {
			si.fields[f] = fns.name(f, exported(f.Name))
		}
		for _, c := range sd.Cases {
			for _, f := range c.Fields {
				si.cases[f] = c
			}
		}
		g.structs[sd] = si
	}
	addEnum := func(def *ir.EnumDef, owner string, f *ir.Field) {
		if def == nil || g.enums[def] != nil {
			return
		}
		ei := &enumInfo{def: def, consts: map[string]string{}}
		ei.typ = g.pkgNames.name(def, owner+exported(f.Name))
		for _, v := range def.Values {
			ei.consts[v] = g.pkgNames.name([2]any{def, v}, ei.typ+exported(v))
		}
		ei.values = g.pkgNames.name([2]any{def, "values"}, unexported(ei.typ)+"Values")
		g.enums[def] = ei
	}
	for _, e := range w.Entities {
		for _, f := range e.Fields {
			if f.Type.Kind == ir.KindRef && f.Type.Entity != nil {
				g.ents[f.Type.Entity].referrers = append(g.ents[f.Type.Entity].referrers, f)
			}
			eachEnum(f.Type, func(def *ir.EnumDef) { addEnum(def, g.ents[e].typ, f) })
		}
	}
	for _, sd := range w.Structs {
		for _, f := range sd.AllFields() {
			eachEnum(f.Type, func(def *ir.EnumDef) { addEnum(def, g.structs[sd].typ, f) })
		}
	}
	for _, t := range w.Tools {
		ti := &toolInfo{t: t, fields: map[*ir.Param]string{}}
		ti.method = g.stateNames.name(t, exported(t.Name))
		ti.args = g.pkgNames.name(t, exported(t.Name)+"Args")
		pns := newNamespace()
		for _, p := range t.Params {
			ti.fields[p] = pns.name(p, exported(p.Name))
		}
		g.tools[t] = ti
	}
	// The unexported methods of State named after spec names share the
	// State namespace with the tables and tools: an invariant named
	// customer_tier cannot take the name of the check of Customer.tier,
	// nor an entity CustomerTier that of the same check. Entity checks
	// first, then field checks, tool handlers and invariants, so that
	// worlds without a clash keep the names they always had.
	for _, e := range w.Entities {
		ei := g.ents[e]
		ei.check = g.stateNames.name([2]any{e, "check"}, "check"+ei.typ)
	}
	for _, e := range w.Entities {
		ei := g.ents[e]
		ei.checks = map[*ir.Field]string{}
		for _, f := range e.Fields {
			if g.fieldNeedsCheck(f) {
				ei.checks[f] = g.stateNames.name([2]any{f, "check"}, "check"+ei.typ+ei.fields[f])
			}
		}
	}
	for _, t := range w.Tools {
		ti := g.tools[t]
		ti.call = g.stateNames.name([2]any{t, "call"}, "call"+ti.method)
	}
	for _, inv := range w.Invariants {
		g.invs[inv] = g.stateNames.name(inv, "check"+exported(inv.Name))
	}
	for _, inv := range w.Invariants {
		if inv.Always {
			g.always = append(g.always, inv)
			g.alwaysIn[inv] = g.stateNames.name([2]any{inv, "in"}, g.invs[inv]+"In")
		}
	}
	if len(g.always) > 0 {
		g.planAlways()
	}
	return g, nil
}

// fixedPackageNames are the package-level names the generator itself uses.
var fixedPackageNames = []string{
	"today", "now", "calendar", "ruleHolds", "registry", "seedJSON", "seedData", "seedTables", "worldSeed", "task", "tasks",
	"pageSize", "assertion", "policyText", "toolsJSON", "probesJSON", "episodeOf", "loadSeed", "decodeSeed", "decodeSeedTables", "candidates", "toolCandidates",
	"toolRequires", "Episode", ir.EntryPoint, "World",
	"listAt", "mapAt", "present", "notNull", "nonNullList", "nonNullMap", "unchangedExcept", "verdict", "compared", "matched",
	"tasksJSON", "graders", "answers", "invariantChecks", "recordIs", "rubricOf", "taskStart", "startState",
	"assertUnchanged", "holds",
}

// recordMethods are the exported methods of records and entities, which
// their fields must not be named as.
var recordMethods = []string{"AppendJSON", "HashFields"}

// fixedStateNames are the fields and methods of State besides the tables
// and tools.
var fixedStateNames = []string{"Call", "CheckInvariants", "Validate", "Freeze"}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// run renders every file, and with positions the package's position map.
func (g *generator) run(positions bool) (*Package, error) {
	out := map[string][]byte{}
	var pm *ir.PosMap
	if positions {
		pm = &ir.PosMap{World: g.worldOrigin(), Files: map[string][]ir.Range{}}
	}
	// Files whose compilation records helper needs come before state.go
	// and types.go, which render the helpers. runtime: the file names the
	// runtime's import "runtime" (world_test.go does not import it).
	files := []struct {
		name    string
		build   func(f *goFile)
		runtime bool
	}{
		{"tools.go", g.toolsFile, true},
		{"invariants.go", g.invariantsFile, true},
		{"tasks.go", g.tasksFile, true},
		{"state.go", g.stateFile, true},
		{"types.go", g.typesFile, true},
		{"seed.go", g.seedFile, true},
		{"world.go", g.worldFile, true},
		{"conformance.go", g.conformanceFile, true},
		{"world_test.go", g.testFile, false},
		{"decoders_test.go", g.decoderTests, true},
	}
	for _, fl := range files {
		f := g.newGoFile()
		f.HeaderComment(headerText)
		if fl.runtime {
			f.ImportName(rt, "runtime")
		}
		if fl.name == "world.go" {
			// Each line is written as "// line" here, so that jennifer
			// pastes it as it is: a line of spec text that starts with "//"
			// never becomes a directive (//go:generate).
			for _, l := range g.packageDoc() {
				f.PackageComment(strings.TrimRight("// "+l, " "))
			}
		}
		g.origin = g.worldOrigin()
		fl.build(f)
		b, err := render(f.File)
		if err != nil {
			return nil, fmt.Errorf("gen: %s: %w", fl.name, err)
		}
		out[fl.name] = b
		if pm != nil {
			if pm.Files[fl.name], err = f.ranges(fl.name, b); err != nil {
				return nil, err
			}
		}
	}
	seed, err := g.seedJSON()
	if err != nil {
		return nil, err
	}
	out["seed.json"] = seed
	policy, err := g.policy()
	if err != nil {
		return nil, err
	}
	out["policy.md"] = policy
	if out["tools.json"], err = g.toolsJSON(); err != nil {
		return nil, err
	}
	if out["probes.json"], err = g.probesJSON(); err != nil {
		return nil, err
	}
	out["tasks.json"] = g.taskData.tasksJSON()
	if pm != nil {
		pm.Names = g.names
	}
	return &Package{Files: out, Positions: pm}, nil
}

// render formats a file. jennifer's error on source gofmt cannot format
// holds the whole unformatted file: only its first line is kept, cut to a
// few hundred bytes, so that no error ever prints generated source.
func render(f *jen.File) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, errors.New(firstLine(err.Error(), 300))
	}
	// Imports grouped as goimports groups them: the standard library, then
	// the runtime. FormatOnly: nothing is added or removed.
	out, err := imports.Process("world.go", buf.Bytes(), &imports.Options{FormatOnly: true, Comments: true, TabIndent: true, TabWidth: 8})
	if err != nil {
		return nil, errors.New(firstLine(err.Error(), 300))
	}
	return out, nil
}

// packageDoc is the package comment of a world package: what it is and
// how to use it. Spec text reaches it through commentLines only.
func (g *generator) packageDoc() []string {
	w := g.w
	lines := []string{
		fmt.Sprintf("Package %s is the world %s, compiled by worldc from its spec:", g.pkg, w.Name),
	}
	about := w.Title
	var facts []string
	for _, f := range []string{w.Industry, w.Country, w.Currency} {
		if f != "" {
			facts = append(facts, f)
		}
	}
	if len(facts) > 0 {
		about += " (" + strings.Join(facts, ", ") + ")"
	}
	lines = append(lines, commentLines(about)...)
	lines = append(lines,
		fmt.Sprintf("with %d tools, %d invariants and %d tasks. Do not edit it: change the spec", len(w.Tools), len(w.Invariants), len(w.Tasks)),
		"and run worldc gen.",
		"",
		"New returns the world as a runtime.World: Tools and Tasks describe it,",
		"Policy is the document agents are shown, and NewEpisode starts an",
		"episode of a task in a copy-on-write clone of its start state, in which",
		"Call runs the tools an agent calls and Grade grades the result.",
	)
	return lines
}

// firstLine is the first line of s, at most max bytes of it (cut at a rune
// boundary, with "…" when cut).
func firstLine(s string, max int) string {
	line, _, cut := strings.Cut(s, "\n")
	if len(line) > max {
		line, cut = line[:max], true
		for len(line) > 0 && !utf8.ValidString(line) {
			line = line[:len(line)-1]
		}
	}
	line = strings.TrimSuffix(line, ":")
	if cut {
		line += "…"
	}
	return line
}

// Files returns the names of generated files in a stable order.
func Files(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
