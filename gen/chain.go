package gen

import (
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// Boolean chains. A spec's `and` and `or`, a membership test, a null guard
// before a comparison of an optional value: all compile to Go chains of &&
// or ||, and nested chains of one operator are one chain to go vet, which
// reads through parentheses. Written naively, idiomatic specs give chains
// vet rejects: `x != null and x <= y` repeats the guard `x != nil`
// ("redundant and"), `s == a and s == b` compares one value with two
// constants ("suspect and"). chain builds the simplest chain with the
// spec's meaning instead: operands are evaluated left to right as before,
// an operand already in the chain is left out (evaluating it again gives
// the same value: expressions do not change the state), and a comparison
// that contradicts an earlier one (x == 1 after x == 2 in an &&, x != 1
// after x != 2 in an ||) becomes the constant it always is.

// cmpConst describes a comparison of a value with a constant, `x == k` or
// `x != k`: the operator, the Go code of x and the constant's value.
type cmpConst struct {
	op  string
	x   *jen.Statement
	key string
}

// constKey is a canonical form of the value of e when e is a constant of
// the spec (a literal, a seed handle, today), so that two constants of one
// type compare by value.
func (sc *scope) constKey(e ir.Expr) (string, bool) {
	switch x := e.(type) {
	case *ir.Lit:
		v := x.Value
		if v == nil {
			return "", false
		}
		switch v.Kind {
		case ir.KindInt:
			if sc.g.exact() {
				return "n" + strconv.FormatInt(v.Int, 10), true
			}
			return "n" + strconv.FormatFloat(float64(v.Int), 'g', -1, 64), true
		case ir.KindDecimal, ir.KindMoney:
			if v.Dec != "" {
				return "n" + v.Dec, true
			}
			return "n" + strconv.FormatFloat(v.Num, 'g', -1, 64), true
		case ir.KindBool:
			return "b" + strconv.FormatBool(v.Bool), true
		case ir.KindString, ir.KindText, ir.KindRef, ir.KindEnum, ir.KindDate, ir.KindDateTime:
			return "s" + v.Str, true
		}
	case *ir.Handle:
		return "s" + x.ID, true
	case *ir.Today:
		if sc.g.taskClocks {
			return "", false // the episode's: not a constant
		}
		if x.Now {
			return "s" + sc.g.worldNow(), true
		}
		return "s" + sc.g.w.Today, true
	}
	return "", false
}

// compareConst is the code of a comparison (op "==" or "!=") of l and r
// that knows, when one side is a constant, which value is compared with
// which constant.
func (sc *scope) compareConst(c code, op string, l, r ir.Expr, lc, rc code) code {
	if k, ok := sc.constKey(r); ok {
		c.cmp = &cmpConst{op: op, x: lc.at(precCmp + 1), key: k}
	} else if k, ok := sc.constKey(l); ok {
		c.cmp = &cmpConst{op: op, x: rc.at(precCmp + 1), key: k}
	}
	return c
}

// goText renders Go code as go vet compares it.
func goText(c *jen.Statement) string { return fmt.Sprintf("%#v", c) }

// chain joins parts with op ("&&" or "||") into one chain, as described
// above. A part that is itself a chain of op is spliced in.
func (sc *scope) chain(op string, parts ...code) code {
	prec, bad, absorbing := precAnd, "==", false // x == k1 && x == k2 is false
	if op == "||" {
		prec, bad, absorbing = precOr, "!=", true // x != k1 || x != k2 is true
	}
	var terms []code
	for _, p := range parts {
		if p.prec == prec && p.terms != nil {
			terms = append(terms, p.terms...)
		} else {
			terms = append(terms, p)
		}
	}
	var kept []code
	seen := map[string]bool{}
	compared := map[string]string{} // the text of x → the constant it was compared with by bad
	for _, t := range terms {
		if t.cmp != nil && t.cmp.op == bad {
			x := goText(t.cmp.x)
			if prev, ok := compared[x]; ok && prev != t.cmp.key {
				// Always false (in an &&) or true (in an ||). What follows
				// is kept, though never evaluated: it may be the only use
				// of a Go variable.
				t = primary(jen.Lit(absorbing))
			} else if ok {
				continue // the same constant, written otherwise
			} else {
				compared[x] = t.cmp.key
			}
		}
		text := goText(t.at(prec + 1))
		if seen[text] {
			continue
		}
		seen[text] = true
		kept = append(kept, t)
	}
	if len(kept) == 1 {
		return kept[0]
	}
	out := jen.Add(kept[0].at(prec))
	for _, t := range kept[1:] {
		out.Op(op).Add(t.at(prec + 1))
	}
	return code{c: out, prec: prec, terms: kept}
}
