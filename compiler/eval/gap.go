package eval

import (
	"math"
	"strconv"

	"github.com/worldc/worldc/compiler/ir"
)

// Gap is how far a record is from keeping an invariant (InvariantGap).
type Gap struct {
	// Distance is 0 when the record keeps the invariant (or its trigger
	// does not hold on it); else, for a check made of comparisons of
	// numbers (==, <, <=, >, >=, joined by and and or), the distance
	// between the two sides of each comparison it breaks (none for a
	// strict one of equal sides), summed over an and, the least over an
	// or.
	Distance float64
	// Sides are, for each == of the check in order, whether its left side
	// is below (-1), at (0) or above (1) its right: a change that takes a
	// sum past the value it must equal turns a -1 into a 1.
	Sides []int8
}

// Overshoots reports whether g, measured after a change, has an == whose
// left side went past its right since before.
func (g Gap) Overshoots(before Gap) bool {
	if len(g.Sides) != len(before.Sides) {
		return true
	}
	for i, s := range g.Sides {
		if s*before.Sides[i] < 0 {
			return true
		}
	}
	return false
}

// InvariantGap measures how far the record id of inv's entity is from
// keeping inv on s (see Gap). ok is false when the check is not of the
// form Gap measures, an evaluation fails, or there is no such record:
// then there is no measure.
//
// A synthesised chain uses it to repair a violation that no single call
// repairs (a loan closed only when the payments booked equal its
// schedule: each payment booked brings the two sums closer).
func (s *State) InvariantGap(inv *ir.Invariant, id string) (g Gap, ok bool) {
	if inv == nil {
		return Gap{}, false
	}
	t := s.table(inv.Entity)
	if t == nil {
		return Gap{}, false
	}
	r := t.get(id)
	if r == nil {
		return Gap{}, false
	}
	defer func() {
		if p := recover(); p != nil {
			g, ok = Gap{}, false
		}
	}()
	ev := s.evaluator()
	ev.readIndexes(false, inv.Where, inv.Check)
	ev.vars = append(ev.vars[:0], binding{inv.Var, r})
	if inv.Where != nil {
		trig, err := ev.cond(inv.Where)
		if err != nil {
			return Gap{}, false
		}
		if !trig {
			return Gap{}, true
		}
	}
	g.Distance, ok = ev.gap(inv.Check, &g.Sides, 0)
	return g, ok
}

// gap is the distance of the condition x from holding, appending the
// sides of its == comparisons to sides; see Gap.
func (ev *evaluator) gap(x ir.Expr, sides *[]int8, depth int) (float64, bool) {
	if depth > 32 {
		return 0, false
	}
	b, isBin := x.(*ir.Binary)
	if !isBin {
		return 0, false
	}
	switch b.Op {
	case "and", "or":
		l, ok := ev.gap(b.L, sides, depth+1)
		if !ok {
			return 0, false
		}
		r, ok := ev.gap(b.R, sides, depth+1)
		if !ok {
			return 0, false
		}
		if b.Op == "and" {
			return l + r, true
		}
		return math.Min(l, r), true
	case "==", "<", "<=", ">", ">=":
	default:
		return 0, false
	}
	lv, err := ev.eval(b.L)
	if err != nil {
		return 0, false
	}
	rv, err := ev.eval(b.R)
	if err != nil {
		return 0, false
	}
	l, ok1 := asNumber(lv)
	r, ok2 := asNumber(rv)
	if !ok1 || !ok2 {
		return 0, false
	}
	d := l - r
	switch b.Op {
	case "==":
		var side int8
		switch {
		case d < 0:
			side = -1
		case d > 0:
			side = 1
		}
		*sides = append(*sides, side)
		return math.Abs(d), true
	case "<", "<=":
		// Broken when l is above r (or equal, for <): by how much.
		if d > 0 || d == 0 && b.Op == "<" {
			return math.Max(d, 0), true
		}
	case ">", ">=":
		if d < 0 || d == 0 && b.Op == ">" {
			return math.Max(-d, 0), true
		}
	}
	return 0, true
}

// asNumber is a number value as a float64.
func asNumber(v value) (float64, bool) {
	switch y := v.(type) {
	case int64:
		return float64(y), true
	case float64:
		return y, !math.IsNaN(y) && !math.IsInf(y, 0)
	case decimal:
		f, err := strconv.ParseFloat(y.String(), 64)
		return f, err == nil
	}
	return 0, false
}
