#!/usr/bin/env python3
"""Writes probes.json: expressions over calc's alphabet with CPython's answers.

Usage (from this directory; probes.json is written with the interpreters
tau2-bench supports as --compare, here pyenv's 3.12.1 and 3.13.0):

    python3 probes.py --compare python3.12 python3.13 > probes.json
    python3 probes.py --seed 7 --scale 30 > /tmp/big.json   # a larger corpus

Each probe is answered as tau2-bench's retail `calculate` tool computes it
(sierra-research/tau2-bench, src/tau2/domains/retail/tools.py, MIT): reject a
character outside "0123456789+-*/(). " with ValueError("Invalid characters in
expression"), then str(round(float(eval(expression, {"__builtins__": None},
{})), 2)). A probe records

    expr     the expression
    kind     the family it comes from (see generate)
    value    repr(eval(expr)), when eval succeeds and repr does
    float    repr(float(eval(expr))), when that succeeds
    result   str(round(float(eval(expr)), 2)): calculate's answer
    error    the exception's class name, when one is raised
    message  str(exception): calculate's failure message
    others   the answers of the --compare interpreters that differ

Expressions that calc refuses by one of its limits (an int of more than
LIMIT_BITS bits, which Python might take hours to build, more than 1000
characters, more than 100 nested parentheses; pycalc's MaxIntBits, MaxLength
and MaxNesting) are not evaluated: they are kind "limit" with error
"LimitError", which calc must answer.

The generator is deterministic (seeded); the answers depend on the CPython
version, recorded in the file.
"""

import ast
import json
import random
import subprocess
import sys
import warnings

ALPHABET = "0123456789+-*/(). "
LIMIT_BITS = 1 << 16
MAX_LENGTH = 1000
MAX_NESTING = 100


def answer(expr):
    """calculate(expr) as tau2 computes it, with the intermediate values."""
    rec = {}
    if not all(c in ALPHABET for c in expr):
        return {"error": "ValueError", "message": "Invalid characters in expression"}
    try:
        v = eval(expr, {"__builtins__": None}, {})
    except BaseException as e:  # noqa: BLE001 - every exception is an answer
        return {"error": type(e).__name__, "message": str(e)}
    try:
        rec["value"] = repr(v)
    except ValueError:  # an int of more than 4300 digits
        pass
    try:
        f = float(v)
    except BaseException as e:  # noqa: BLE001
        rec.update(error=type(e).__name__, message=str(e))
        return rec
    rec["float"] = repr(f)
    rec["result"] = str(round(f, 2))
    return rec


class TooBig(Exception):
    pass


def guard(node):
    """Evaluates the tree like eval would, raising TooBig before an int
    operation whose result would exceed LIMIT_BITS bits (other exceptions
    propagate: eval stops there too, before any big int)."""
    if isinstance(node, ast.Expression):
        return guard(node.body)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return ()
    if isinstance(node, ast.UnaryOp):
        v = guard(node.operand)
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp):
        left, right = guard(node.left), guard(node.right)
        op = type(node.op)
        if type(left) is int and type(right) is int:
            if op is ast.Pow and right > 0 and abs(left) > 1:
                if (abs(left).bit_length() - 1) * right >= LIMIT_BITS:
                    raise TooBig
        res = {
            ast.Add: lambda a, b: a + b,
            ast.Sub: lambda a, b: a - b,
            ast.Mult: lambda a, b: a * b,
            ast.Div: lambda a, b: a / b,
            ast.FloorDiv: lambda a, b: a // b,
            ast.Pow: lambda a, b: a ** b,
        }[op](left, right)
        if type(res) is int and res.bit_length() > LIMIT_BITS:
            raise TooBig
        return res
    if isinstance(node, ast.Call):
        guard(node.func)
        for a in node.args:
            guard(a.value if isinstance(a, ast.Starred) else a)
        for k in node.keywords:
            guard(k.value)
        raise TypeError("not callable")
    raise AssertionError("unexpected node %r" % node)


def nesting(expr):
    depth = deepest = 0
    for c in expr:
        if c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth = max(depth - 1, 0)
    return deepest


