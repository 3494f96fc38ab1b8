// Package compiler checks world specs and lowers them to the IR.
//
// Check resolves every name, types every expression and literal, and runs
// the structural validators of the registry (see Validators). It reports
// every problem at once, sorted by position, and keeps checking past an
// error with a placeholder, so one run gives a repairing LLM the whole list.
// A spec without errors yields a resolved *ir.World for the code generator.
package compiler

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/runtime"
)

// Option configures a check.
type Option func(*config)

type config struct {
	data        fs.FS
	noReachable bool
	checkSteps  int64              // tests: the evaluation budget instead of MaxCheckSteps
	without     map[diag.Code]bool // codes whose diagnostics are left out (WithoutLints)
}

// WithoutLints leaves out the diagnostics of the lints named by code
// (W028 unsatisfiable-condition, W029 invariant-ignores-trigger): for tests
// of the code generator on specs that hold what these lints refuse on
// purpose, such as a contradiction the generator must still compile to Go
// that go vet accepts. Other codes cannot be left out.
func WithoutLints(codes ...diag.Code) Option {
	return func(c *config) {
		for _, code := range codes {
			if code == diag.UnsatisfiableCondition || code == diag.InvariantIgnoresTrigger {
				if c.without == nil {
					c.without = map[diag.Code]bool{}
				}
				c.without[code] = true
			}
		}
	}
}

// WithoutReachability leaves out the prediction of the gate's conformance
// search (W025), for a spec that is not a whole world: the part of a spec
// before its tasks (whose golden solutions the search starts from, as
// cmd/tau2import checks it), or a test of other validators on a world
// without the seed records its tools need.
func WithoutReachability() Option {
	return func(c *config) { c.noReachable = true }
}

// WithData makes `load` read data files from fsys: a path in the spec
// (`load E from "retail/db.json"`) is a path below the root of fsys. Without
// it, data files are read from the directory of the spec file, through
// os.OpenRoot: no path, symlink included, can leave that directory.
func WithData(fsys fs.FS) Option {
	return func(c *config) { c.data = fsys }
}

// CheckFile reads and checks the spec file at path; its data files are
// read from its directory (unless WithData says otherwise).
func CheckFile(path string, opts ...Option) (*ir.World, Diagnostics) {
	src, err := readSpec(path)
	if err != nil {
		return nil, Diagnostics{diagAt(diag.Syntax, dsl.Pos{Filename: path, Line: 1, Column: 1}, dsl.Pos{}, "%v", err)}
	}
	return CheckSource(path, src, opts...)
}

// readSpec reads a spec file, refusing one larger than dsl.MaxFileSize
// without reading it whole.
func readSpec(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, dsl.MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(src) > dsl.MaxFileSize {
		return nil, fmt.Errorf("spec is larger than %d bytes", dsl.MaxFileSize)
	}
	return src, nil
}

// CheckSource parses and checks one spec file. filename is its path: data
// files are read relative to its directory (see WithData).
func CheckSource(filename string, src []byte, opts ...Option) (*ir.World, Diagnostics) {
	f, err := dsl.Parse(filename, src)
	if err != nil {
		var pe *dsl.Error
		if errors.As(err, &pe) {
			return nil, Diagnostics{diagAt(diag.Syntax, pe.Pos, pe.Pos, "%s", pe.Msg)}
		}
		return nil, Diagnostics{diagAt(diag.Syntax, dsl.Pos{Filename: filename, Line: 1, Column: 1}, dsl.Pos{}, "%s", err)}
	}
	return check(filename, f, opts)
}

// Check checks a parsed spec. It returns the IR only when there are no
// errors. Data files are read relative to the directory of the file the
// positions of f name (see WithData).
func Check(f *dsl.File, opts ...Option) (*ir.World, Diagnostics) {
	return check(f.Pos.Filename, f, opts)
}

func check(filename string, f *dsl.File, opts []Option) (*ir.World, Diagnostics) {
	c := newChecker(filename, opts)
	defer c.closeData()
	c.check(f)
	c.diags = c.diags.Sort()
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	return c.w, c.diags
}

