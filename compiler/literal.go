package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// pendingRef is a seed ref value whose handle is checked once every seed
// record is known.
type pendingRef struct {
	value   *ir.Value
	entity  *ir.Entity
	handles map[string]*ir.Record
	pos     dsl.Pos
	end     dsl.Pos
}

// literal converts a constant to a value of type want. handles, when
// non-nil, is where ref values are looked up (later, see resolvePending).
// It reports problems and returns nil for a bad literal.
func (c *checker) literal(lit *dsl.Literal, want *ir.Type, handles map[string]*ir.Record) *ir.Value {
	if want == nil || want.Kind == ir.KindInvalid {
		return nil
	}
	bad := func() *ir.Value {
		c.errorf("W004", lit.Pos, lit.EndPos, "expected %s, got %s", want, describeLiteral(lit))
		return nil
	}
	if lit.Null {
		if !want.Optional {
			c.errorf("W004", lit.Pos, lit.EndPos, "null given for a %s, which is not optional", want)
			return nil
		}
		return &ir.Value{Kind: ir.KindNull}
	}
	switch want.Kind {
	case ir.KindString, ir.KindText:
		if lit.String == nil {
			return bad()
		}
		return &ir.Value{Kind: want.Kind, Str: *lit.String}
	case ir.KindInt:
		if lit.Number == nil {
			return bad()
		}
		if strings.Contains(*lit.Number, ".") {
			c.errorf("W004", lit.Pos, lit.EndPos, "expected an integer, got %s", *lit.Number)
			return nil
		}
		n, err := strconv.ParseInt(*lit.Number, 10, 64)
		if err != nil {
			c.errorf("W022", lit.Pos, lit.EndPos, "integer %s is out of the 64-bit range", *lit.Number)
			return nil
		}
		return &ir.Value{Kind: ir.KindInt, Int: n}
	case ir.KindDecimal, ir.KindMoney:
		if lit.Number == nil {
			return bad()
		}
		f, err := strconv.ParseFloat(*lit.Number, 64)
		if err != nil || math.IsInf(f, 0) {
			c.errorf("W022", lit.Pos, lit.EndPos, "number %s is out of range", *lit.Number)
			return nil
		}
		return &ir.Value{Kind: want.Kind, Num: f}
	case ir.KindBool:
		if lit.Bool == nil {
			return bad()
		}
		return &ir.Value{Kind: ir.KindBool, Bool: *lit.Bool == "true"}
	case ir.KindDate:
		if lit.Date == nil {
			return bad()
		}
		if _, err := time.Parse(time.DateOnly, *lit.Date); err != nil {
			c.errorf("W022", lit.Pos, lit.EndPos, "date %s does not exist", *lit.Date)
			return nil
		}
		return &ir.Value{Kind: ir.KindDate, Str: *lit.Date}
	case ir.KindDateTime:
		if lit.DateTime == nil {
			return bad()
		}
		s, err := normalizeDateTime(*lit.DateTime)
		if err != nil {
			c.errorf("W022", lit.Pos, lit.EndPos, "%v", err)
			return nil
		}
		return &ir.Value{Kind: ir.KindDateTime, Str: s}
	case ir.KindEnum:
		var name string
		switch {
		case lit.Ident != nil:
			name = *lit.Ident
		case lit.String != nil:
			name = *lit.String
		default:
			return bad()
		}
		if !want.Enum.Has(name) {
			c.errorf("W005", lit.Pos, lit.EndPos, "%q is not a value of %s; values: %s", name, want, strings.Join(want.Enum.Values, ", "))
			return nil
		}
		return &ir.Value{Kind: ir.KindEnum, Str: name}
	case ir.KindRef:
		var id string
		switch {
		case lit.Ident != nil:
			id = *lit.Ident
		case lit.String != nil:
			id = *lit.String
		default:
			return bad()
		}
		v := &ir.Value{Kind: ir.KindRef, Str: id}
		if handles != nil {
			c.pending = append(c.pending, pendingRef{value: v, entity: want.Entity, handles: handles, pos: lit.Pos, end: lit.EndPos})
		}
		return v
	}
	return bad()
}

// resolvePending checks that every seed ref names a record of the right
// entity.
func (c *checker) resolvePending() {
	for _, p := range c.pending {
		r := p.handles[p.value.Str]
		switch {
		case r == nil:
			c.errorf("W009", p.pos, p.end, "no %s record %q in the seed", p.entity.Name, p.value.Str)
		case r.Entity != p.entity:
			c.errorf("W009", p.pos, p.end, "%q is a %s record, not a %s", p.value.Str, r.Entity.Name, p.entity.Name)
		}
	}
	c.pending = nil
}

func describeLiteral(lit *dsl.Literal) string {
	switch {
	case lit.Number != nil:
		return "number " + *lit.Number
	case lit.String != nil:
		return "string " + strconv.Quote(*lit.String)
	case lit.Date != nil:
		return "date " + *lit.Date
	case lit.DateTime != nil:
		return "date-time " + *lit.DateTime
	case lit.Bool != nil:
		return *lit.Bool
	case lit.Null:
		return "null"
	case lit.Ident != nil:
		return "name " + *lit.Ident
	}
	return "nothing"
}

// normalizeDateTime accepts YYYY-MM-DDTHH:MM[:SS][Z] and returns RFC 3339
// in UTC with seconds.
func normalizeDateTime(s string) (string, error) {
	t := strings.TrimSuffix(s, "Z")
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if tm, err := time.Parse(layout, t); err == nil {
			return tm.Format("2006-01-02T15:04:05Z"), nil
		}
	}
	return "", fmt.Errorf("date-time %s does not exist", s)
}

// boundViolation reports how v breaks a bound of f ("" when it does not).
func boundViolation(f *ir.Field, v *ir.Value) string {
	for _, b := range f.Bounds {
		c := compareValues(v, b.Value)
		ok := true
		switch b.Op {
		case ">=":
			ok = c >= 0
		case ">":
			ok = c > 0
		case "<=":
			ok = c <= 0
		case "<":
			ok = c < 0
		}
		if !ok {
			return fmt.Sprintf("is %s, must be %s %s", formatValue(v), b.Op, formatValue(b.Value))
		}
	}
	return ""
}

// compareValues orders two constants of compatible kinds.
func compareValues(a, b *ir.Value) int {
	num := func(v *ir.Value) float64 {
		if v.Kind == ir.KindInt {
			return float64(v.Int)
		}
		return v.Num
	}
	if a.Kind.Numeric() && b.Kind.Numeric() {
		x, y := num(a), num(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a.Str, b.Str)
}

// formatValue renders a constant as the spec would write it.
func formatValue(v *ir.Value) string {
	switch v.Kind {
	case ir.KindNull:
		return "null"
	case ir.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case ir.KindDecimal, ir.KindMoney:
		return strconv.FormatFloat(v.Num, 'f', -1, 64)
	case ir.KindBool:
		return strconv.FormatBool(v.Bool)
	case ir.KindString, ir.KindText:
		return strconv.Quote(v.Str)
	}
	return v.Str
}
