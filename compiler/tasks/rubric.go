package tasks

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// The rubric of a chain or a program comes from the state diff between
// its start and the end of its golden run:
//
//   - every record created or changed is asserted whole, `svc.E["id"] ==
//     E { … }`: one assertion, all or nothing for the record, which pins
//     the fields the task did not ask to change too (a money field whose
//     value has more decimals than the currency allows is asserted
//     rounded beside a `matches` of the others);
//   - every record deleted is asserted gone, `"id" not in svc.E`;
//   - `unchanged except` those records fails any collateral write;
//   - `invariant N` for every invariant whose records or checks the run
//     wrote.
//
// So the rubric is false at the start (each record assertion fails there)
// and reaches 1 exactly when the final state is the expected one.

type change struct {
	e    *ir.Entity
	id   string
	kind string // created, changed, deleted
	rec  map[string]any
}

// diff finds the records the calls changed between start and end. It
// looks at the records the calls named and returned and the records they
// created, then proves there is nothing else (EqualExcept); failing that,
// it compares every record of every entity the calls may write.
func (x *synth) diff(start, end *eval.State, calls []*call) []change {
	written := map[*ir.Entity]bool{}
	for _, c := range calls {
		f := x.byTool[c.tool]
		for _, fl := range f.writes {
			written[fl.Entity] = true
		}
		for _, e := range f.creates {
			written[e] = true
		}
	}
	candidates := map[*ir.Entity][]string{}
	addID := func(e *ir.Entity, id string) {
		if !slices.Contains(candidates[e], id) {
			candidates[e] = append(candidates[e], id)
		}
	}
	for _, c := range calls {
		set := map[string]bool{}
		for _, a := range c.args {
			atoms(a.v, set)
		}
		atoms(c.obs, set)
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, e := range x.w.Entities {
			if !written[e] {
				continue
			}
			for _, k := range keys {
				if _, ok := start.RecordJSON(e, k); ok {
					addID(e, k)
				} else if _, ok := end.RecordJSON(e, k); ok {
					addID(e, k)
				}
			}
		}
	}
	for _, e := range x.w.Entities {
		if written[e] {
			for _, id := range end.NewIDs(start, e) {
				addID(e, id)
			}
		}
	}
	changes := x.compare(start, end, candidates)
	except := map[*ir.Entity]map[string]bool{}
	for _, ch := range changes {
		if except[ch.e] == nil {
			except[ch.e] = map[string]bool{}
		}
		except[ch.e][ch.id] = true
	}
	if end.EqualExcept(start, except) {
		return changes
	}
	all := map[*ir.Entity][]string{}
	for _, e := range x.w.Entities {
		if !written[e] {
			continue
		}
		ids := start.IDs(e)
		for _, id := range end.IDs(e) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		all[e] = ids
	}
	return x.compare(start, end, all)
}

// compare classifies the candidate records, in entity order.
func (x *synth) compare(start, end *eval.State, candidates map[*ir.Entity][]string) []change {
	var out []change
	for _, e := range x.w.Entities {
		for _, id := range candidates[e] {
			a, okA := start.RecordJSON(e, id)
			b, okB := end.RecordJSON(e, id)
			switch {
			case okA && okB && string(a) != string(b):
				m, _ := decode(b).(map[string]any)
				out = append(out, change{e, id, "changed", m})
			case !okA && okB:
				m, _ := decode(b).(map[string]any)
				out = append(out, change{e, id, "created", m})
			case okA && !okB:
				out = append(out, change{e: e, id: id, kind: "deleted"})
			}
		}
	}
	return out
}

// rubric is the assertions of a run, or the reason it has none.
func (x *synth) rubric(start, end *eval.State, calls []*call) ([]string, string) {
	changes := x.diff(start, end, calls)
	if len(changes) == 0 {
		return nil, "no_change"
	}
	var out, except []string
	written := map[*ir.Entity]bool{}
	for _, ch := range changes {
		written[ch.e] = true
		ref := ch.e.Service.Name + "." + ch.e.Name + "[" + strconv.Quote(ch.id) + "]"
		except = append(except, ref)
		if ch.kind == "deleted" {
			out = append(out, strconv.Quote(ch.id)+" not in "+ch.e.Service.Name+"."+ch.e.Name)
			continue
		}
		whole, bad := x.recordLit(ch.e, ch.rec)
		if len(bad) == 0 {
			out = append(out, ref+" == "+whole)
			continue
		}
		// Fields that cannot be literals: money finer than the currency
		// allows is asserted rounded; anything else drops the task.
		var good []string
		for _, fl := range ch.e.Fields {
			if slices.Contains(bad, fl) {
				continue
			}
			v := ch.rec[fl.Name]
			if v == nil && fl.Default == nil {
				continue
			}
			s, _ := x.lit(v, fl.Type)
			good = append(good, fl.Name+": "+s)
		}
		if len(good) > 0 {
			out = append(out, "matches("+ref+", { "+joinComma(good)+" })")
		}
		for _, fl := range bad {
			n, ok := ch.rec[fl.Name].(interface{ String() string })
			if !ok || fl.Type.Kind != ir.KindMoney || fl.Type.Optional || x.money < 0 {
				return nil, "unrepresentable_value"
			}
			r, ok := x.roundAmount(n.String(), x.money)
			if !ok {
				return nil, "unrepresentable_value"
			}
			out = append(out, "round("+ref+"."+fl.Name+", "+strconv.Itoa(x.money)+") == "+r)
		}
	}
	out = append(out, "unchanged except "+joinComma(except))
	for _, inv := range x.w.Invariants {
		touches := written[inv.Entity]
		for _, e := range ir.Touches(inv.Check) {
			if written[e] {
				touches = true
			}
		}
		if touches {
			out = append(out, "invariant "+inv.Name)
		}
	}
	return out, ""
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

// roundAmount rounds the number s to d decimals as the world's round
// does: in a world of exact numbers, half away from zero on the decimal
// digits; in a world of float numbers (`numbers "float"`), the exact
// binary value, ties to even, as Python's round and strconv do.
func (x *synth) roundAmount(s string, d int) (string, bool) {
	if x.w.FloatNumbers {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", false
		}
		return strconv.FormatFloat(f, 'f', d, 64), true
	}
	return roundDecimal(s, d)
}

// roundDecimal rounds a decimal numeral (digits, an optional sign and
// point) to d decimals, half away from zero.
func roundDecimal(s string, d int) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return "", false
	}
	for len(frac) <= d {
		frac += "0"
	}
	digits := []byte(intPart + frac[:d])
	if frac[d] >= '5' {
		i := len(digits) - 1
		for ; i >= 0 && digits[i] == '9'; i-- {
			digits[i] = '0'
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		} else {
			digits[i]++
		}
	}
	n := len(digits) - d
	out := string(digits[:n])
	if d > 0 {
		out += "." + string(digits[n:])
	}
	if neg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out, true
}
