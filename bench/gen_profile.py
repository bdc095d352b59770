#!/usr/bin/env python3
"""Writes a trace-style Perun profile for the profile benchmarks.

    gen_profile.py OUT [--uids 1000] [--points 1000] [--seed 1]

UIDS functions with POINTS measurements each: integer running times in
microseconds ("amount") and integer structure sizes, in the typed layout
("resources" keyed by type + "resource_type_map"), compact JSON as
json.dump writes it by default.
"""
import argparse
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--uids", type=int, default=1000)
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    resources, types = {}, {}
    for u in range(a.uids):
        uid = f"SLList_op_{u}(SLList*, int)"
        key = uid + "#0"
        sizes = [rnd.randrange(0, 100000) for _ in range(a.points)]
        # Linear in the size with noise, as a search over a list would be.
        amounts = [s * (u % 7 + 1) // 3 + rnd.randrange(0, 1000) for s in sizes]
        resources[key] = {"amount": amounts, "structure-unit-size": sizes}
        types[key] = {"subtype": "time delta", "uid": uid, "time": "6.8e-05s",
                      "type": "mixed"}
    profile = {
        "origin": "f7f3dcea69b97f2b03c421a223a770917149cfae",
        "header": {"workload": "", "type": "mixed", "units": {"mixed(time delta)": "us"},
                   "params": "", "cmd": "../stap-collector/tst"},
        "collector_info": {"name": "complexity", "params": {"method": "custom"}},
        "postprocessors": [],
        "models": [],
        "resources": resources,
        "resource_type_map": types,
    }
    with open(a.out, "w") as f:
        json.dump(profile, f)


if __name__ == "__main__":
    main()
