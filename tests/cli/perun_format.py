#!/usr/bin/env python3
"""Reads profiles as Perun does and fails where Perun would.

Written from Perun's own code, not copied from it; each check names the
place in Perun that needs what it checks:

- perun/logic/store.py (load_profile_from_handle): the JSON parses and
  header.type is one of Perun's profile types (memory, mixed, time).
- perun/profile/factory.py (Profile.__init__, _translate_resources,
  all_resources): every layout (typed "resources" with
  "resource_type_map", "global", "snapshots") flattens to resources, each
  with a uid; a typed resource's value lists are equally long (Perun zips
  them, silently dropping the tail of longer ones).
- perun/profile/helpers.py (ProfileInfo), perun/logic/index.py: `status`,
  `add` and `log` read header.type, header.cmd, header.workload,
  collector_info.name and the names of postprocessors.
- perun/utils/common/view_kit.py, perun/view/flamegraph: header.units
  names the profile's type.
- perun/check/methods/exclusive_time_outliers.py (_prepare_profile): a
  trace profile ("time delta" resources) gives every resource a uid, its
  exclusive time and its location; perun/collect/trace writes tid and
  call-order beside them, which its optimisations read.
- perun/check/detection_kit.py (create_model_record): a model has uid,
  model, r_square, x_start, x_end and coeffs (parametric, name/value
  pairs) or bucket_stats (non-parametric).

Usage: perun_format.py [--eto] [--expect-int FIELD]... PROFILE...
--eto: a trace collector's profile must carry what eto reads (Perun's own
trace profiles before its eto method did not).
--expect-int FIELD: every value of FIELD that is a whole number must be a
JSON integer (Perun writes ints where it counts, floats where it measures).
Prints one line per profile ("ok PATH: TYPE, N resources") and exits 1 at
the first problem, naming it.
"""
import json
import sys

PERUN_TYPES = ("memory", "mixed", "time")
ETO = False
PARAMETRIC = ("constant", "linear", "logarithmic", "quadratic", "power", "exponential")


class Bad(Exception):
    pass


def need(cond, what):
    if not cond:
        raise Bad(what)


def flatten_typed(prof):
    """Profile.all_resources over the typed layout."""
    types = prof.get("resource_type_map")
    need(isinstance(types, dict), "typed resources without a resource_type_map")
    out = []
    for key, cols in prof["resources"].items():
        need(key in types, f"resource type {key!r} is not in resource_type_map")
        persistent = types[key]
        need(isinstance(persistent, dict) and "uid" in persistent,
             f"resource_type_map[{key!r}] has no uid")
        need(isinstance(cols, dict), f"resources[{key!r}] is not an object of lists")
        lengths = {k: len(v) for k, v in cols.items() if isinstance(v, list)}
        need(len(lengths) == len(cols), f"resources[{key!r}] holds a value that is not a list")
        need(len(set(lengths.values())) <= 1,
             f"resources[{key!r}] has lists of different lengths {lengths}: Perun zips them")
        if not cols:
            out.append(dict(persistent))
            continue
        for values in zip(*cols.values()):
            r = dict(zip(cols.keys(), values))
            r.update(persistent)
            out.append(r)
    return out


def flatten_list(resources, where):
    need(isinstance(resources, list), f"{where} is not a list")
    for r in resources:
        need(isinstance(r, dict) and "uid" in r, f"a resource in {where} has no uid")
    return list(resources)


def flatten(prof):
    out = []
    for key in ("resources", "snapshots", "global"):
        if key not in prof:
            continue
        v = prof[key]
        if key == "global":
            if isinstance(v, dict) and v:
                need("resources" in v, "global has no resources")
                out += flatten_list(v["resources"], "global.resources")
        elif key == "snapshots":
            need(isinstance(v, list), "snapshots is not a list")
            for i, snap in enumerate(v):
                need(isinstance(snap, dict) and "resources" in snap,
                     f"snapshot {i} has no resources")
                out += flatten_list(snap["resources"], f"snapshots[{i}].resources")
        elif isinstance(v, dict):
            out += flatten_typed(prof)
        else:
            out += flatten_list(v, "resources")
    return out