def over_limit(expr):
    """Whether calc refuses expr by a limit (see the module comment)."""
    if not all(c in ALPHABET for c in expr):
        return False
    if len(expr) > MAX_LENGTH:
        return True
    src = expr.lstrip(" ")
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        # The tokenizer's own errors come before calc's nesting limit.
        if e.msg.startswith(("unmatched", "leading zeros", "too many nested")):
            return False
        return nesting(src) > MAX_NESTING
    except (MemoryError, RecursionError):
        return nesting(src) > MAX_NESTING
    if nesting(src) > MAX_NESTING:
        return True
    try:
        guard(tree)
    except TooBig:
        return True
    except BaseException:  # noqa: BLE001 - eval raises at the same point
        return False
    return False


# --- generators ------------------------------------------------------------

TABLE = [
    # docs/design/tau2-retail.md §4.1, in its order
    "12345678901234567890", "-7//2", "-2**2", "2**3**2", "2**-1", " 1+1",
    ".5", "5.", "08.5", "00", "01", "2 + 2", "100",
    "2.675", "0.015", "123456789.125", "0.125+0.25", "10000000000000000.0",
    "0*-1.0", "10**308*10.0",
    "1/0", "1.0/0", "5//0", "5.0//0", "0**-1", "10**400", "10**400/1",
    "2.0**10000", "(-8)**0.5", "()", "...", "(1)(2)", "(1.5)(2)", "()(2)",
    "", " ", "1 +", "3 4", "1.2.3", "(1 2)", "(1", ")",
    "1e5", "5 % 2", "abs(1)", "1_000", "1\t+1", "2+2\n",
    # the 13 gold calls of tau2's tasks.json
    "3131.1 + 4777.75 + 367.38", "2 * 3", "(1.5 + 2) / 3",
]

