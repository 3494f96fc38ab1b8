"""Writes calculate.json: tau2-bench's answers to the gold `calculate` calls.

Usage (from this directory, with tau2-bench's retail tasks.json):

    python3 calculate.py ../../../../shared/peers/tau2-retail/tasks.json > calculate.json

Every `calculate` action of every task's evaluation_criteria.actions, in
task order, with the answer tau2-bench's retail tool gives
(sierra-research/tau2-bench, src/tau2/domains/retail/tools.py, MIT, (c) 2025
Sierra Research): a character outside "0123456789+-*/(). " raises
ValueError("Invalid characters in expression"); otherwise the answer is
str(round(float(eval(expression, {"__builtins__": None}, {})), 2)), and an
exception's str() is the failure message. gen/difftest/tau2_test.go
(TestTau2Calculate) holds the world's calculate to this file.
"""

import json
import sys


def calculate(expression):
    if not all(char in "0123456789+-*/(). " for char in expression):
        raise ValueError("Invalid characters in expression")
    return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))


def main():
    tasks = json.load(open(sys.argv[1]))
    calls = []
    for task in tasks:
        for i, action in enumerate(task["evaluation_criteria"]["actions"] or []):
            if action["name"] != "calculate":
                continue
            call = {"task": task["id"], "action": i, "expression": action["arguments"]["expression"]}
            try:
                call["result"] = calculate(call["expression"])
            except Exception as e:  # tau2 shows "Error: <message>"
                call["error"] = str(e)
            calls.append(call)
    doc = {"source": "tau2-bench's retail calculate on the gold calculate calls of tasks.json, by calculate.py",
           "python": sys.version.split()[0], "calls": calls}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
