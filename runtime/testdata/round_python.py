"""Writes round_python.json: Python's round(x, d) on floats and ints.

Run with CPython 3.11+ (`python3 round_python.py`); the Go test
TestRoundMatchesPython (runtime/round_test.go) reads the result. Floats
are written as repr() strings so no JSON parser rounds them on the way.
"""
import json
import random
import struct

rng = random.Random(20261130)
floats = []
# money-like values and their sums: where ties and near-ties live
for _ in range(1500):
    a = rng.randrange(0, 10**7) / rng.choice([1, 10, 100, 1000, 8, 16, 200])
    b = rng.randrange(0, 10**5) / 100
    floats.append((a + b * rng.choice([1, -1]), rng.choice([0, 1, 2, 2, 2, 3])))
# exact binary ties: k + 0.5, k/4, k/8 and k/1000
for k in range(-200, 200):
    floats.append((k + 0.5, 0))
    floats.append((k / 8, 2))
    floats.append((k / 1000, 2))
    floats.append((k * 25.0, -1))
    floats.append((k * 50.0, -2))
# arbitrary doubles, from tiny to huge, with any digits
for _ in range(800):
    bits = rng.getrandbits(64)
    x = struct.unpack("<d", struct.pack("<Q", bits))[0]
    if x != x or x in (float("inf"), float("-inf")):
        continue
    floats.append((x, rng.randrange(-20, 30)))
for x in [0.0, -0.0, 5e-324, -5e-324, 2.675, 0.015, 0.125, 123456789.125, 1e16, 1.25, 1e300]:
    for d in [-400, -310, -300, -20, -1, 0, 1, 2, 15, 17, 300, 330, 400]:
        floats.append((x, d))
out = {"floats": [], "ints": []}
for x, d in floats:
    try:
        r = round(x, d)
    except OverflowError:
        r = float("inf") if x > 0 else float("-inf")
    out["floats"].append([repr(x), d, repr(r)])
ints = [0, 1, -1, 5, 15, 25, -25, 1749, 1750, 1850, -1750, 2**62, -(2**62), 2**63 - 1, -(2**63)]
ints += [rng.randrange(-(2**63), 2**63) for _ in range(300)]
ints += [rng.randrange(-10**6, 10**6) * 5 for _ in range(300)]
for n in ints:
    for d in [-25, -19, -18, -10, -3, -2, -1, 0, 2]:
        r = round(n, d)
        r = max(-(2**63), min(2**63 - 1, r))
        out["ints"].append([str(n), d, str(r)])
with open("round_python.json", "w") as f:
    f.write("{\n")
    for i, key in enumerate(["floats", "ints"]):
        rows = ",\n".join(json.dumps(r) for r in out[key])
        f.write('"%s": [\n%s\n]%s\n' % (key, rows, "," if i == 0 else ""))
    f.write("}\n")