EDGES = [
    # literals
    "0", "000", "0.0", "00.5", "00.", "0.", ".0", "007.5", "007", "0_0", "09", "0 0",
    "1.", "1..", "1...", "...1", "1 ...", "....", ".", ". 5", "1 .5", "1. 5", "1 . 5",
    "0" * 30, "1" * 400, "1" * 400 + ".", "9" * 309 + ".", "1" + "0" * 308 + ".",
    "1" + "0" * 309 + ".", "0." + "0" * 320 + "1", "0." + "0" * 330 + "1",
    "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368",
    "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
    "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792",
    "9007199254740993", "9007199254740993.", "-9007199254740993", "9007199254740995",
    "4503599627370497.5", "2.5", "3.5", "-2.5", "0.005", "0.015", "0.025", "1.005",
    "1.015", "2.675", "-2.675", "0.285", "1234567.125", "1234567890123456.7",
    "9999999999999998.", "999999999999999.99", "0.001", "0.004999", "-0.001",
    "-0.005", "-0.0", "+0.0", "-0", "--0.0", "0.1+0.2", "1/3", "2/3", "-1/3",
    "1/7", "22/7", "1e16", "10**16*1.0", "10**15*1.0+0.3", "10**17/3", "2**63",
    "2**64/3", "10**22/1", "10**23*1.0", "2**53+1.0", "2**1023*1.0", "2**1024*1.0",
    "2**1024//2*1.0", "(2**1024-2**970)*1.0", "(2**1024-2**970-1)*1.0",
    "(2**1024-2**970)/1", "(2**1024-2**970-1)/1", "2**1025/2", "2**1025/3",
    "10**400/10**399", "10**400//10**399", "1/10**400", "-1/10**400", "1/-10**400",
    "0/-5", "0/5", "-0/5", "0.0/-5", "0/-5.0", "3/10**330", "10**330/3",
    "2**-1074", "2**-1075", "2**-1076", "0.5**1074", "0.5**1075", "3*2**-1075",
    "2.0**1023", "2.0**1024", "2.0**-1022", "2.0**-1080", "10.0**308", "10.0**309",
    "10**308", "10.0**-323", "10.0**-324", "1.5**100", "1.1**1000", "1.0001**100000",
    "0.9999**1000000", "2**0.5", "3**0.5", "4**0.5", "0.25**0.5", "9**1.5", "2**-0.5",
    "10**-2", "10**-3", "(-10)**-3", "(-2)**-2", "(-2.0)**3", "(-2.0)**4.0",
    "(-2)**2.0", "(-2)**0.5", "(-1)**0.5", "(-8)**(1/3)", "0**0", "0.0**0", "0**0.0",
    "0.0**0.0", "0**-1.0", "0.0**-1", "(-0.0)**-1", "(-0.0)**3", "(-0.0)**2", "0**1",
    "1**(10**100)", "(-1)**(10**100)", "(-1)**(10**100+1)", "0**(10**100)",
    "1.0**(10**308*10.0)", "2.0**(10**308*10.0)", "0.5**(10**308*10.0)",
    "2.0**-(10**308*10.0)", "(10**308*10.0)**2", "(10**308*10.0)**-2",
    "(-(10**308*10.0))**3", "(-(10**308*10.0))**-3", "(-(10**308*10.0))**2",
    "(10**308*10.0)**0", "(10**308*10.0-10**308*10.0)**0", "(10**308*10.0-10**308*10.0)**2",
    "1**(10**308*10.0-10**308*10.0)", "2**(10**308*10.0-10**308*10.0)",
    "10**308*10.0", "-10**308*10.0", "10**308*10.0-10**308*10.0", "0*(10**308*10.0)",
    "(10**308*10.0)//1", "5.0//(10**308*10.0)", "-5.0//(10**308*10.0)",
    "(10**308*10.0)/(10**308*10.0)", "1/(10**308*10.0)", "-1/(10**308*10.0)",
    "-7//2", "7//-2", "-7//-2", "-7.5//2", "7.5//-2", "-7//2.0", "7//-2.0", "-0.0//1",
    "0.0//-1", "0//-1", "-1//10**400", "1//-10**400", "10**400//-7", "0.1//0.01",
    "1//0.1", "-1//0.1", "5.//0.0", "5//0.", "0//0", "0.0//0.0", "0/0", "0.0/0",
    "1.0/0.0", "10**400/0", "10**400/0.0", "0.0/10**400", "10**400//0.0", "10**400+1.0",
    "1.0+10**400", "10**400*0.0", "10**400-10**400", "10**400*0", "-10**400",
    "(10**400)**-1", "2**(-10**400)", "2.0**10**400", "0.5**10**400",
    "10**400**0", "(-(10**400))**0", "3**-1", "7**-23", "(-3)**-5",
    "12345678901234567890*1.0", "-12345678901234567890", "2**100", "2**65535*1.0",
    "-2**65535", "2**65535//2**65534", "(2**65535+1)-2**65535", "4**32768//4**32767",
    # complex values
    "(-8)**0.5+1", "(-8)**0.5*2", "(-8)**0.5-(-8)**0.5", "(-8)**0.5*0",
    "1/((-8)**0.5*0)", "(-8)**0.5/2", "2/(-8)**0.5", "(-8)**0.5/(-8)**0.5",
    "((-8)**0.5)**2", "((-8)**0.5)**-1", "((-8)**0.5)**0", "((-8)**0.5)**100",
    "((-8)**0.5)**101", "((-8)**0.5)**-100", "((-8)**0.5)**1000", "((-8)**0.5)**0.5",
    "((-8)**0.5)**(1/3)", "2**((-1)**0.5)", "((-1)**0.5)**((-1)**0.5)",
    "(0*(-8)**0.5)**-1", "(0*(-8)**0.5)**0.5", "(0*(-8)**0.5)**2", "(0*(-8)**0.5)**0",
    "(0*(-8)**0.5)**(-1)**0.5", "((-8)**0.5)**(10**308*10.0)",
    "((-8)**0.5)**-(10**308*10.0)", "((-8)**0.5*(10**308*10.0))**2",
    "((-8)**0.5*(10**308*10.0))**0.5", "((-8)**0.5)**1e2", "(-8)**0.5//2",
    "2//(-8)**0.5", "-(-8)**0.5", "+(-8)**0.5", "(-8)**0.5+10**400",
    "10**400+(-8)**0.5", "10**400//(-8)**0.5", "(-8)**0.5*()", "()*(-8)**0.5",
    "()+(-8)**0.5", "(-8)**0.5+()", "(-8)**0.5+...", "(-1e5)**0.5",
    "(-2)**0.1", "(-2)**1.5", "(-0.5)**0.5", "(-10)**(10**308*10.0-10**308*10.0)",
    "(-10**308*10.0)**0.5",
    # tuples and Ellipsis
    "()+()", "()*3", "3*()", "()*-1", "()*0", "()*2.0", "2.0*()", "()*10**100",
    "10**100*()", "()*(2**63-1)", "()*2**63", "()*-2**63", "()*(-2**63-1)", "()*()",
    "()*...", "...*()", "()+1", "1+()", "()-()", "()/1", "()//1", "()**1", "1**()",
    "-()", "+()", "(())", "((()))", "() ", "( )", "...+1", "1+...", "-...", "+...",
    "...*2", "2*...", "...**0", "...-...", "(...)", "..", "(..)", ". .", "()()",
    # calls
    "(1)()", "()()", "...()", "1()", "1.5()", "(1)(1/0)", "(1/0)(1)", "(1)(2)(3)",
    "(1)(*())", "(1)(**())", "(1)(*1)", "(1)(**1)", "(1)(*...)", "(1)(**...)",
    "()(*1)", "()(**1)", "...(*1)", "2.(*1)", "(2.5)(*1)", "(-0.0)(*1)",
    "(10**308*10.0)(*1)", "(-(10**308*10.0))(**1)", "(10**308*10.0-10**308*10.0)(*1)",
    "((-8)**0.5)(*1)", "((-8)**0.5)(**())", "(0*(-8)**0.5)(*1)", "((-8)**0.5*-1)(*1)",
    "(-(-8)**0.5*0)(*1)", "((-8)**0.5*(10**308*10.0))(*1)",
    "(10**4299)(*1)", "(10**4300-1)(*1)", "(10**4300)(*1)", "(-10**4299)(*1)",
    "(-10**4300+1)(*1)", "(10**5000)(**())", "(1)(*(1/0))", "(1/0)(*1)",
    "(1)(*1)(2)", "(1)(2)(*1)", "(1)(*1 2)", "(1)(*)", "(1)(**)", "(1)(* *1)",
    "(1)(***1)", "(1)(****1)", "(1)(1 2)", "(1)(1 2", "(1)(", "(1)(*1", "(1)(**1",
    # syntax
    "*1", "**1", "(*1)", "(**1)", "( ** 1)", "(*1 2)", "1+*2", "1**", "1//", "1 // / 2",
    "(+)", "(*)", "(**)", "(/)", "(1+)", "(1 +)", "+", "-", "*", "/", "//", "**",
    "(", "((", "(()", "())", "(1))", "1)", ")(", "1(", "(1 2 3", "(1 2 3)",
    "((1) 2)", "(1 (2) 3)", "(1 .5)", "(1 . 5)", "(1.)", "(1)(1)(1 2)", "1 2",
    "(1 ...)", "(... 1)", "((1 2)", "(1 2))", "(1 2 (", "1 (2 3)", "1 (2 3",
    "01", "00 1", "(01)", "1 + 01", "(1 2) 01", "01 )", ") 01", "(" * 201 + "1" + ")" * 201,
    "(" * 201, ")" * 3, "(1 2" + ")" * 3, "0 01.5", "01.5", "001.", "1.2.3", "(1.2.3)",
    "1..2", "(1..2)", "1...2", "(1...2)", "1.2 3", "(1.2 3)", "2..", "(1)..",
]