def check_info(prof):
    """What ProfileInfo and the index entries read."""
    need(isinstance(prof.get("header"), dict), "no header")
    h = prof["header"]
    need(h.get("type") in PERUN_TYPES,
         f"header.type {h.get('type')!r} is none of Perun's {PERUN_TYPES}")
    for key in ("cmd", "workload"):
        need(isinstance(h.get(key), str), f"header.{key} is missing or not a string")
    need(isinstance(prof.get("collector_info"), dict) and "name" in prof["collector_info"],
         "collector_info.name is missing")
    posts = prof.get("postprocessors")
    need(isinstance(posts, list), "postprocessors is not a list")
    for p in posts:
        need(isinstance(p, dict) and "name" in p, "a postprocessor has no name")
    units = h.get("units")
    need(isinstance(units, dict), "header.units is missing")
    need(any(h["type"] in k for k in units),
         f"header.units {units} names no unit for type {h['type']!r}")


def check_trace(prof, res):
    """What exclusive_time_outliers._prepare_profile selects, and the
    per-call fields of Perun's trace collector, for a trace profile (the
    complexity collector's "time delta" profiles never had them)."""
    if prof["collector_info"]["name"] != "trace" or not ETO:
        return 0
    calls = [r for r in res if r.get("subtype") == "time delta"]
    for r in calls:
        for key in ("uid", "exclusive", "location", "tid"):
            need(key in r, f"trace resource {r.get('uid')!r} has no {key!r}")
        # Per-call resources (not the sums of --aggregate) carry their order.
        if "order" in r:
            need("call-order" in r, f"trace resource {r.get('uid')!r} has no 'call-order'")
    # The groupby(["uid", "location"]).sum() of the eto check.
    sums = {}
    for r in calls:
        sums[(r["uid"], r["location"])] = sums.get((r["uid"], r["location"]), 0) + r["exclusive"]
    return len(sums)


def check_models(prof):
    models = prof.get("models", [])
    if isinstance(prof.get("global"), dict) and "models" in prof["global"] and not models:
        models = prof["global"]["models"]
    need(isinstance(models, list), "models is not a list")
    for m in models:
        for key in ("uid", "model", "r_square", "x_start", "x_end"):
            need(key in m, f"model {m.get('model')!r} of {m.get('uid')!r} has no {key!r}")
        if m["model"] in PARAMETRIC or "coeffs" in m:
            c = m.get("coeffs")
            need(isinstance(c, list) and len(c) >= 2 and all("name" in x and "value" in x
                                                             for x in c),
                 f"parametric model {m['model']!r} without name/value coeffs")
        else:
            # kernel_stats: what Perun's kernel regression wrote before.
            need(isinstance(m.get("bucket_stats", m.get("kernel_stats")), list),
                 f"non-parametric model {m['model']!r} without bucket_stats")
    return len(models)


def check_ints(res, fields, path):
    for f in fields:
        for r in res:
            v = r.get(f)
            if isinstance(v, float) and v.is_integer():
                raise Bad(f"{f} {v!r} of {r.get('uid')!r} is a whole number written as a float")


def check(path, int_fields):
    with open(path, "rb") as f:
        prof = json.loads(f.read().decode("utf-8"))
    check_info(prof)
    res = flatten(prof)
    ngroups = check_trace(prof, res)
    nmodels = check_models(prof)
    check_ints(res, int_fields, path)
    return prof["header"]["type"], len(res), ngroups, nmodels


def main(argv):
    ints, paths = [], []
    it = iter(argv)
    global ETO
    for a in it:
        if a == "--eto":
            ETO = True
        elif a == "--expect-int":
            ints.append(next(it))
        else:
            paths.append(a)
    for p in paths:
        try:
            t, n, g, m = check(p, ints)
        except (Bad, KeyError, ValueError, TypeError) as e:
            print(f"perun_format: {p}: {e}", file=sys.stderr)
            return 1
        print(f"ok {p}: {t}, {n} resources, {g} eto groups, {m} models")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
