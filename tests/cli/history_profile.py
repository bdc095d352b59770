"""A time profile of one version of a crafted history, for the tests of
the history chart and page: ./prog's real and user time, nine runs each,
around 10 ms and 35% more from version STEP on. The noise is seeded by the
version, so a version's profile is the same in every run of a test.

usage: history_profile.py OUT VERSION STEP [--args ARGS] [--normalized]
  --args ARGS    the header's args
  --normalized   listed as postprocessed by the normalizer"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("version", type=int)
ap.add_argument("step", type=int)
ap.add_argument("--args")
ap.add_argument("--normalized", action="store_true")
a = ap.parse_args()

r = random.Random(a.version)
base = 0.010 if a.version < a.step else 0.0135
res = [{"uid": "./prog", "type": "time", "subtype": sub, "order": k,
        "amount": base * f * (1 + r.gauss(0, 0.01))}
       for sub, f in (("real", 1.0), ("user", 0.8)) for k in range(9)]
header = {"type": "time", "cmd": "./prog"}
if a.args is not None:
    header["args"] = a.args
header["units"] = {"time": "s"}
profile = {"header": header, "collector_info": {"name": "time"}, "global": {"resources": res}}
if a.normalized:
    profile["postprocessors"] = [{"name": "normalizer", "params": {"of_key": "amount"}}]
json.dump(profile, open(a.out, "w"))