def number(r):
    k = r.random()
    if k < 0.22:
        return str(r.randint(0, 20))
    if k < 0.44:
        return "%d.%02d" % (r.randint(0, 9999), r.randint(0, 99))
    if k < 0.54:
        return str(r.randint(0, 10 ** r.randint(1, 25)))
    if k < 0.62:
        return r.choice([".5", "5.", "0.0", "00", "0", "08.5", "00.1", "1.", ".25",
                         "000", "0.", "007.5", "2.675", "0.125", "1.005", "0.1"])
    if k < 0.74:
        return "%d.%d" % (r.randint(0, 10 ** r.randint(0, 10)), r.randint(0, 10 ** r.randint(1, 20)))
    if k < 0.78:
        return str(10 ** r.randint(15, 330) + r.randint(-5, 5))
    if k < 0.81:
        return "1" + "0" * r.randint(300, 320) + "."
    if k < 0.84:
        return "0." + "0" * r.randint(1, 330) + str(r.randint(1, 99))
    return "%d.%03d" % (r.randint(0, 1000), r.randint(0, 999))


def space(r):
    k = r.random()
    return "" if k < 0.55 else " " if k < 0.95 else "  "


def expression(r, depth):
    if depth <= 0 or r.random() < 0.22:
        return number(r)
    k = r.random()
    sp = space(r)
    if k < 0.58:
        op = r.choices(["+", "-", "*", "/", "//", "**"], weights=[6, 4, 5, 5, 2, 3])[0]
        left = expression(r, depth - 1)
        if op == "**":
            right = r.choice([str(r.randint(0, 12)), "0.5", "-1", "2", "(1/3)", "-0.5",
                              "%d.%d" % (r.randint(0, 3), r.randint(0, 99)),
                              str(-r.randint(1, 30)), expression(r, depth - 2)])
        else:
            right = expression(r, depth - 1)
        return left + sp + op + sp + right
    if k < 0.70:
        return r.choice("+-") + sp + expression(r, depth - 1)
    if k < 0.88:
        return "(" + sp + expression(r, depth - 1) + sp + ")"
    if k < 0.91:
        return r.choice(["()", "...", "(-1)**0.5", "(-8)**0.5", "(-2.5)**1.5"])
    if k < 0.95:
        callee = "(" + expression(r, depth - 1) + ")"
        arg = r.choice(["", expression(r, depth - 1), "*" + expression(r, depth - 1),
                        "**" + expression(r, depth - 1), "*()"])
        return callee + "(" + arg + ")"
    return "(-" + number(r) + ")" + sp + "**" + sp + r.choice(["0.5", "1.5", "(1/3)", "2", "3.0"])