func newChecker(filename string, opts []Option) *checker {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	c := &checker{
		filename:    filename,
		data:        cfg.data,
		noReachable: cfg.noReachable,
		without:     cfg.without,
		checkSteps:  cfg.checkSteps,
		dataFiles:   map[string]*dataFile{},
		w:           &ir.World{},
		services:    map[string]*ir.Service{},
		entities:    map[string]*ir.Entity{},
		entityDecl:  map[*ir.Entity]*dsl.Entity{},
		fieldDecl:   map[*ir.Field]*dsl.Field{},
		tools:       map[string]*ir.Tool{},
		toolDecl:    map[*ir.Tool]*dsl.Tool{},
		invariants:  map[string]*ir.Invariant{},
		rules:       map[string]*ir.Rule{},
		handles:     map[string]*ir.Record{},
		facts:       map[*ir.Tool]*toolFacts{},
		structs:     map[string]*ir.StructDef{},
		structDecl:  map[*ir.StructDef]*dsl.RecordDecl{},
		structSvc:   map[*ir.StructDef]*ir.Service{},
		serviceDecl: map[*dsl.Service]*ir.Service{},
		mutable:     map[*ir.Var]bool{},
		inferred:    map[*ir.Var]bool{},
		numberText:  map[*ir.Lit]string{},
	}
	c.ids = newRecordIndex(c.handles, nil)
	return c
}

// checker holds the state of one Check.
type checker struct {
	diags Diagnostics
	w     *ir.World

	filename    string               // the spec's path: data files are relative to its directory
	noReachable bool                 // leave out W025 (WithoutReachability)
	without     map[diag.Code]bool   // codes left out (WithoutLints)
	data        fs.FS                // where data files are read; nil until needed (see dataFS)
	root        *os.Root             // the spec's directory, when data is read from it
	dataFiles   map[string]*dataFile // parsed data files by path
	dataBytes   int                  // bytes of data files read so far
	seedCount   int                  // seed records so far, loaded ones included
	checkSteps  int64                // the evaluation budget, when not MaxCheckSteps
	budget      *eval.Budget         // the evaluation's, once it runs (for tests: Rows)
	searched    searchWork           // what the reachability search did (for tests)

	services   map[string]*ir.Service
	entities   map[string]*ir.Entity
	entityDecl map[*ir.Entity]*dsl.Entity
	fieldDecl  map[*ir.Field]*dsl.Field
	tools      map[string]*ir.Tool
	toolDecl   map[*ir.Tool]*dsl.Tool
	invariants map[string]*ir.Invariant
	rules      map[string]*ir.Rule
	handles    map[string]*ir.Record // world seed records by handle
	ids        *recordIndex          // world seed records by handle and by id
	facts      map[*ir.Tool]*toolFacts
	pending    []pendingRef // seed refs to resolve once every handle is known

	structs     map[string]*ir.StructDef // value records by name
	structDecl  map[*ir.StructDef]*dsl.RecordDecl
	structSvc   map[*ir.StructDef]*ir.Service // nil for a top-level record
	serviceDecl map[*dsl.Service]*ir.Service
	mutable     map[*ir.Var]bool       // `var` locals
	inferred    map[*ir.Var]bool       // `var` locals declared without a type
	inSolution  bool                   // checking the calls of a golden solution
	numberText  map[*ir.Lit]string     // number literals with a point, as written (W031)
	enumValues  map[string]*ir.EnumDef // the first enum type of each value (W032), once asked
}

// recordDecl is a value record declaration and the service it is declared
// in (nil at the top level).
type recordDecl struct {
	decl *dsl.RecordDecl
	svc  *dsl.Service
}

// toolFacts records what a tool writes, for the analysis validators.
type toolFacts struct {
	inserts map[*ir.Entity]bool
	sets    map[*ir.Field]bool
	deletes map[*ir.Entity]bool
	reads   map[*ir.Entity]bool
}

func (c *checker) errorf(code diag.Code, pos, end dsl.Pos, format string, args ...any) {
	for i, a := range args {
		if t, ok := a.(*ir.Type); ok {
			args[i] = typeString(t)
		}
	}
	if c.without[code] {
		return
	}
	c.diags = append(c.diags, diagAt(code, pos, end, format, args...))
}

// errorAtNode is errorf at a checked node's position (an IR node has no end).
func (c *checker) errorAtNode(code diag.Code, pos ir.Pos, format string, args ...any) {
	c.errorf(code, dsl.Pos(pos), dsl.Pos(pos), format, args...)
}

