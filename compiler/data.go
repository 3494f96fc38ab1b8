package compiler

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Limits on data files (W019). A data file is parsed whole into memory.
const (
	MaxDataFileSize = 32 << 20 // bytes in one data file
	MaxDataBytes    = 64 << 20 // bytes in all data files of a spec
	MaxDataNesting  = 64       // nesting of JSON arrays and objects
)

// dataFile is a data file read for `load`, parsed once however many loads
// read it.
type dataFile struct {
	display string // its path as diagnostics show it: below the spec's directory
	lines   *lineIndex
	json    *jnode    // a .json file
	csv     *csvTable // a .csv file
}

// csvTable is a CSV file: a header row and records, with the position of
// every cell.
type csvTable struct {
	header []string
	rows   [][]string
	pos    [][]int // pos[0] for the header, pos[i+1] for rows[i]: byte offsets of the cells
}

// pos is the position of byte offset off of the file.
func (df *dataFile) pos(off int) dsl.Pos {
	line, col := df.lines.at(off)
	return dsl.Pos{Filename: df.display, Offset: off, Line: line, Column: col}
}

// span is where a value is written: a node of the spec, or bytes of a data
// file, whose line and column are worked out only when a problem is
// reported (counting columns on every value would cost more than checking
// it).
type span struct {
	pos, end    dsl.Pos
	df          *dataFile
	off, endOff int
}

func specSpan(pos, end dsl.Pos) span { return span{pos: pos, end: end} }

func (df *dataFile) span(n *jnode) span { return span{df: df, off: n.off, endOff: n.end} }

// at returns the positions of the span.
func (s span) at() (dsl.Pos, dsl.Pos) {
	if s.df != nil {
		return s.df.pos(s.off), s.df.pos(s.endOff)
	}
	return s.pos, s.end
}

// errorAt reports a problem at a span.
func (c *checker) errorAt(code diag.Code, s span, format string, args ...any) {
	pos, end := s.at()
	c.errorf(code, pos, end, format, args...)
}

// closeData releases the spec's directory, if it was opened.
func (c *checker) closeData() {
	if c.root != nil {
		c.root.Close()
	}
}

// dataFS returns the file system data files are read from: the one given
// with WithData, or the spec's directory, opened on first use as an
// os.Root so that no path, symlinks included, leads outside it.
func (c *checker) dataFS() (fs.FS, error) {
	if c.data != nil {
		return c.data, nil
	}
	root, err := os.OpenRoot(filepath.Dir(c.filename))
	if err != nil {
		return nil, err
	}
	c.root, c.data = root, root.FS()
	return c.data, nil
}

// cleanDataPath checks the path of a data file as written in a spec and
// returns it cleaned, or a reason to refuse it: it must be relative, use /
// and stay inside the spec's directory.
func cleanDataPath(p string) (string, string) { return cleanSpecPath("data file", p) }

