"""Writes case_python.txt: Python's str.lower() and str.upper().

Run with CPython 3.11 (`python3 case_python.py > case_python.txt`, Unicode
14.0); the Go tests in runtime/case_test.go read the result. Lines:

  L cp mapped...   cp.lower() when it is not cp itself (hex code points)
  U cp mapped...   cp.upper() when it is not cp itself
  I lo hi          a range of code points that a final sigma looks through
                   (Case_Ignorable; see below)
  C lo hi          a range of code points that are cased and not ignorable
  S text lower upper   sample strings (JSON strings) and their mappings
  # ...                the first line: which Python wrote the file

Python exposes Case_Ignorable and Cased only through lower(): in
c + 'Σ', the sigma is final exactly when c is cased and not ignorable;
in 'A' + c + 'Σ', when c is ignorable or cased. An ignorable code point
is skipped before its casedness is looked at, so that of ignorable code
points never matters and is not recorded.
"""
import json
import platform
import random
import sys
import unicodedata

out = sys.stdout
SURROGATES = range(0xD800, 0xE000)

# provenance: the interpreter and the Unicode version whose results these are
out.write("# written by runtime/testdata/case_python.py with %s %s (Unicode %s)\n"
          % (platform.python_implementation(), platform.python_version(), unicodedata.unidata_version))


def cps(s):
    return " ".join("%X" % ord(c) for c in s)


for cp in range(0x110000):
    if cp in SURROGATES:
        continue
    c = chr(cp)
    lo, up = c.lower(), c.upper()
    if lo != c:
        out.write("L %X %s\n" % (cp, cps(lo)))
    if up != c:
        out.write("U %X %s\n" % (cp, cps(up)))


def ranges(pred):
    start = None
    for cp in range(0x110001):
        ok = cp < 0x110000 and cp not in SURROGATES and pred(chr(cp))
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            yield start, cp - 1
            start = None


def final(s):
    return s.lower().endswith("\u03c2")


def ignorable(c):
    # a cased, non-ignorable c makes both final; an ignorable one only the
    # first
    return final("A" + c + "\u03a3") and not final(c + "\u03a3")


def cased(c):
    return final(c + "\u03a3")


for lo, hi in ranges(ignorable):
    out.write("I %X %X\n" % (lo, hi))
for lo, hi in ranges(cased):
    out.write("C %X %X\n" % (lo, hi))

rng = random.Random(20261201)
pieces = ["a", "A", "z", "Z", " ", "'", ".", ":", "\u00b7", "\u2019", "\u0301", "\u0345", "\u03a3", "\u03c3",
          "\u03c2", "\u0130", "\u0131", "I", "i", "\u00df", "\u1e9e", "\ufb01", "\u01c5", "\u1f80", "\u0390",
          "\u0149", "K", "\u212a", "\u2126", "\u00b5", "\u0587", "\u10d0", "\u13a0", "\uab70", "\U00010400",
          "\U0001e900", "1", "-", "\u02b0", "\u00ad", "\u200d", "\u2c65", "\u023a", "\u1e9b", "\u0399", "\u2160",
          "\u24b6", "\u05d0", "\u4e2d", "\U0001f600", "\u0300", "\u0307", "\u00c9", "e\u0301", "\u0345\u0301"]
samples = ["", "Yusuf", "ROSSI", "Ethan.Khan@Example.COM", "ΟΔΟΣ", "ΟΔΟΣ ΟΔΟΣ", "Σ", "ΑΣ", "ΑΣ'Α", "ΑΣ.", "Σ'Α",
           "İstanbul", "straße", "ﬁle", "ǅemal", "ᾈ"]
for _ in range(1500):
    samples.append("".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8))))
for s in samples:
    out.write("S %s %s %s\n" % tuple(json.dumps(x, ensure_ascii=False) for x in (s, s.lower(), s.upper())))