// errorHint is errorf with a hint for this cause instead of the
// validator's general one.
func (c *checker) errorHint(code diag.Code, hint string, pos, end dsl.Pos, format string, args ...any) {
	c.errorf(code, pos, end, format, args...)
	c.diags[len(c.diags)-1].Hint = hint
}

func (c *checker) check(f *dsl.File) {
	var (
		worlds     []*dsl.World
		services   []*dsl.Service
		records    []recordDecl
		invariants []*dsl.Invariant
		rules      []*dsl.Rule
		seeds      []*dsl.Seed
		tasks      []*dsl.Task
	)
	for _, d := range f.Decls {
		switch {
		case d.World != nil:
			worlds = append(worlds, d.World)
		case d.Service != nil:
			services = append(services, d.Service)
			for _, m := range d.Service.Members {
				if m.Record != nil {
					records = append(records, recordDecl{m.Record, d.Service})
				}
			}
		case d.Record != nil:
			records = append(records, recordDecl{d.Record, nil})
		case d.Invariant != nil:
			invariants = append(invariants, d.Invariant)
		case d.Rule != nil:
			rules = append(rules, d.Rule)
		case d.Seed != nil:
			seeds = append(seeds, d.Seed)
		case d.Task != nil:
			tasks = append(tasks, d.Task)
		}
	}
	c.checkWorld(f, worlds)
	c.checkSizes(services, records, invariants, seeds, tasks)
	c.declareServices(services)
	c.declareRecords(records)
	c.resolveFields()
	c.resolveRecordFields()
	c.resolveKeys()
	c.declareTools()
	c.checkToolBodies()
	c.checkInvariants(invariants)
	c.checkRules(rules)
	c.checkPolicyTexts(invariants)
	for _, r := range rules {
		// A rule's policy text, like an invariant's, is part of the document.
		c.checkPolicyTexts([]*dsl.Invariant{{Pos: r.Pos, EndPos: r.EndPos, Name: r.Name, Policy: r.Policy}})
	}
	if len(seeds) > 1 {
		for _, s := range seeds[1:] {
			c.errorf(diag.DuplicateName, s.Pos, s.EndPos, "second seed block; a world has one seed (first at %s)", short(seeds[0].Pos))
		}
	}
	for _, s := range seeds {
		c.w.Seed = append(c.w.Seed, c.seedRecords(s, c.ids)...)
	}
	c.resolvePending()
	c.checkTasks(tasks)
	c.checkExprBounds()
	c.checkSchemaBounds()
	c.checkIdentifiers()
	c.analyse()
	c.checkConditions()
	c.checkTriggerRead()
	c.checkMoneyExprs()
	if !c.diags.HasErrors() {
		c.evaluate()
	}
}

// short renders a position as line:col for messages.
func short[P srcPos](pos P) string {
	p := ir.Pos(pos)
	return fmt.Sprintf("%d:%d", p.Line, p.Column)
}