// cleanSpecPath checks the path of a file named in a spec (what says which:
// "data file", "policy document") and returns it cleaned, or a reason to
// refuse it.
func cleanSpecPath(what, p string) (string, string) {
	switch {
	case p == "":
		return "", "the path of a " + what + " is empty"
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", "the path of a " + what + " contains a control character"
	case strings.Contains(p, `\`):
		return "", fmt.Sprintf("%s path %q: separate directories with /", what, p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" || len(p) >= 2 && p[1] == ':':
		return "", fmt.Sprintf("%s path %q is absolute; %ss are named relative to the spec's directory", what, p, what)
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "", fmt.Sprintf("%s path %q leaves the spec's directory; %ss must be inside it", what, p, what)
		}
	}
	clean := path.Clean(p)
	if !fs.ValidPath(clean) || clean == "." {
		return "", fmt.Sprintf("%s path %q is not a file path", what, p)
	}
	return clean, ""
}

// readSpecFile reads a file named in the spec (what says which: "data
// file", "policy document") from the spec's directory (see dataFS): at
// most limit bytes, and at most MaxDataBytes for all such files together.
// p is a path cleaned by cleanSpecPath. It reports problems at [pos, end)
// (W023 when the file cannot be read, W019 when it is too large) and then
// returns false.
func (c *checker) readSpecFile(what, p string, limit int64, pos, end dsl.Pos) ([]byte, bool) {
	fsys, err := c.dataFS()
	if err != nil {
		c.errorf(diag.DataFile, pos, end, "cannot open the spec's directory to read %q: %v", p, err)
		return nil, false
	}
	info, err := fs.Stat(fsys, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.errorf(diag.DataFile, pos, end, "no %s %q in the spec's directory", what, p)
		return nil, false
	case err != nil:
		c.errorf(diag.DataFile, pos, end, "cannot read %s %q: %v", what, p, err)
		return nil, false
	case !info.Mode().IsRegular():
		c.errorf(diag.DataFile, pos, end, "%s %q is not a regular file", what, p)
		return nil, false
	case info.Size() > limit:
		c.errorf(diag.SizeLimit, pos, end, "%s %q has %d bytes; the limit is %d", what, p, info.Size(), limit)
		return nil, false
	case int64(c.dataBytes)+info.Size() > MaxDataBytes:
		c.errorf(diag.SizeLimit, pos, end, "data files of more than %d bytes in all", MaxDataBytes)
		return nil, false
	}
	f, err := fsys.Open(p)
	if err != nil {
		c.errorf(diag.DataFile, pos, end, "cannot read %s %q: %v", what, p, err)
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	f.Close()
	if err != nil {
		c.errorf(diag.DataFile, pos, end, "cannot read %s %q: %v", what, p, err)
		return nil, false
	}
	if int64(len(data)) > limit {
		// The file grew after Stat.
		c.errorf(diag.SizeLimit, pos, end, "%s %q has more than %d bytes", what, p, limit)
		return nil, false
	}
	c.dataBytes += len(data)
	return data, true
}

// displayPath is how diagnostics name a file of the spec's directory.
func (c *checker) displayPath(p string) string {
	return path.Join(filepath.ToSlash(filepath.Dir(c.filename)), p)
}

// dataFile reads and parses the data file of a load, once per path. It
// reports problems at the load and returns nil.
func (c *checker) dataFile(l *dsl.Load) *dataFile { return c.dataFileAt(l.From, l.Pos, l.EndPos) }

// dataFileAt reads and parses the data file named from by a construct at
// [pos, end) (a load, `holidays from`), once per path. It reports
// problems there and returns nil.
func (c *checker) dataFileAt(from string, pos, end dsl.Pos) *dataFile {
	p, bad := cleanDataPath(from)
	if bad != "" {
		c.errorf(diag.DataFile, pos, end, "%s", bad)
		return nil
	}
	if df, done := c.dataFiles[p]; done {
		return df // nil when it was refused: reported at its first load
	}
	c.dataFiles[p] = nil
	data, ok := c.readSpecFile("data file", p, MaxDataFileSize, pos, end)
	if !ok {
		return nil
	}
	df := &dataFile{display: c.displayPath(p), lines: newLineIndex(data)}
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".json":
		n, err := parseJSON(data, MaxDataNesting)
		if err != nil {
			var je *jsonError
			errors.As(err, &je)
			pos := df.pos(je.off)
			c.errorf(diag.DataFile, pos, pos, "invalid JSON: %s", je.msg)
			return nil
		}
		df.json = n
	case ".csv":
		t, pos, err := parseCSV(data, df)
		if err != nil {
			c.errorf(diag.DataFile, pos, pos, "invalid CSV: %v", err)
			return nil
		}
		df.csv = t
	default:
		c.errorf(diag.DataFile, pos, end, "data file %q: data files are .json or .csv files", p)
		return nil
	}
	c.dataFiles[p] = df
	return df
}

// parseCSV reads a CSV file (RFC 4180, a header row first) with the
// position of every cell.
func parseCSV(data []byte, df *dataFile) (*csvTable, dsl.Pos, error) {
	bom := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		bom = 3
	}
	r := csv.NewReader(bytes.NewReader(data[bom:]))
	offset := func(line, col int) int {
		off := df.lines.offset(line, col)
		if line == 1 {
			off += bom
		}
		return off
	}
	t := &csvTable{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, df.pos(offset(pe.Line, max(pe.Column, 1))), pe.Err
			}
			return nil, df.pos(0), err
		}
		offs := make([]int, len(rec))
		for i := range rec {
			line, col := r.FieldPos(i)
			offs[i] = offset(line, col)
		}
		t.pos = append(t.pos, offs)
		if t.header == nil {
			t.header = rec
			continue
		}
		t.rows = append(t.rows, rec)
	}
	if t.header == nil {
		return nil, df.pos(0), errors.New("the file is empty; a CSV data file starts with a header row")
	}
	return t, dsl.Pos{}, nil
}

// loader holds what one `load` needs: the entity, its data file, and
// which source key or column holds which field.
type loader struct {
	c        *checker
	l        *dsl.Load
	e        *ir.Entity
	df       *dataFile
	idx      *recordIndex
	bySource map[string]*ir.Field // source key or column → field
	idSource string               // the source of the id of an entity without a key
}

// load reads the records of a `load` line from its data file, checks them
// against the schema and returns them, positioned in the data file.
func (c *checker) load(l *dsl.Load, idx *recordIndex) []*ir.Record {
	e := c.lookupEntity(l.Entity)
	df := c.dataFile(l)
	if e == nil || df == nil {
		return nil
	}
	ld := &loader{c: c, l: l, e: e, df: df, idx: idx, bySource: map[string]*ir.Field{}, idSource: "id"}
	if !ld.mapping() {
		return nil
	}
	var out []*ir.Record
	add := func(r *ir.Record) bool {
		if c.seedCount++; c.seedCount > MaxSeedRecords {
			c.errorf(diag.SizeLimit, l.Pos, l.EndPos, "more than %d seed records", MaxSeedRecords)
			return false
		}
		if r != nil {
			c.registerID(r, idx)
			out = append(out, r)
		}
		return true
	}
	switch {
	case df.json != nil:
		n := ld.at()
		if n == nil {
			return nil
		}
		switch n.kind {
		case jObject:
			seen := map[string]bool{}
			for _, m := range n.members {
				if seen[m.key] {
					pos := df.pos(m.off)
					c.errorf(diag.DuplicateName, pos, pos, "duplicate key %q", m.key)
					continue
				}
				seen[m.key] = true
				if !add(ld.jsonRecord(m.val, &m)) {
					break
				}
			}
		case jArray:
			for _, el := range n.elems {
				if !add(ld.jsonRecord(el, nil)) {
					break
				}
			}
		default:
			pos := df.pos(n.off)
			c.errorf(diag.DataFile, pos, pos, "expected the records of %s: an object of records by id or an array of records, got %s", e.Name, n.kind)
		}
	case df.csv != nil:
		if l.At != nil {
			c.errorf(diag.DataFile, l.Pos, l.EndPos, "at applies to JSON files; a CSV file holds one table")
			return nil
		}
		ld.csvRecords(add)
	}
	return out
}

// mapping checks the `{ field: "source" }` block of a load.
func (ld *loader) mapping() bool {
	c, e := ld.c, ld.e
	given := map[string]*ir.Field{}
	sources := map[string]string{} // source → field name
	ok := true
	for _, lf := range ld.l.Fields {
		if prev, dup := sources[lf.Source]; dup {
			c.errorf(diag.DuplicateName, lf.Pos, lf.EndPos, "%q is the source of %s already", lf.Source, prev)
			ok = false
			continue
		}
		sources[lf.Source] = lf.Name
		if lf.Name == "id" && e.Key == nil {
			if ld.idSource != "id" {
				c.errorf(diag.DuplicateName, lf.Pos, lf.EndPos, "id mapped twice")
				ok = false
			}
			ld.idSource = lf.Source
			continue
		}
		f := e.Field(lf.Name)
		if f == nil {
			c.errorf(diag.UnresolvedName, lf.Pos, lf.EndPos, "%s has no field %q%s", e.Name, lf.Name, suggestField(e, lf.Name))
			ok = false
			continue
		}
		if given[lf.Name] != nil {
			c.errorf(diag.DuplicateName, lf.Pos, lf.EndPos, "field %s mapped twice", lf.Name)
			ok = false
			continue
		}
		given[lf.Name] = f
	}
	for _, f := range e.Fields {
		src := f.Name
		if given[f.Name] != nil {
			for s, name := range sources {
				if name == f.Name {
					src = s
				}
			}
		}
		ld.bySource[src] = f
	}
	return ok
}

// at follows the `at` path (object keys separated by /; ~1 is a / in a
// key, ~0 a ~) from the root of the JSON file.
func (ld *loader) at() *jnode {
	n := ld.df.json
	if ld.l.At == nil || *ld.l.At == "" {
		return n
	}
	for _, key := range strings.Split(*ld.l.At, "/") {
		key = strings.ReplaceAll(strings.ReplaceAll(key, "~1", "/"), "~0", "~")
		if n.kind != jObject {
			pos := ld.df.pos(n.off)
			ld.c.errorf(diag.DataFile, pos, pos, "at %q: expected an object with the key %q, got %s", *ld.l.At, key, n.kind)
			return nil
		}
		var next *jnode
		for _, m := range n.members {
			if m.key == key {
				next = m.val
				break
			}
		}
		if next == nil {
			pos := ld.df.pos(n.off)
			ld.c.errorf(diag.DataFile, pos, pos, "at %q: no key %q in this object", *ld.l.At, key)
			return nil
		}
		n = next
	}
	return n
}

// jsonRecord converts one JSON object to a record. key is the member that
// holds it when the records are an object by id.
func (ld *loader) jsonRecord(n *jnode, key *jmember) *ir.Record {
	c, e, df := ld.c, ld.e, ld.df
	rpos := df.pos(n.off)
	if n.kind != jObject {
		c.errorf(diag.TypeMismatch, rpos, rpos, "a record of %s must be a JSON object, got %s", e.Name, n.kind)
		return nil
	}
	r := &ir.Record{Entity: e, Pos: ir.Pos(rpos), Values: make([]*ir.Value, len(e.Fields))}
	given := map[*ir.Field]*jnode{}
	var idNode *jnode
	seen := map[string]bool{}
	for _, m := range n.members {
		if seen[m.key] {
			pos := df.pos(m.off)
			c.errorf(diag.DuplicateName, pos, pos, "duplicate key %q", m.key)
			continue
		}
		seen[m.key] = true
		if e.Key == nil && m.key == ld.idSource {
			idNode = m.val
			continue
		}
		f := ld.bySource[m.key]
		if f == nil {
			pos := df.pos(m.off)
			c.errorf(diag.UnresolvedName, pos, pos, "%s has no field %q%s", e.Name, m.key, suggestName(sortedKeys(ld.bySource), m.key))
			continue
		}
		given[f] = m.val
	}
	for i, f := range e.Fields {
		r.Values[i] = &ir.Value{Kind: ir.KindNull}
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			continue
		}
		switch v := given[f]; {
		case v != nil:
			val := c.jsonValue(v, f.Type, df, ld.idx)
			if val == nil {
				continue
			}
			r.Values[i] = val
			if val.Kind != ir.KindNull {
				if msg := boundViolation(f, val); msg != "" {
					c.errorAt(diag.OutOfRange, span{df: df, off: v.off, endOff: v.off}, "%s.%s %s", e.Name, f.Name, msg)
				}
			}
		case f == e.Key && key != nil:
			r.Values[i] = &ir.Value{Kind: ir.KindString, Str: key.key}
		case f.Default != nil:
			r.Values[i] = f.Default
		case !f.Type.Optional:
			c.errorf(diag.MissingRequired, rpos, rpos, "this %s record does not give required field %q", e.Name, f.Name)
		}
	}
	switch {
	case e.Key != nil:
		v := r.Values[fieldIndex(e, e.Key)]
		if v.Kind != ir.KindString {
			return nil // reported
		}
		r.ID = v.Str
		if key != nil && key.key != r.ID {
			pos := df.pos(given[e.Key].off)
			c.errorf(diag.TypeMismatch, pos, pos, "the key %q differs from the record's key %q in the object", r.ID, key.key)
		}
	case key != nil:
		r.ID = key.key
		if idNode != nil && (idNode.kind != jString || idNode.str != key.key) {
			pos := df.pos(idNode.off)
			c.errorf(diag.TypeMismatch, pos, pos, "the id differs from the record's key %q in the object", key.key)
		}
	case idNode == nil:
		c.errorf(diag.MissingRequired, rpos, rpos, "this %s record has no id: records in an array need their id in %q", e.Name, ld.idSource)
		return nil
	case idNode.kind != jString:
		pos := df.pos(idNode.off)
		c.errorf(diag.TypeMismatch, pos, pos, "the id of a %s record must be a string, got %s", e.Name, idNode.kind)
		return nil
	default:
		r.ID = idNode.str
	}
	// A record with a bad field is kept (the world has errors anyway), so
	// that refs to it do not add errors of their own.
	return r
}

// jsonValue converts a JSON value to a value of type want, reporting
// problems at the value's position in the data file.
func (c *checker) jsonValue(n *jnode, want *ir.Type, df *dataFile, idx *recordIndex) *ir.Value {
	if want == nil || want.Kind == ir.KindInvalid {
		return nil
	}
	sp := df.span(n)
	bad := func() *ir.Value {
		got := n.kind.String()
		if n.kind == jString || n.kind == jNumber {
			got += " " + strconv.Quote(n.str)
			if n.kind == jNumber {
				got = "number " + n.str
			}
		}
		c.errorAt(diag.TypeMismatch, sp, "expected %s, got %s", want, got)
		return nil
	}
	if n.kind == jNull {
		if !want.Optional {
			c.errorAt(diag.TypeMismatch, sp, "null given for a %s, which is not optional", want)
			return nil
		}
		return &ir.Value{Kind: ir.KindNull}
	}
	switch want.Kind {
	case ir.KindList:
		if n.kind != jArray {
			return bad()
		}
		out := &ir.Value{Kind: ir.KindList, List: make([]*ir.Value, 0, len(n.elems))}
		ok := true
		for _, el := range n.elems {
			v := c.jsonValue(el, want.Elem, df, idx)
			ok = ok && v != nil
			out.List = append(out.List, v)
		}
		if !ok {
			return nil
		}
		return out
	case ir.KindMap:
		if n.kind != jObject {
			return bad()
		}
		out := &ir.Value{Kind: ir.KindMap, Entries: make([]ir.MapEntry, 0, len(n.members))}
		seen := map[string]bool{}
		ok := true
		for _, m := range n.members {
			if seen[m.key] {
				c.errorAt(diag.DuplicateName, span{df: df, off: m.off, endOff: m.off}, "duplicate key %q", m.key)
				ok = false
				continue
			}
			seen[m.key] = true
			v := c.jsonValue(m.val, want.Elem, df, idx)
			ok = ok && v != nil
			out.Entries = append(out.Entries, ir.MapEntry{Key: m.key, Value: v})
		}
		if !ok {
			return nil
		}
		sortEntries(out.Entries)
		return out
	case ir.KindStruct:
		if n.kind != jObject {
			return bad()
		}
		return c.jsonStruct(n, want.Struct, df, idx)
	}
	// A scalar: its text, as a CSV cell would hold it.
	switch n.kind {
	case jString:
		switch want.Kind {
		case ir.KindInt, ir.KindDecimal, ir.KindMoney, ir.KindBool:
			return bad() // numbers and booleans are written as JSON numbers and booleans
		}
		return c.scalarText(n.str, want, sp, idx)
	case jNumber:
		if !want.Kind.Numeric() {
			return bad()
		}
		return c.scalarText(n.str, want, sp, idx)
	case jBool:
		if want.Kind != ir.KindBool {
			return bad()
		}
		return &ir.Value{Kind: ir.KindBool, Bool: n.b}
	}
	return bad()
}

// jsonStruct converts a JSON object to a value record: a variant's object
// carries the tag and the fields of its case only.
func (c *checker) jsonStruct(n *jnode, s *ir.StructDef, df *dataFile, idx *recordIndex) *ir.Value {
	sp := span{df: df, off: n.off, endOff: n.off}
	given := map[*ir.Field]*jnode{}
	ok := true
	for _, m := range n.members {
		f := s.Field(m.key)
		key := span{df: df, off: m.off, endOff: m.off}
		switch {
		case f == nil:
			c.errorAt(diag.UnresolvedName, key, "%s has no field %q%s", s.Name, m.key, suggestName(fieldNames(s.AllFields()), m.key))
			ok = false
		case given[f] != nil:
			c.errorAt(diag.DuplicateName, key, "duplicate key %q", m.key)
			ok = false
		default:
			given[f] = m.val
		}
	}
	var cs *ir.Case
	if s.Tag != nil {
		tn := given[s.Tag]
		if tn == nil {
			c.errorAt(diag.MissingRequired, sp, "a value of %s must give %s: one of %s", s.Name, s.Tag.Name, strings.Join(s.Tag.Type.Enum.Values, ", "))
			return nil
		}
		tv := c.jsonValue(tn, s.Tag.Type, df, nil)
		if tv == nil {
			return nil
		}
		cs = caseNamed(s, tv.Str)
	}
	out := &ir.Value{Kind: ir.KindStruct, Fields: make([]*ir.Value, 0, len(s.AllFields()))}
	for _, f := range s.AllFields() {
		var v *ir.Value
		fn := given[f]
		switch {
		case f == s.Tag:
			v = &ir.Value{Kind: ir.KindEnum, Str: cs.Name}
		case f.Case != nil && f.Case != cs:
			if fn != nil {
				c.errorAt(diag.UnresolvedName, span{df: df, off: fn.off, endOff: fn.off}, "%s.%s belongs to case %s, not to %s", s.Name, f.Name, f.Case.Name, cs.Name)
				ok = false
			}
			v = &ir.Value{Kind: ir.KindNull}
		case f.Type == nil || f.Type.Kind == ir.KindInvalid:
			ok = false
		case fn != nil:
			if v = c.jsonValue(fn, f.Type, df, idx); v == nil {
				ok = false
			} else if v.Kind != ir.KindNull {
				if msg := boundViolation(f, v); msg != "" {
					c.errorAt(diag.OutOfRange, span{df: df, off: fn.off, endOff: fn.off}, "%s.%s %s", s.Name, f.Name, msg)
				}
			}
		case f.Default != nil:
			v = f.Default
		case f.Type.Optional:
			v = &ir.Value{Kind: ir.KindNull}
		default:
			what := s.Name
			if cs != nil {
				what += " (case " + cs.Name + ")"
			}
			c.errorAt(diag.MissingRequired, sp, "a value of %s does not give required field %q", what, f.Name)
			ok = false
		}
		out.Fields = append(out.Fields, v)
	}
	if !ok {
		return nil
	}
	return out
}

// scalarText converts the text of a scalar (a JSON string or number, a
// CSV cell) to a value of type want.
func (c *checker) scalarText(text string, want *ir.Type, sp span, idx *recordIndex) *ir.Value {
	switch want.Kind {
	case ir.KindString, ir.KindText:
		return &ir.Value{Kind: want.Kind, Str: text}
	case ir.KindInt:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			if f, ferr := strconv.ParseFloat(text, 64); ferr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 && !strings.ContainsAny(text, ".eE") {
				n = int64(f)
			} else {
				c.errorAt(diag.TypeMismatch, sp, "expected an integer, got %q", text)
				return nil
			}
		}
		return &ir.Value{Kind: ir.KindInt, Int: n}
	case ir.KindDecimal, ir.KindMoney:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || strings.ContainsAny(text, "xXpP_iInN") {
			c.errorAt(diag.TypeMismatch, sp, "expected a number, got %q", text)
			return nil
		}
		v, ok := c.numberValue(want.Kind, text)
		if !ok {
			c.errorAt(diag.InvalidLiteral, sp, "number %s is out of range%s", text, c.numberRange())
			return nil
		}
		return v
	case ir.KindBool:
		switch text {
		case "true":
			return &ir.Value{Kind: ir.KindBool, Bool: true}
		case "false":
			return &ir.Value{Kind: ir.KindBool}
		}
		c.errorAt(diag.TypeMismatch, sp, "expected true or false, got %q", text)
		return nil
	case ir.KindDate:
		if _, err := time.Parse(time.DateOnly, text); err != nil {
			c.errorAt(diag.TypeMismatch, sp, "expected a date such as 2026-03-14, got %q", text)
			return nil
		}
		return &ir.Value{Kind: ir.KindDate, Str: text}
	case ir.KindDateTime:
		s, err := normalizeDateTime(text)
		if err != nil {
			tm, rerr := time.Parse(time.RFC3339, text)
			if rerr != nil {
				c.errorAt(diag.TypeMismatch, sp, "expected a date-time such as 2026-03-14T09:30:00Z, got %q", text)
				return nil
			}
			s = tm.UTC().Format("2006-01-02T15:04:05Z")
		}
		return &ir.Value{Kind: ir.KindDateTime, Str: s}
	case ir.KindEnum:
		if !want.Enum.Has(text) {
			c.errorAt(diag.UnknownEnumValue, sp, "%q is not a value of %s; values: %s", text, want, strings.Join(want.Enum.Values, ", "))
			return nil
		}
		return &ir.Value{Kind: ir.KindEnum, Str: text}
	case ir.KindRef:
		v := &ir.Value{Kind: ir.KindRef, Str: text}
		if idx != nil {
			c.pending = append(c.pending, pendingRef{value: v, entity: want.Entity, idx: idx, span: sp})
		}
		return v
	}
	c.errorAt(diag.TypeMismatch, sp, "expected %s, got %q", want, text)
	return nil
}

// csvRecords converts the rows of a CSV file to records. An empty cell is
// null for an optional field (and the empty string for a required string).
func (ld *loader) csvRecords(add func(*ir.Record) bool) {
	c, e, df, t := ld.c, ld.e, ld.df, ld.df.csv
	fields := make([]*ir.Field, len(t.header))
	idCol := -1
	seen := map[string]bool{}
	ok := true
	for i, name := range t.header {
		pos := df.pos(t.pos[0][i])
		if seen[name] {
			c.errorf(diag.DuplicateName, pos, pos, "duplicate column %q", name)
			ok = false
			continue
		}
		seen[name] = true
		if e.Key == nil && name == ld.idSource {
			idCol = i
			continue
		}
		f := ld.bySource[name]
		if f == nil {
			c.errorf(diag.UnresolvedName, pos, pos, "%s has no field %q%s", e.Name, name, suggestName(sortedKeys(ld.bySource), name))
			ok = false
			continue
		}
		if composite(f.Type) {
			c.errorf(diag.TypeMismatch, pos, pos, "a CSV cell cannot hold the %s of %s.%s; load it from a JSON file", f.Type, e.Name, f.Name)
			ok = false
			continue
		}
		fields[i] = f
	}
	if e.Key == nil && idCol < 0 {
		pos := df.pos(0)
		c.errorf(diag.MissingRequired, pos, pos, "no %q column: the records of %s need their ids", ld.idSource, e.Name)
		ok = false
	}
	if !ok {
		return
	}
	for ri, row := range t.rows {
		offs := t.pos[ri+1]
		rpos := df.pos(offs[0])
		r := &ir.Record{Entity: e, Pos: ir.Pos(rpos), Values: make([]*ir.Value, len(e.Fields))}
		cells := map[*ir.Field]int{}
		for i, f := range fields {
			if f != nil {
				cells[f] = i
			}
		}
		for fi, f := range e.Fields {
			r.Values[fi] = &ir.Value{Kind: ir.KindNull}
			if f.Type == nil || f.Type.Kind == ir.KindInvalid {
				continue
			}
			i, has := cells[f]
			switch {
			case has && (row[i] != "" || !f.Type.Optional && f.Type.Kind.Textual()):
				cell := span{df: df, off: offs[i], endOff: offs[i]}
				v := c.scalarText(row[i], f.Type, cell, ld.idx)
				if v == nil {
					continue
				}
				r.Values[fi] = v
				if msg := boundViolation(f, v); msg != "" {
					c.errorAt(diag.OutOfRange, cell, "%s.%s %s", e.Name, f.Name, msg)
				}
			case f.Default != nil:
				r.Values[fi] = f.Default
			case !f.Type.Optional:
				c.errorf(diag.MissingRequired, rpos, rpos, "this %s record does not give required field %q", e.Name, f.Name)
			}
		}
		if e.Key != nil {
			if v := r.Values[fieldIndex(e, e.Key)]; v.Kind == ir.KindString {
				r.ID = v.Str
			}
		} else {
			r.ID = row[idCol]
		}
		if !add(r) {
			return
		}
	}
}
