package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// evalText evaluates x on s and renders the result with text(), or the
// error as "error <code>: <message>".
func evalText(s *State, x ir.Expr) string {
	ev := s.evaluator()
	v, err := ev.eval(x)
	if err != nil {
		return "error " + err.code + ": " + err.msg
	}
	return text(v)
}

func TestExpressions(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	acme := lookup(x.Customer, handle(x.Customer, "acme"))
	bolt := lookup(x.Customer, handle(x.Customer, "bolt"))
	inv1 := lookup(x.Invoice, handle(x.Invoice, "inv1"))
	inv2 := lookup(x.Invoice, handle(x.Invoice, "inv2"))
	missing := lookup(x.Customer, sLit("nope"))
	nan := binT("/", dLit(0), dLit(0), tDecimal)
	d := func(s string) ir.Expr { return dateLit(s) }
	dt := func(s string) ir.Expr { return lit(vDateTime(s)) }
	ints := func(op string, a, b int64) ir.Expr { return binT(op, iLit(a), iLit(b), tInt) }

	tests := []struct {
		name string
		x    ir.Expr
		want string
	}{
		// Literals and names.
		{"string", sLit(`a "q"`), `"a \"q\""`},
		{"int", iLit(-3), "-3"},
		{"decimal", dLit(12.5), "12.5"},
		{"money literal typed from int", litT(vInt(7), tMoney), "7"},
		{"bool", bLit(true), "true"},
		{"date", d("2026-02-28"), `"2026-02-28"`},
		{"datetime short form", dt("2026-03-14T09:30"), `"2026-03-14T09:30:00Z"`},
		{"datetime offset", dt("2026-03-14T09:30:00+02:00"), `"2026-03-14T07:30:00Z"`},
		{"enum", enumLit(x.iStatus, "paid"), `"paid"`},
		{"null", nullLit(), "null"},
		{"today", today(), `"2026-03-14"`},
		{"bad date literal", d("2026-02-30"), `error internal: invalid date "2026-02-30": 2026-02 has no day 30`},

		// Records.
		{"field", fld(acme, x.cName), `"Acme AG"`},
		{"id", idOf(acme), `"acme"`},
		{"record", inv2, `Invoice "inv2"`},
		{"optional unset", fld(acme, x.cNote), "null"},
		{"follow ref", via(fld(inv1, x.iCustomer), x.cName), `"Acme AG"`},
		{"follow two refs", via(fld(bolt, x.cParent), x.cEmail), `"ap@acme.example"`},
		{"idof", recID(inv1), `"inv1"`},
		{"handle", handle(x.Invoice, "inv9"), `"inv9"`},
		{"lookup missing", fld(missing, x.cName), `error not_found: Customer "nope" not found`},
		{"deref missing", deref(litT(vRef("ghost"), tRef(x.Invoice))), `error not_found: Invoice "ghost" not found`},
		{"field of null", fld(&ir.Deref{ExprBase: base(tRec(x.Customer)), X: nullLit()}, x.cName), "error internal: null is not a record"},

		// Arithmetic.
		{"int +", ints("+", 7, 5), "12"},
		{"int -", ints("-", 7, 10), "-3"},
		{"int *", ints("*", 3, 4), "12"},
		{"int / is decimal", binT("/", iLit(7), iLit(2), tDecimal), "3.5"},
		{"int / exact", binT("/", iLit(6), iLit(3), tDecimal), "2"},
		{"int %", ints("%", 7, 3), "1"},
		{"int % negative dividend", ints("%", -7, 3), "-1"},
		{"int % negative divisor", ints("%", 7, -3), "1"},
		{"int % min/-1", ints("%", math.MinInt64, -1), "0"},
		{"int % zero", ints("%", 7, 0), "error internal: integer modulo by zero"},
		{"int overflow wraps", ints("+", math.MaxInt64, 1), "-9223372036854775808"},
		{"decimal +", binT("+", dLit(1.5), conv(iLit(1), tDecimal), tDecimal), "2.5"},
		{"decimal + int unconverted", binT("+", dLit(1.5), iLit(1), tDecimal), "2.5"},
		{"decimal float rounding", binT("+", dLit(0.1), dLit(0.2), tDecimal), "0.30000000000000004"},
		{"decimal / zero", binT("/", dLit(1), dLit(0), tDecimal), "+Inf"},
		{"int / zero", binT("/", iLit(-1), iLit(0), tDecimal), "-Inf"},
		{"zero / zero", nan, "NaN"},
		{"decimal %", binT("%", dLit(7.5), dLit(2), tDecimal), "1.5"},
		{"string +", bin("+", sLit("ab"), sLit("cd")), `"abcd"`},
		{"date + int", binT("+", d("2026-02-27"), iLit(2), tDate), `"2026-03-01"`},
		{"int + date", binT("+", iLit(1), d("2024-02-28"), tDate), `"2024-02-29"`},
		{"date - int", binT("-", d("2026-01-01"), iLit(1), tDate), `"2025-12-31"`},
		{"date - date", bin("-", d("2026-03-14"), d("2026-01-01")), "72"},
		{"date - date negative", bin("-", d("2025-12-31"), d("2026-01-01")), "-1"},
		{"unary minus int", neg(iLit(4)), "-4"},
		{"unary minus decimal", neg(dLit(4.5)), "-4.5"},
		{"field arithmetic", binT("*", fld(inv2, x.iAmount), conv(iLit(2), tMoney), tMoney), "161"},
		{"null operand", binT("+", fld(acme, x.cNote), sLit("x"), tText), "error internal: null operand of +"},
		{"bad operands", binT("-", sLit("a"), sLit("b"), tString), "error internal: cannot apply - to string and string"},

		// Comparison.
		{"int <", bin("<", iLit(1), iLit(2)), "true"},
		{"int >=", bin(">=", iLit(1), iLit(2)), "false"},
		{"mixed <=", bin("<=", iLit(2), dLit(2.0)), "true"},
		{"string <", bin("<", sLit("B"), sLit("a")), "true"},
		{"date <", bin("<", d("2026-01-01"), today()), "true"},
		{"datetime >", bin(">", dt("2026-03-14T09:30:00Z"), dt("2026-03-14T09:29")), "true"},
		{"datetime ==", eq(dt("2026-03-14T09:30:00Z"), dt("2026-03-14T11:30:00+02:00")), "true"},
		{"null < x", bin("<", fld(acme, x.cNote), sLit("a")), "false"},
		{"null >= x", bin(">=", fld(inv2, x.iIssued), d("2000-01-01")), "false"},
		{"null == null", eq(fld(acme, x.cNote), nullLit()), "true"},
		{"null != null", bin("!=", nullLit(), nullLit()), "false"},
		{"value == null", eq(fld(bolt, x.cNote), nullLit()), "false"},
		{"value != null", bin("!=", fld(bolt, x.cNote), nullLit()), "true"},
		{"enum == enum", eq(fld(inv1, x.iStatus), enumLit(x.iStatus, "issued")), "true"},
		{"enum == string", eq(fld(inv1, x.iStatus), sLit("issued")), "true"},
		{"record == same record", eq(acme, deref(fld(inv1, x.iCustomer))), "true"},
		{"record == other record", eq(acme, bolt), "false"},
		{"ref == record id", eq(fld(inv1, x.iCustomer), recID(acme)), "true"},
		{"ref == record (no IDOf)", eq(fld(inv1, x.iCustomer), acme), "true"},
		{"ref == handle", eq(fld(bolt, x.cParent), handle(x.Customer, "acme")), "true"},
		{"NaN == NaN", eq(nan, nan), "false"},
		{"NaN != NaN", bin("!=", nan, nan), "true"},
		{"NaN < 1", bin("<", nan, dLit(1)), "false"},
		{"NaN >= 1", bin(">=", nan, dLit(1)), "false"},
		{"bool ==", eq(bLit(true), fld(acme, x.cActive)), "true"},
		{"cannot order", bin("<", bLit(true), bLit(false)), "error internal: cannot compare bool < bool"},

		// Membership.
		{"in", bin("in", fld(inv1, x.iStatus), list(x.iStatus.Type, enumLit(x.iStatus, "paid"), enumLit(x.iStatus, "issued"))), "true"},
		{"not in", bin("notin", fld(inv1, x.iStatus), list(x.iStatus.Type, enumLit(x.iStatus, "paid"))), "true"},
		{"in stops at first match", bin("in", iLit(1), list(tInt, iLit(1), fld(missing, x.cLimit))), "true"},
		{"in evaluates until match", bin("in", iLit(2), list(tInt, iLit(1), fld(missing, x.cLimit))), `error not_found: Customer "nope" not found`},
		{"null in", bin("in", nullLit(), list(tString, sLit("a"))), "false"},
		{"null not in", bin("notin", nullLit(), list(tString, sLit("a"))), "true"},
		{"empty list", bin("in", iLit(1), list(tInt)), "false"},

		// Logic.
		{"and short-circuits", and(bLit(false), fld(missing, x.cActive)), "false"},
		{"or short-circuits", bin("or", bLit(true), fld(missing, x.cActive)), "true"},
		{"and evaluates right", and(bLit(true), fld(missing, x.cActive)), `error not_found: Customer "nope" not found`},
		{"or false", bin("or", bLit(false), bLit(false)), "false"},
		{"not", not(fld(acme, x.cActive)), "false"},
		{"not non-bool", not(iLit(1)), "error internal: cannot apply not to int"},

		// Functions.
		{"lower", call("lower", tString, sLit("ÄbC")), `"äbc"`},
		{"upper is Python's str.upper", call("upper", tString, sLit("straße")), `"STRASSE"`},
		{"lower has the final sigma", call("lower", tString, sLit("ΟΔΟΣ")), `"οδος"`},
		{"trim", call("trim", tString, sLit(" \t a b \n")), `"a b"`},
		{"len runes", call("len", tInt, sLit("héllo")), "5"},
		{"len empty", call("len", tInt, sLit("")), "0"},
		{"contains", call("contains", tBool, sLit("Acme AG"), sLit("me A")), "true"},
		{"contains is case-sensitive", call("contains", tBool, sLit("Acme AG"), sLit("acme")), "false"},
		{"starts_with", call("starts_with", tBool, sLit("Acme"), sLit("Ac")), "true"},
		{"ends_with", call("ends_with", tBool, sLit("Acme"), sLit("Ac")), "false"},
		{"abs int", call("abs", tInt, iLit(-3)), "3"},
		{"abs min int wraps", call("abs", tInt, iLit(math.MinInt64)), "-9223372036854775808"},
		{"abs decimal", call("abs", tDecimal, dLit(-2.5)), "2.5"},
		{"round 2 rounds the binary value", call("round", tDecimal, dLit(2.675), iLit(2)), "2.67"},
		{"round binary representation", call("round", tDecimal, dLit(2.345), iLit(2)), "2.35"},
		{"round below half", call("round", tDecimal, dLit(1.005), iLit(2)), "1"},
		{"round half to even", call("round", tDecimal, dLit(-2.5), iLit(0)), "-2"},
		{"round positive half to even", call("round", tDecimal, dLit(0.5), iLit(0)), "0"},
		{"round negative digits", call("round", tDecimal, dLit(1250), iLit(-2)), "1200"},
		{"round int unchanged", call("round", tInt, iLit(17), iLit(2)), "17"},
		{"round int negative digits", call("round", tInt, iLit(1749), iLit(-2)), "1700"},
		{"round huge digits", call("round", tDecimal, dLit(1.25), iLit(1000)), "1.25"},
		{"round one argument", call("round", tDecimal, dLit(1.5)), "2"},
		{"calc", call("calc", tDecimal, sLit("3131.1 + 4777.75 + 367.38")), "8276.23"},
		{"calc python semantics", call("str", tString, call("calc", tDecimal, sLit(" -7//2 + 2**3**2 + 12345678901234567890"))), `"1.234567890123457e+19"`},
		{"calc of a text value", call("calc", tDecimal, fld(bolt, x.cNote)), "error precondition_failed: Invalid characters in expression"},
		{"calc division by zero", call("calc", tDecimal, sLit("1/0")), "error precondition_failed: division by zero"},
		{"calc syntax error", call("calc", tDecimal, sLit("(1 2")), "error precondition_failed: '(' was never closed (<string>, line 1)"},
		{"calc overflow", call("calc", tDecimal, sLit("10**400")), "error precondition_failed: int too large to convert to float"},
		{"calc limit", call("calc", tDecimal, sLit("9**9**9")), "error precondition_failed: integer result too large: calc stops at 65536 bits"},
		{"calc inf", call("calc", tDecimal, sLit("10**308*10.0")), "+Inf"},
		{"calc null", call("calc", tDecimal, fld(acme, x.cNote)), "error internal: calc: argument 1 is null"},
		{"str int", call("str", tString, iLit(-42)), `"-42"`},
		{"str decimal integral", call("str", tString, dLit(4)), `"4.0"`},
		{"str decimal", call("str", tString, dLit(0.1)), `"0.1"`},
		{"str decimal exponent", call("str", tString, dLit(1e16)), `"1e+16"`},
		{"str negative zero", call("str", tString, neg(dLit(0))), `"-0.0"`},
		{"str NaN", call("str", tString, nan), `"nan"`},
		{"str inf", call("str", tString, binT("/", dLit(1), dLit(0), tDecimal)), `"inf"`},
		{"str of calculate", call("str", tString, call("round", tDecimal, call("calc", tDecimal, sLit("2.675")), iLit(2))), `"2.67"`},
		{"str of a string", call("str", tString, sLit("a")), "error internal: str(string): unsupported argument types"},
		{"floor", call("floor", tDecimal, dLit(-2.5)), "-3"},
		{"ceil", call("ceil", tDecimal, dLit(2.1)), "3"},
		{"floor typed int", call("floor", tInt, dLit(2.9)), "2"},
		{"ceil typed int saturates", call("ceil", tInt, dLit(1e300)), "9223372036854775807"},
		{"floor of NaN typed int", call("floor", tInt, nan), "0"},
		{"min_of int", call("min_of", tInt, iLit(3), iLit(-1)), "-1"},
		{"max_of mixed", call("max_of", tDecimal, iLit(3), dLit(2.5)), "3"},
		{"min_of NaN", call("min_of", tDecimal, dLit(1), nan), "NaN"},
		{"max_of dates", call("max_of", tDate, d("2026-01-01"), today()), `"2026-03-14"`},
		{"min_of strings", call("min_of", tString, sLit("b"), sLit("a")), `"a"`},
		{"days_between", call("days_between", tInt, d("2026-03-01"), today()), "13"},
		{"days_between backwards", call("days_between", tInt, today(), d("2026-03-01")), "-13"},
		{"year", call("year", tInt, today()), "2026"},
		{"month", call("month", tInt, d("2024-02-29")), "2"},
		{"day", call("day", tInt, d("2024-02-29")), "29"},
		{"weekday saturday", call("weekday", tInt, today()), "6"},
		{"weekday sunday", call("weekday", tInt, d("2026-03-15")), "7"},
		{"weekday monday", call("weekday", tInt, d("0001-01-01")), "1"},
		{"weekday before the epoch", call("weekday", tInt, d("1969-12-31")), "3"},
		{"day of a date-time", call("day", tInt, lit(vDateTime("2026-03-14T23:59:59Z"))), "14"},
		{"weekday of a date-time", call("weekday", tInt, lit(vDateTime("2026-03-15T00:00:00Z"))), "7"},
		{"date", call("date", tDate, iLit(2024), iLit(2), iLit(29)), `"2024-02-29"`},
		{"date of no day", call("date", tDate, iLit(2026), iLit(2), iLit(29)), "error internal: date(2026, 2, 29): 2026-02 has no day 29"},
		{"date of no month", call("date", tDate, iLit(2026), iLit(0), iLit(1)), "error internal: date(2026, 0, 1): month 0 out of range 1..12"},
		{"date of no year", call("date", tDate, iLit(10000), iLit(1), iLit(1)), "error internal: date(10000, 1, 1): year 10000 out of range 1..9999"},
		{"coalesce null", call("coalesce", tText, fld(acme, x.cNote), sLit("none")), `"none"`},
		{"coalesce value", call("coalesce", tText, fld(bolt, x.cNote), sLit("none")), `"slow payer"`},
		{"coalesce converts", call("coalesce", tDecimal, nullLit(), iLit(2)), "2"},
		{"null argument", call("lower", tString, fld(acme, x.cNote)), "error internal: lower: argument 1 is null"},
		{"unknown function", call("frobnicate", tInt, iLit(1)), "error internal: unknown function frobnicate"},
		{"wrong argument count", call("lower", tString), "error internal: lower takes 1 arguments, got 0"},
		{"wrong argument type", call("lower", tString, iLit(1)), "error internal: lower(int): unsupported argument types"},

		// Aggregates.
		{"count", agg("count", x.Customer, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "2"},
		{"count where", agg("count", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(c, x.cTier), enumLit(x.cTier, "gold")), nil
		}), "1"},
		{"count empty table", agg("count", x.Entry, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "0"},
		{"exists", agg("exists", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(i, x.iStatus), enumLit(x.iStatus, "draft")), nil
		}), "true"},
		{"exists none", agg("exists", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(i, x.iStatus), enumLit(x.iStatus, "paid")), nil
		}), "false"},
		{"exists stops at first", agg("exists", x.Customer, tBool, func(c ir.Expr) (ir.Expr, ir.Expr) {
			// acme matches first; bolt would fail (a missing record).
			return bin("or", eq(idOf(c), sLit("acme")), fld(missing, x.cActive)), nil
		}), "true"},
		{"forall", agg("forall", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return nil, bin(">", fld(i, x.iAmount), conv(iLit(0), tMoney))
		}), "true"},
		{"forall where", agg("forall", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(i, x.iStatus), enumLit(x.iStatus, "issued")), bin(">", fld(i, x.iAmount), conv(iLit(1000), tMoney))
		}), "true"},
		{"forall fails", agg("forall", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return nil, bin(">", fld(i, x.iAmount), conv(iLit(1000), tMoney))
		}), "false"},
		{"forall empty", agg("forall", x.Entry, tBool, func(e ir.Expr) (ir.Expr, ir.Expr) { return nil, bLit(false) }), "true"},
		{"sum money", agg("sum", x.Invoice, tMoney, func(i ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(i, x.iAmount) }), "1280.5"},
		{"sum ints", agg("sum", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) { return nil, call("len", tInt, fld(c, x.cName)) }), "16"},
		{"sum ints typed decimal", agg("sum", x.Customer, tDecimal, func(c ir.Expr) (ir.Expr, ir.Expr) { return nil, call("len", tInt, fld(c, x.cName)) }), "16"},
		{"sum empty", agg("sum", x.Entry, tMoney, func(e ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(e, x.eAmount) }), "0"},
		{"sum empty int", agg("sum", x.Entry, tInt, func(e ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(e, x.eLines) }), "0"},
		{"min", agg("min", x.Invoice, tMoney, func(i ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(i, x.iAmount) }), "80.5"},
		{"max", agg("max", x.Invoice, tMoney, func(i ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(i, x.iAmount) }), "1200"},
		{"max where none", agg("max", x.Invoice, tMoney, func(i ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(i, x.iStatus), enumLit(x.iStatus, "void")), fld(i, x.iAmount)
		}), "0"},
		{"sum error", agg("sum", x.Invoice, tMoney, func(i ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(missing, x.cLimit) }), `error not_found: Customer "nope" not found`},
		{"nested aggregate", agg("count", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) {
			return agg("exists", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
				return eq(fld(i, x.iCustomer), recID(c)), nil
			}), nil
		}), "2"},

		{"nested aggregate sees each outer record", agg("count", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) {
			return agg("exists", x.Invoice, tBool, func(i ir.Expr) (ir.Expr, ir.Expr) {
				return and(eq(fld(i, x.iCustomer), recID(c)), bin("<", fld(i, x.iAmount), conv(iLit(100), tMoney))), nil
			}), nil
		}), "1"},
		{"aggregate inside aggregate value", agg("sum", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) {
			return nil, agg("count", x.Invoice, tInt, func(i ir.Expr) (ir.Expr, ir.Expr) {
				return eq(fld(i, x.iCustomer), recID(c)), nil
			})
		}), "2"},

		// Lists.
		{"list", list(tInt, iLit(1), iLit(2)), "[1,2]"},
		{"list of records", list(tRec(x.Customer), acme), `[{"id":"acme","name":"Acme AG","email":"ap@acme.example","tier":"silver","credit_limit":50000,"active":true,"parent":null,"note":null}]`},

		// Malformed IR never panics.
		{"nil expression", nil, "error internal: missing expression"},
		{"unbound variable", vr(&ir.Var{Name: "ghost", Type: tInt}), "error internal: variable ghost is not bound"},
		{"unknown operator", binT("^", iLit(1), iLit(2), tInt), `error internal: unknown operator "^"`},
		{"unknown aggregate", agg("median", x.Invoice, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "error internal: unknown aggregate median"},
		{"aggregate over foreign entity", agg("count", &ir.Entity{Name: "Ghost"}, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "error internal: entity not in the world"},
		{"condition not bool", and(iLit(1), bLit(true)), "error internal: condition is int, not bool"},
		{"lit without value", &ir.Lit{ExprBase: base(tInt)}, "error internal: missing constant"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := evalText(s, tc.x); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	var deep ir.Expr = bLit(true)
	for range 2000 {
		deep = not(deep)
	}
	if got := evalText(s, deep); !strings.Contains(got, "nested deeper than 500 levels") {
		t.Errorf("deep expression: %s", got)
	}
	s.Limits.MaxSteps = 10
	count := agg("count", x.Customer, tInt, func(c ir.Expr) (ir.Expr, ir.Expr) {
		return agg("exists", x.Invoice, tBool, func(ir.Expr) (ir.Expr, ir.Expr) { return bLit(false), nil }), nil
	})
	if got := evalText(s, count); got != "error internal: evaluation exceeded 10 steps" {
		t.Errorf("step budget: %s", got)
	}
}