var (
	countryRx  = regexp.MustCompile(`^[A-Z]{2}$`)
	currencyRx = regexp.MustCompile(`^[A-Z]{3}$`)
	worldRx    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

func (c *checker) checkWorld(f *dsl.File, worlds []*dsl.World) {
	if len(worlds) == 0 {
		pos := f.Pos
		if pos.Line == 0 {
			pos.Line, pos.Column = 1, 1
		}
		c.errorf(diag.WorldHeader, pos, pos, "the spec has no world header")
		return
	}
	for _, extra := range worlds[1:] {
		c.errorf(diag.WorldHeader, extra.Pos, extra.EndPos, "second world header %q; a spec describes one world (first at %s)", extra.Name, short(worlds[0].Pos))
	}
	wd := worlds[0]
	c.w.Name, c.w.Pos = wd.Name, ir.Pos(wd.Pos)
	if !worldRx.MatchString(wd.Name) {
		c.errorf(diag.UnsafeIdentifier, wd.Pos, wd.EndPos, "world name %q must be lower snake case (it names the Go package and its directory)", wd.Name)
	}
	seen := map[string]*dsl.Prop{}
	var nowPos *dsl.Prop
	for _, p := range wd.Props {
		if first, dup := seen[p.Key]; dup {
			c.errorf(diag.DuplicateName, p.Pos, p.EndPos, "duplicate world property %q, first at %s", p.Key, short(first.Pos))
			continue
		}
		seen[p.Key] = p
		if p.Key == "policy" {
			if p.From == nil {
				c.errorf(diag.WorldHeader, p.Pos, p.EndPos, "the world policy is a document next to the spec: policy from \"policy.md\"")
				continue
			}
			c.readPolicy(p)
			continue
		}
		if p.From != nil && p.Key == "holidays" {
			c.holidaysFrom(p)
			continue
		}
		if p.From != nil {
			c.errorf(diag.WorldHeader, p.Pos, p.EndPos, "world %s is written as a value, not read from a file; only the policy and the holidays are: policy from \"policy.md\", holidays from \"holidays.csv\"", p.Key)
			continue
		}
		str := func() string {
			if p.Value.String == nil {
				c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "world %s must be a string", p.Key)
				return ""
			}
			return *p.Value.String
		}
		switch p.Key {
		case "title":
			c.w.Title = str()
		case "industry":
			c.w.Industry = str()
		case "country":
			c.w.Country = str()
			if p.Value.String != nil && !countryRx.MatchString(c.w.Country) {
				c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "country %q must be an ISO 3166 alpha-2 code such as \"DE\"", c.w.Country)
			} else if p.Value.String != nil {
				c.checkCountry(c.w.Country, p.Value.Pos, p.Value.EndPos)
			}
		case "currency":
			c.w.Currency = str()
			if p.Value.String != nil && !currencyRx.MatchString(c.w.Currency) {
				c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "currency %q must be an ISO 4217 code such as \"EUR\"", c.w.Currency)
			} else if p.Value.String != nil {
				c.checkCurrency(c.w.Currency, p.Value.Pos, p.Value.EndPos)
			}
		case "now":
			if p.Value.DateTime == nil {
				c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "world now is a date-time such as 2026-03-14T09:30:00Z")
				continue
			}
			t, err := runtime.ParseDateTime(*p.Value.DateTime)
			if err != nil {
				c.errorf(diag.InvalidLiteral, p.Value.Pos, p.Value.EndPos, "date-time %s: %v", *p.Value.DateTime, err)
				continue
			}
			c.w.Now = t.String()
			nowPos = p
		case "holidays":
			c.holidayList(p, str())
		case "numbers":
			switch v := str(); v {
			case "exact":
			case "float":
				c.w.FloatNumbers = true
			default:
				if p.Value.String != nil {
					c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "world numbers is \"exact\" (the default: decimal and money are exact decimals) or \"float\" (binary floats with Python's semantics, for an imported benchmark), not %q", v)
				}
			}
		case "today":
			if p.Value.Date == nil {
				c.errorf(diag.WorldHeader, p.Value.Pos, p.Value.EndPos, "world today must be a date such as 2026-03-14")
				continue
			}
			if _, err := time.Parse(time.DateOnly, *p.Value.Date); err != nil {
				c.errorf(diag.InvalidLiteral, p.Value.Pos, p.Value.EndPos, "date %s does not exist", *p.Value.Date)
				continue
			}
			c.w.Today = *p.Value.Date
		default:
			c.errorf(diag.WorldHeader, p.Pos, p.EndPos, "unknown world property %q; known: title, industry, country, currency, today, now, holidays, numbers, policy", p.Key)
		}
	}
	if c.w.Today != "" {
		if c.w.Now == "" {
			c.w.Now = c.w.Today + "T00:00:00Z"
		} else if !strings.HasPrefix(c.w.Now, c.w.Today+"T") {
			c.errorf(diag.WorldHeader, nowPos.Pos, nowPos.EndPos, "world now (%s) is not on the world's today (%s)", c.w.Now, c.w.Today)
		}
	}
	for _, key := range []string{"title", "today"} {
		if seen[key] == nil {
			c.errorf(diag.WorldHeader, wd.Pos, wd.EndPos, "world %s has no %s", wd.Name, key)
		}
	}
}

