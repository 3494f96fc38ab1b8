package eval

import (
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// Expected is the value an answer assertion (ir.AssertAnswer) asks the
// agent's final message to state, computed on s: the expression's value
// in the canonical text runtime.AnswerMatches compares (a number as
// runtime.Decimal writes it, or a float with the digits it needs; an id
// for a record; a date as YYYY-MM-DD; a list's elements in order; null is
// no value).
func (s *State) Expected(a *ir.Assertion) (runtime.Expected, error) {
	ev := s.evaluator()
	ev.readIndexes(false, a.Expr)
	v, err := ev.eval(a.Expr)
	if err != nil {
		return runtime.Expected{}, err
	}
	t := a.Expr.Type()
	elem := t
	var vals []value
	switch x := v.(type) {
	case nil:
	case []value:
		elem = t.Elem
		vals = x
	default:
		vals = []value{x}
	}
	out := runtime.Expected{Kind: answerKind(elem), Values: []string{}}
	for _, x := range vals {
		if x == nil {
			continue
		}
		out.Values = append(out.Values, answerText(x))
	}
	return out, nil
}

// answerKind is how runtime.AnswerMatches compares an answer of type t.
func answerKind(t *ir.Type) string {
	switch {
	case t == nil:
		return runtime.AnswerText
	case t.Kind.Numeric():
		return runtime.AnswerNumber
	case t.Kind == ir.KindDate:
		return runtime.AnswerDate
	case t.Kind == ir.KindBool:
		return runtime.AnswerBool
	}
	return runtime.AnswerText
}

// answerText is a value's canonical text in an answer.
func answerText(v value) string {
	switch x := v.(type) {
	case *row:
		return x.id
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case decimal:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case date:
		return x.String()
	case dateTime:
		return x.String()
	}
	return text(v)
}

// GoldenAnswer is the final message of a golden solution on s: the
// expected values of task's answer assertions (runtime.Expected.Text),
// one a line; "" when the task expects no answer or a value cannot be
// computed.
func (s *State) GoldenAnswer(task *ir.Task) string {
	var lines []string
	for _, a := range task.Assertions {
		if a == nil || a.Kind != ir.AssertAnswer {
			continue
		}
		e, err := s.Expected(a)
		if err != nil {
			continue
		}
		lines = append(lines, e.Text())
	}
	return strings.Join(lines, "\n")
}

// ExpectsAnswer reports whether task has an answer assertion.
func ExpectsAnswer(task *ir.Task) bool {
	for _, a := range task.Assertions {
		if a != nil && a.Kind == ir.AssertAnswer {
			return true
		}
	}
	return false
}