TOKENS = ["1", "2", "0", "00", "01", "007", "12.5", "1.", "5.", ".5", "08.5", "...",
          "(", "(", "(", "(", ")", ")", ")", ")", "+", "-", "*", "/", "//", "**",
          ".", "*", "**", "()", " "]


def token_soup(r):
    out = ""
    for _ in range(r.randint(1, 12)):
        out += r.choice(TOKENS)
        if r.random() < 0.35:
            out += " "
    return out


def char_soup(r):
    chars = "0123456789" + "+-*/()." * 2 + " " * 3
    return "".join(r.choice(chars) for _ in range(r.randint(1, 16)))


def respace(r, expr):
    """expr with spaces added or removed at random places."""
    out = " " * r.choice([0, 0, 1, 3])
    for c in expr:
        if c == " " and r.random() < 0.5:
            continue
        out += c
        if r.random() < 0.15:
            out += " " * r.randint(1, 2)
    return out


def price_sum(r):
    n = r.randint(2, 8)
    terms = ["%d.%02d" % (r.randint(0, 5000), r.randint(0, 99)) for _ in range(n)]
    ops = [r.choice(["+", "+", "+", "-", "*"]) for _ in range(n - 1)]
    s = terms[0]
    for op, t in zip(ops, terms[1:]):
        s += " " + op + " " + t
    if r.random() < 0.3:
        s = "(" + s + ") * " + r.choice(["0.1", "0.15", "1.08", "0.9", "2", "3", "1/3"])
    return s


def tie(r):
    # decimal ties at the 3rd place: round() decides on the binary value
    return "%d.%02d5" % (r.randint(0, 10 ** r.randint(0, 12)), r.randint(0, 99))