// declareServices creates services, entities and fields (types unresolved).
func (c *checker) declareServices(services []*dsl.Service) {
	for _, sd := range services {
		if first, dup := c.services[sd.Name]; dup {
			c.errorf(diag.DuplicateName, sd.Pos, sd.EndPos, "duplicate service %q, first defined at %s", sd.Name, short(first.Pos))
			continue
		}
		s := &ir.Service{Name: sd.Name, Doc: deref(sd.Doc), Pos: ir.Pos(sd.Pos)}
		c.services[sd.Name] = s
		c.serviceDecl[sd] = s
		c.w.Services = append(c.w.Services, s)
		for _, m := range sd.Members {
			switch {
			case m.Entity != nil:
				c.declareEntity(s, m.Entity)
			case m.Tool != nil:
				c.declareToolName(s, m.Tool)
			}
		}
	}
	for _, s := range c.w.Services {
		if c.entities[s.Name] != nil {
			c.errorAtNode(diag.DuplicateName, s.Pos, "service %q has the name of an entity", s.Name)
		}
	}
}

func (c *checker) declareEntity(s *ir.Service, ed *dsl.Entity) {
	if first, dup := c.entities[ed.Name]; dup {
		c.errorf(diag.DuplicateName, ed.Pos, ed.EndPos, "duplicate entity %q, first defined at %s (entity names are unique in a world)", ed.Name, short(first.Pos))
		return
	}
	e := &ir.Entity{Name: ed.Name, Doc: deref(ed.Doc), Service: s, Pos: ir.Pos(ed.Pos)}
	c.entities[ed.Name] = e
	c.entityDecl[e] = ed
	s.Entities = append(s.Entities, e)
	c.w.Entities = append(c.w.Entities, e)
	seen := map[string]*ir.Field{}
	for _, fd := range ed.Fields {
		if fd.Name == "id" {
			if ed.Key != nil {
				c.errorf(diag.DuplicateName, fd.Pos, fd.EndPos, "field \"id\" is how every entity's id is read (here it reads the key %s); rename the field", *ed.Key)
				continue
			}
			c.errorf(diag.DuplicateName, fd.Pos, fd.EndPos, "field \"id\" is implicit on every entity; remove it or rename it")
			continue
		}
		if first, dup := seen[fd.Name]; dup {
			c.errorf(diag.DuplicateName, fd.Pos, fd.EndPos, "duplicate field %s.%s, first defined at %s", ed.Name, fd.Name, short(first.Pos))
			continue
		}
		f := &ir.Field{Name: fd.Name, Doc: deref(fd.Doc), Entity: e, Pos: ir.Pos(fd.Pos)}
		seen[fd.Name] = f
		c.fieldDecl[f] = fd
		e.Fields = append(e.Fields, f)
	}
}

func (c *checker) declareToolName(s *ir.Service, td *dsl.Tool) {
	if first, dup := c.tools[td.Name]; dup {
		c.errorf(diag.DuplicateName, td.Pos, td.EndPos, "duplicate tool %q, first defined at %s (tool names are unique in a world)", td.Name, short(first.Pos))
		return
	}
	t := &ir.Tool{Name: td.Name, Service: s, Pos: ir.Pos(td.Pos)}
	c.tools[td.Name] = t
	c.toolDecl[t] = td
	s.Tools = append(s.Tools, t)
	c.w.Tools = append(c.w.Tools, t)
	c.facts[t] = &toolFacts{
		inserts: map[*ir.Entity]bool{}, sets: map[*ir.Field]bool{},
		deletes: map[*ir.Entity]bool{}, reads: map[*ir.Entity]bool{},
	}
}

// lookupEntity resolves `E` or `svc.E`.
func (c *checker) lookupEntity(q *dsl.QualName) *ir.Entity {
	switch len(q.Parts) {
	case 1:
		if e := c.entities[q.Parts[0]]; e != nil {
			return e
		}
	case 2:
		s := c.services[q.Parts[0]]
		if s == nil {
			c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "unknown service %q", q.Parts[0])
			return nil
		}
		if e := c.entities[q.Parts[1]]; e != nil {
			if e.Service != s {
				c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "entity %s belongs to service %s, not %s", e.Name, e.Service.Name, s.Name)
				return nil
			}
			return e
		}
	}
	c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "unknown entity %q%s", strings.Join(q.Parts, "."), c.suggestEntity(q.Parts[len(q.Parts)-1]))
	return nil
}

