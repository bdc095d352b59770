#!/usr/bin/env python3
"""Writes a Perun profile for the profile benchmarks.

    gen_profile.py OUT [--layout trace|time] [--uids 1000] [--points 1000] [--seed 1]

trace (default): UIDS functions with POINTS measurements each, integer
running times in microseconds ("amount") and integer structure sizes, in
the typed layout ("resources" keyed by type + "resource_type_map").

time: the seed's time layout, "global": {"resources": [...]} with one
object per measurement (real, user and sys seconds of UIDS * POINTS / 3
runs), as the time collector writes it.

Compact JSON, as json.dump writes it by default.
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
    ap.add_argument("--layout", choices=["trace", "time"], default="trace")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    if a.layout == "time":
        write_time(a, rnd)
        return
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


def write_time(a, rnd):
    n = a.uids * a.points
    resources = []
    for i in range(n):
        sub = ("real", "user", "sys")[i % 3]
        base = {"real": 0.26, "user": 0.24, "sys": 0.01}[sub]
        resources.append({"subtype": sub, "uid": "./list_search", "order": i // 3 + 1,
                          "type": "time", "amount": round(base + rnd.random() / 50, 6)})
    profile = {
        "origin": "8de6cd99e4dc36cd73a2af906cde12456e96d9f1",
        "header": {"type": "time", "params": "", "units": {"time": "s"},
                   "cmd": "./list_search", "workload": "100000"},
        "collector_info": {"params": {"repeat": n // 3, "warmup": 3}, "name": "time"},
        "postprocessors": [],
        "global": {"timestamp": 0.565476655960083, "resources": resources},
    }
    with open(a.out, "w") as f:
        json.dump(profile, f)


if __name__ == "__main__":
    main()