def limits(r):
    out = ["9**9**9", "2**100000", "2**65536", "-2**65536", "(2**40000)*(2**40000)",
           "2**(10**100)", "10**20000//10**19999", "3**41350", "(-3)**41351",
           "2**65535*2", "2**65535+2**65535", "-2**65535-2**65535",
           "(2**65535)**2", "2**65537//2", "(2**33000)*(2**33000)/1",
           "(" * 101 + "1" + ")" * 101, "(" * 150 + "1" + ")" * 150,
           "(" * 200 + "1" + ")" * 200, "(" * 101 + "1 2" + ")" * 101,
           "(" * 120 + "1", "1+" * 500 + "1", "1+" * 500 + "12", "(" * 150 + "1" + ")" * 149]
    for _ in range(20):
        out.append("%d**%d" % (r.randint(2, 1000), r.randint(70000, 10 ** 6)))
    return out


def generate(seed=20261201, scale=1):
    r = random.Random(seed)
    probes = []

    def add(kind, exprs):
        for e in exprs:
            probes.append({"expr": e, "kind": kind})

    add("table", TABLE)
    add("edge", EDGES)
    add("random", [expression(r, r.randint(1, 6)) for _ in range(3200 * scale)])
    add("prices", [price_sum(r) for _ in range(400 * scale)])
    add("ties", [tie(r) for _ in range(300 * scale)])
    add("tokens", [token_soup(r) for _ in range(2200 * scale)])
    add("chars", [char_soup(r) for _ in range(600 * scale)])
    base = [p["expr"] for p in probes if p["kind"] in ("table", "edge", "random")]
    add("spaces", [respace(r, r.choice(base)) for _ in range(500 * scale)])
    add("limit", limits(r))
    # drop repeats, keeping the first
    seen, out = set(), []
    for p in probes:
        if p["expr"] not in seen:
            seen.add(p["expr"])
            out.append(p)
    return out


def answer_all(exprs):
    answers = []
    for e in exprs:
        if over_limit(e):
            answers.append(None)
        else:
            answers.append(answer(e))
    return answers


def main():
    warnings.simplefilter("ignore")  # SyntaxWarning: 'int' object is not callable
    sys.setrecursionlimit(10000)
    if sys.argv[1:2] == ["--answer"]:
        exprs = json.load(sys.stdin)
        json.dump(answer_all(exprs), sys.stdout)
        return
    args = sys.argv[1:]
    seed, scale, others = 20261201, 1, []
    while args:
        if args[0] == "--seed":
            seed, args = int(args[1]), args[2:]
        elif args[0] == "--scale":
            scale, args = int(args[1]), args[2:]
        elif args[0] == "--compare":
            others, args = args[1:], []
        else:
            sys.exit("usage: probes.py [--seed N] [--scale K] [--compare PYTHON...]")
    probes = generate(seed, scale)
    exprs = [p["expr"] for p in probes]
    answers = answer_all(exprs)
    for p, a in zip(probes, answers):
        if a is None:
            p["kind"] = "limit"
            p["error"] = "LimitError"
        else:
            if p["kind"] == "limit":
                p["kind"] = "edge"  # within the limits after all
            p.update(a)
    for other in others:
        out = subprocess.run([other, __file__, "--answer"], input=json.dumps(exprs),
                             capture_output=True, text=True, check=True).stdout
        version = subprocess.run([other, "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        n = 0
        for p, a in zip(probes, json.loads(out)):
            mine = {k: p[k] for k in ("value", "float", "result", "error", "message") if k in p}
            if a is not None and a != mine:
                n += 1
                p.setdefault("others", {})[version] = a
        print("%s: %d of %d probes answered differently" % (version, n, len(probes)), file=sys.stderr)
    doc = {
        "about": "calc's probe corpus: expressions with CPython's answers, as tau2-bench's "
                 "calculate computes them; written by probes.py, do not edit",
        "python": sys.version.split()[0],
        "count": len(probes),
        "probes": probes,
    }
    lines = ['{"about": %s, "python": %s, "count": %d, "probes": [' % (
        json.dumps(doc["about"]), json.dumps(doc["python"]), doc["count"])]
    lines.append(",\n".join(json.dumps(p, sort_keys=True) for p in probes))
    lines.append("]}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