// suggestEntity proposes an entity with a similar name.
func (c *checker) suggestEntity(name string) string {
	best, bestD := "", 3
	for _, e := range c.w.Entities {
		if e.Name == name {
			continue // never the name itself
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(e.Name)); d < bestD {
			best, bestD = e.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// resolveType resolves a field or parameter type. owner is the field that
// declares the type (nil for a parameter or a local): it names an inline
// enum.
func (c *checker) resolveType(td *dsl.Type, owner *ir.Field) *ir.Type {
	t := &ir.Type{Optional: td.Optional}
	switch {
	case td.Enum != nil:
		t.Kind = ir.KindEnum
		def := &ir.EnumDef{Field: owner}
		seen := map[string]bool{}
		for _, v := range td.Enum.Values {
			if seen[v.Name] {
				c.errorf(diag.DuplicateName, v.Pos, v.EndPos, "duplicate enum value %q", v.Name)
				continue
			}
			if v.Name == "" {
				c.errorf(diag.InvalidLiteral, v.Pos, v.EndPos, "empty enum value")
				continue
			}
			seen[v.Name] = true
			def.Values = append(def.Values, v.Name)
		}
		if owner == nil {
			c.errorf(diag.TypeMismatch, td.Pos, td.EndPos, "an inline enum is allowed on entity and record fields only; use Entity.field to name an enum type")
			return &ir.Type{}
		}
		t.Enum = def
	case td.Ref != nil:
		if s := c.structByName(td.Ref); s != nil {
			c.errorf(diag.TypeMismatch, td.Ref.Pos, td.Ref.EndPos, "%s is a value record, stored inside other records; it has no records to refer to: write %s without ref", s.Name, s.Name)
			return &ir.Type{}
		}
		e := c.lookupEntity(td.Ref)
		if e == nil {
			return &ir.Type{}
		}
		t.Kind, t.Entity = ir.KindRef, e
	case td.List != nil || td.Map != nil:
		elem := td.List
		t.Kind = ir.KindList
		if td.Map != nil {
			elem = td.Map.Value
			t.Kind = ir.KindMap
			if td.Map.Key != "string" {
				c.errorf(diag.TypeMismatch, td.Map.Pos, td.Map.EndPos, "map keys are strings: write map<string, …>, not map<%s, …>", td.Map.Key)
				return &ir.Type{}
			}
		}
		if elem == nil {
			return &ir.Type{}
		}
		et := c.resolveType(elem, owner)
		if et.Kind == ir.KindInvalid {
			return &ir.Type{}
		}
		if et.Optional {
			c.errorf(diag.TypeMismatch, elem.Pos, elem.EndPos, "the elements of a %s cannot be optional; leave a missing element out", t.Kind)
			return &ir.Type{}
		}
		t.Elem = et
	default:
		q := td.Named
		if len(q.Parts) == 1 {
			if k, ok := scalarKinds[q.Parts[0]]; ok {
				t.Kind = k
				return t
			}
			if s := c.structs[q.Parts[0]]; s != nil {
				t.Kind, t.Struct = ir.KindStruct, s
				return t
			}
			if e := c.entities[q.Parts[0]]; e != nil {
				c.errorf(diag.TypeMismatch, q.Pos, q.EndPos, "%s is an entity; write `ref %s` for a reference to one of its records", e.Name, e.Name)
				return &ir.Type{}
			}
			if q.Parts[0] == "list" || q.Parts[0] == "map" {
				c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "%s needs its element type in angle brackets: list<T>, map<string, T>", q.Parts[0])
				return &ir.Type{}
			}
			c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "unknown type %q; types are string, text, int, decimal, money, bool, date, datetime, enum {…}, ref Entity, list<T>, map<string, T>, a record's name and Entity.field", q.Parts[0])
			return &ir.Type{}
		}
		if s := c.structByName(q); s != nil {
			t.Kind, t.Struct = ir.KindStruct, s
			return t
		}
		// Entity.field or svc.Entity.field (or the same with a record): the
		// enum type of that field.
		owner := &dsl.QualName{Pos: q.Pos, EndPos: q.EndPos, Parts: q.Parts[:len(q.Parts)-1]}
		fname := q.Parts[len(q.Parts)-1]
		var f *ir.Field
		if s := c.structByName(owner); s != nil {
			f = s.Field(fname)
			if f == nil {
				c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "record %s has no field %q", s.Name, fname)
				return &ir.Type{}
			}
		} else {
			e := c.lookupEntity(owner)
			if e == nil {
				return &ir.Type{}
			}
			f = e.Field(fname)
			if f == nil {
				c.errorf(diag.UnresolvedName, q.Pos, q.EndPos, "entity %s has no field %q", e.Name, fname)
				return &ir.Type{}
			}
		}
		if f.Struct != nil && f == f.Struct.Tag {
			t.Kind, t.Enum = ir.KindEnum, f.Type.Enum
			return t
		}
		fd := c.fieldDecl[f]
		if fd == nil || fd.Type.Enum == nil {
			c.errorf(diag.TypeMismatch, q.Pos, q.EndPos, "%s.%s is not an enum field; only enum types can be named this way", ownerName(f), fname)
			return &ir.Type{}
		}
		if f.Type == nil {
			f.Type = c.resolveType(fd.Type, f)
		}
		t.Kind, t.Enum = ir.KindEnum, f.Type.Enum
	}
	return t
}

