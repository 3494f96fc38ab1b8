"""Writes probes.json: random tool-call sequences replayed through tau2-bench's
own retail tools, with what they return, raise and change.

Not run by the tests, which only read probes.json
(gen/difftest/tau2_test.go, TestTau2Probes). It was run once, outside the
repository, next to tau2-bench's unmodified src/tau2/domains/retail/tools.py
and data_model.py (sierra-research/tau2-bench a2c0247, MIT, (c) 2025 Sierra
Research; their imports of tau2's toolkit replaced by a small shim that
defines ToolType, is_tool and a ToolKitBase whose use_tool calls the method),
under Python 3.11 and pydantic 2.13:

    python3 probes.py TAU2_DIR DB_JSON > probes.json

Each probe is 1 to 3 calls on one seed copy, aimed at one order or user,
with arguments drawn to reach every check: the order's own items and
methods, other products' items, duplicates, empty lists, unknown ids,
unavailable variants, wrong statuses. For each call it records the
exception message, or the result in model_dump form (a string result as
is); after the calls, every record whose model_dump changed, in full. The
draw is seeded: the file is reproducible.
"""

import copy
import json
import random
import sys

sys.path.insert(0, sys.argv[1])
from data_model import RetailDB  # noqa: E402
from tools import RetailTools  # noqa: E402

RAW = json.load(open(sys.argv[2]))
INIT = RetailDB.model_validate(RAW).model_dump()
rng = random.Random(20261130)

orders = list(RAW["orders"].values())
users = RAW["users"]
products = RAW["products"]
all_items = [i for p in products.values() for i in p["variants"]]


def by_status(*st):
    return [o for o in orders if o["status"] in st]


def methods(o):
    pm = list(users[o["user_id"]]["payment_methods"])
    return pm + ["gift_card_0000000"]


def items_of(o, k):
    ids = [i["item_id"] for i in o["items"]]
    pick = rng.sample(ids, min(k, len(ids)))
    if rng.random() < 0.1 and ids:
        pick.append(rng.choice(ids))  # a duplicate
    if rng.random() < 0.05:
        pick.append(rng.choice(all_items))  # maybe not in the order
    return pick


def new_items_for(o, ids):
    out = []
    for iid in ids:
        it = next((i for i in o["items"] if i["item_id"] == iid), None)
        r = rng.random()
        if it is None or r < 0.05:
            out.append(rng.choice(all_items))
        elif r < 0.1:
            out.append(iid)
        else:
            out.append(rng.choice(list(products[it["product_id"]]["variants"])))
    if rng.random() < 0.05:
        out = out[:-1]
    return out


def address():
    return {
        "address1": rng.choice(["1 Main St", "22 Elm Road", "101 Highway"]),
        "address2": rng.choice(["", "Suite 5", "Apt 9"]),
        "city": rng.choice(["Austin", "New York", "Denver"]),
        "state": rng.choice(["TX", "NY", "CO"]),
        "country": "USA",
        "zip": rng.choice(["78701", "10001", "80280"]),
    }


def write_call(o):
    kind = rng.choice(["cancel", "address", "payment", "items", "exchange", "return"])
    oid = o["order_id"] if rng.random() > 0.03 else "#W0000000"
    if kind == "cancel":
        return "cancel_pending_order", {"order_id": oid, "reason": rng.choice(["no longer needed", "ordered by mistake", "other"])}
    if kind == "address":
        return "modify_pending_order_address", dict(order_id=oid, **address())
    if kind == "payment":
        return "modify_pending_order_payment", {"order_id": oid, "payment_method_id": rng.choice(methods(o))}
    ids = items_of(o, rng.choice([0, 1, 1, 2, 2, 3]))
    if kind == "return":
        return "return_delivered_order_items", {"order_id": oid, "item_ids": ids, "payment_method_id": rng.choice(methods(o))}
    name = "modify_pending_order_items" if kind == "items" else "exchange_delivered_order_items"
    return name, {"order_id": oid, "item_ids": ids, "new_item_ids": new_items_for(o, ids), "payment_method_id": rng.choice(methods(o))}


def read_call():
    u = rng.choice(list(users.values()))
    kind = rng.choice(["email", "name", "item", "product", "order", "user", "types"])
    if kind == "email":
        e = u["email"] if rng.random() < 0.8 else "nobody@example.com"
        return "find_user_id_by_email", {"email": e.upper() if rng.random() < 0.3 else e}
    if kind == "name":
        n = u["name"]
        return "find_user_id_by_name_zip", {"first_name": n["first_name"].lower(), "last_name": n["last_name"], "zip": u["address"]["zip"] if rng.random() < 0.8 else "00000"}
    if kind == "item":
        return "get_item_details", {"item_id": rng.choice(all_items) if rng.random() < 0.8 else rng.choice(list(products))}
    if kind == "product":
        return "get_product_details", {"product_id": rng.choice(list(products)) if rng.random() < 0.8 else rng.choice(all_items)}
    if kind == "order":
        return "get_order_details", {"order_id": rng.choice(orders)["order_id"] if rng.random() < 0.8 else "W123"}
    if kind == "user":
        return "get_user_details", {"user_id": u["user_id"] if rng.random() < 0.8 else "nobody_1"}
    return "list_all_product_types", {}


def dump(v):
    return v.model_dump() if hasattr(v, "model_dump") else v


probes = []
for n in range(400):
    if n % 5 == 4:
        calls = [read_call() for _ in range(rng.choice([1, 2]))]
    else:
        pool = rng.choice([by_status("pending"), by_status("pending"), by_status("delivered"), orders])
        o = rng.choice(pool)
        calls = [write_call(o) for _ in range(rng.choice([1, 1, 2, 3]))]
        if rng.random() < 0.1:
            calls.append(("modify_user_address", dict(user_id=o["user_id"], **address())))
    db = RetailDB.model_validate(copy.deepcopy(RAW))
    tk = RetailTools(db)
    steps = []
    for name, args in calls:
        try:
            steps.append({"tool": name, "args": args, "result": dump(tk.use_tool(name, **args))})
        except Exception as e:  # tau2 turns every exception into "Error: <message>"
            steps.append({"tool": name, "args": args, "error": str(e)})
    fin = db.model_dump()
    changed = {}
    for table in fin:
        for k, v in fin[table].items():
            if v != INIT[table][k]:
                changed.setdefault(table, {})[k] = v
    probes.append({"steps": steps, "changed": changed})

json.dump({
    "source": "tau2-bench a2c0247 (MIT, (c) 2025 Sierra Research), src/tau2/domains/retail/tools.py run on db.json by probes.py",
    "probes": probes,
}, sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