var scalarKinds = map[string]ir.Kind{
	"string": ir.KindString, "text": ir.KindText, "int": ir.KindInt,
	"decimal": ir.KindDecimal, "money": ir.KindMoney, "bool": ir.KindBool,
	"date": ir.KindDate, "datetime": ir.KindDateTime,
}

// resolveFields resolves entity field types, defaults and bounds.
func (c *checker) resolveFields() {
	for _, e := range c.w.Entities {
		for _, f := range e.Fields {
			c.resolveField(f)
		}
	}
}

// resolveField resolves the type, default and bounds of an entity or
// record field.
func (c *checker) resolveField(f *ir.Field) {
	fd := c.fieldDecl[f]
	owner := ownerName(f)
	if f.Type == nil {
		f.Type = c.resolveType(fd.Type, f)
	}
	for _, cons := range fd.Constraints {
		switch {
		case cons.Unique:
			if f.Struct != nil {
				c.errorf(diag.TypeMismatch, cons.Pos, cons.EndPos, "field %s.%s of a value record cannot be unique: record values are copied, not kept in a table", owner, f.Name)
				continue
			}
			if composite(f.Type) {
				c.errorf(diag.TypeMismatch, cons.Pos, cons.EndPos, "unique applies to scalar fields, not to %s field %s.%s", f.Type, owner, f.Name)
				continue
			}
			if f.Unique {
				c.errorf(diag.DuplicateName, cons.Pos, cons.EndPos, "field %s.%s is already unique", owner, f.Name)
			}
			f.Unique = true
		case cons.Default != nil:
			if f.Default != nil {
				c.errorf(diag.DuplicateName, cons.Pos, cons.EndPos, "field %s.%s has two defaults", owner, f.Name)
				continue
			}
			if f.Type.Kind == ir.KindRef {
				c.errorf(diag.TypeMismatch, cons.Pos, cons.EndPos, "a ref field cannot have a default")
				continue
			}
			f.Default = c.literal(cons.Default, f.Type, nil)
			if f.Default == nil {
				// Reported; a placeholder keeps seeds from cascading.
				f.Default = &ir.Value{Kind: ir.KindNull}
			}
		default:
			k := f.Type.Kind
			if !k.Numeric() && k != ir.KindDate && k != ir.KindDateTime && k != ir.KindInvalid {
				c.errorf(diag.TypeMismatch, cons.Pos, cons.EndPos, "a bound %s applies to numbers and dates, not to %s field %s.%s", cons.Op, f.Type, owner, f.Name)
				continue
			}
			base := *f.Type
			base.Optional = false
			if v := c.literal(cons.Bound, &base, nil); v != nil {
				f.Bounds = append(f.Bounds, ir.Bound{Op: cons.Op, Value: v})
			}
		}
	}
	if f.Default != nil && f.Default.Kind != ir.KindNull {
		if msg := boundViolation(f, f.Default); msg != "" {
			c.errorf(diag.OutOfRange, fd.Pos, fd.EndPos, "default of %s.%s %s", owner, f.Name, msg)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// editDistance is the Levenshtein distance, for "did you mean" hints.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// sortedKeys returns a map's keys in order, for deterministic messages.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
