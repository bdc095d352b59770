#!/usr/bin/env python3
"""Writes profiles shaped as Perun's own test profiles are (its
tests/profiles/: full_profiles, query_profiles, degradation_profiles,
postprocess_profiles), made up here, into DIR:

- trace-base.perf, trace-target.perf: the typed layout ("resources" keyed
  uid#N with "resource_type_map"), type mixed with units
  "mixed(time delta)", two uids measured over structure-unit-size, and
  models of every kind Perun writes: the six parametric ones (a constant
  with its b1 = 0, a quadratic with b2), a regressogram (bucket_stats and
  statistic_function, no x_values), a moving average with NaN where its
  window was short, a kernel regression in the legacy shape (kernel_stats)
  and one in the current shape (bucket_stats, kernel_mode ridge), and an
  unknown kind ("invalid_model"); the target is the base three times
  slower, models and all.
- legacy.perf: the old complexity layout: units "mixed (time delta)" with a
  space, header.params instead of args, no origin, Perun's "machine"
  information, an r_square of NaN and a coefficient of Infinity.
- time-global.perf: the old time layout, {"global": {"timestamp",
  "resources": [...]}}, amounts written as floats, an integer order.
- memory-snapshots.perf: the old memory layout, "snapshots" each with its
  resources, uids as {source, function, line} objects and traces as lists
  of frame objects.
- empty.perf: a mixed profile with no resources and no models.
- nan-amounts.perf: the typed layout with NaN among the amounts.

Usage: perun_shapes.py DIR
"""
import json
import math
import os
import sys

SIZES = list(range(10, 210, 10))


def header(typ, units, **extra):
    h = {"type": typ, "cmd": "target", "args": "", "workload": "wl", "units": units}
    h.update(extra)
    return h


def coeffs(*values):
    return [{"name": f"b{i}", "value": v} for i, v in enumerate(values)]


def param_models(uid, scale):
    """The six parametric models of y = scale * (0.5 + 0.02 x), linear best."""
    lo, hi = SIZES[0], SIZES[-1]
    mk = lambda model, r2, *c: {"uid": uid, "model": model, "method": "full", "r_square": r2,
                                "x_start": lo, "x_end": hi, "coeffs": coeffs(*c)}
    return [
        mk("constant", 0.0, scale * 2.6, 0.0),
        mk("linear", 0.999, scale * 0.5, scale * 0.02),
        mk("logarithmic", 0.85, scale * -3.0, scale * 1.2),
        mk("quadratic", 0.998, scale * 0.5, scale * 0.02, 0.0),
        mk("power", 0.95, scale * 0.1, 0.85),
        mk("exponential", 0.9, scale * 0.9, 1.008),
    ]


def curve(scale):
    return [scale * (0.5 + 0.02 * x) for x in SIZES]


def nonparam_models(uid, scale):
    lo, hi = SIZES[0], SIZES[-1]
    ys = curve(scale)
    ma = [float("nan")] + ys[1:]  # the first window was too short
    return [
        {"uid": uid, "model": "regressogram", "bucket_stats": ys[::2], "buckets_method": "doane",
         "statistic_function": "mean", "r_square": 0.97, "x_start": lo, "x_end": hi,
         "y_start": ys[0]},
        {"uid": uid, "model": "moving_average", "bucket_stats": ma, "moving_method": "sma",
         "window_width": 3, "per_key": "structure-unit-size", "r_square": 0.99,
         "x_start": lo, "x_end": hi},
        {"uid": uid, "model": "kernel_regression", "kernel_stats": ys, "kernel_mode": "estimator",
         "bandwidth": 12.5, "per_key": "structure-unit-size", "r_square": 0.98,
         "x_start": lo, "x_end": hi},
        {"uid": uid, "model": "kernel_regression", "bucket_stats": ys, "kernel_mode": "ridge",
         "bandwidth": 1e-4, "per_key": "structure-unit-size", "r_square": 0.98,
         "x_start": lo, "x_end": hi},
        {"uid": uid, "model": "invalid_model", "method": "full", "r_square": 0.5,
         "x_start": lo, "x_end": hi, "coeffs": coeffs(1.0, 2.0)},
    ]


def typed(uids, scale, nan=False):
    """resources + resource_type_map, three runs per size, integers where
    Perun wrote them (sizes, orders) and floats for the amounts."""
    res, types = {}, {}
    for k, uid in enumerate(uids):
        key = f"{uid}#0"
        types[key] = {"uid": uid, "type": "mixed", "subtype": "time delta"}
        amounts, sizes, order = [], [], []
        for i, x in enumerate(SIZES):
            for run in range(3):
                wobble = 1 + 0.01 * ((i * 3 + run) % 5 - 2)
                amounts.append(scale * (k + 1) * (0.5 + 0.02 * x) * wobble)
                sizes.append(x)
                order.append(len(order))
        if nan:
            amounts[4] = float("nan")
        res[key] = {"amount": amounts, "structure-unit-size": sizes, "call-order": order}
    return res, types


def trace_pair(out):
    uids = ["SLList_search(SLList*, int)", "SLList_insert(SLList*, int)"]
    for name, scale in (("base", 1.0), ("target", 3.0)):
        res, types = typed(uids, scale)
        models = []
        for k, uid in enumerate(uids):
            models += param_models(uid, scale * (k + 1)) + nonparam_models(uid, scale * (k + 1))
        prof = {"origin": "f7f3dcea69b97f2b03c421a223a770f7b6a41d7f",
                "header": header("mixed", {"mixed(time delta)": "ms"}),
                "collector_info": {"name": "complexity", "params": {"sampling": [
                    {"func": "SLList_insert", "sample": 1}]}},
                "postprocessors": [{"name": "regression_analysis",
                                    "params": {"method": "full", "regression_models": []}}],
                "resources": res, "resource_type_map": types, "models": models}
        write(out, f"trace-{name}.perf", prof)


def legacy(out):
    res, types = typed(["SLListcls::Search(int)"], 1.0)
    models = param_models("SLListcls::Search(int)", 1.0)
    models[0]["r_square"] = float("nan")
    models[5]["coeffs"][1]["value"] = float("inf")
    prof = {"header": {"type": "mixed", "cmd": "complexity", "params": "-O2", "workload": "",
                       "units": {"mixed (time delta)": "us"}},
            "collector_info": {"name": "complexity", "params": {}}, "postprocessors": [],
            "machine": {"host": "perun-lab", "release": "5.10.0", "cpu": {"total": 8},
                        "memory": {"total_ram": "15.6 GiB"}},
            "resources": res, "resource_type_map": types, "models": models}
    write(out, "legacy.perf", prof)


def time_global(out):
    resources = []
    for order in range(1, 4):
        for sub, amount in (("real", 0.616), ("user", 0.5), ("sys", 0.125)):
            resources.append({"amount": amount * (1 + 0.01 * order), "uid": "echo",
                              "type": "time", "subtype": sub, "order": order})
    prof = {"origin": "0c8f9b3e", "header": header("time", {"time": "s"}, args="-e",
                                                  workload="world"),
            "collector_info": {"name": "time", "params": {"repeat": 3, "warmup": 1}},
            "postprocessors": [], "global": {"timestamp": 1.853, "resources": resources}}
    write(out, "time-global.perf", prof)


def memory_snapshots(out):
    def frame(fn, line):
        return {"source": "../test.c", "function": fn, "line": line}

    snapshots = []
    for s in range(3):
        resources = []
        for i, (fn, line) in enumerate((("foo1", 36), ("foo2", 31), ("main", 63))):
            resources.append({"type": "memory", "subtype": "malloc", "amount": 4 * (i + 1) * (s + 1),
                              "address": 19284560 + 64 * i, "uid": frame(fn, line),
                              "trace": [frame("malloc", 0), frame(fn, line), frame("main", 70)]})
        snapshots.append({"time": f"{0.025 * (s + 1):.3f}", "resources": resources})
    prof = {"origin": "1ba8c02d", "header": header("memory", {"memory": "B"}, cmd="./test"),
            "collector_info": {"name": "memory", "params": {"sampling": 0.025}},
            "postprocessors": [], "snapshots": snapshots}
    write(out, "memory-snapshots.perf", prof)


def empty(out):
    prof = {"origin": "a64466d9", "header": header("mixed", {"mixed(time delta)": "ms"}),
            "collector_info": {"name": "complexity", "params": {}}, "postprocessors": [],
            "resources": {}, "resource_type_map": {}, "models": []}
    write(out, "empty.perf", prof)


def nan_amounts(out):
    res, types = typed(["skiplistSearch(skiplist*, int)"], 1.0, nan=True)
    prof = {"origin": "f7f3dcea", "header": header("mixed", {"mixed(time delta)": "ms"}),
            "collector_info": {"name": "complexity", "params": {}}, "postprocessors": [],
            "resources": res, "resource_type_map": types, "models": []}
    write(out, "nan-amounts.perf", prof)


def write(out, name, prof):
    # Python's json writes NaN and Infinity as Perun's profiles hold them.
    with open(os.path.join(out, name), "w") as f:
        json.dump(prof, f, indent=2)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for make in (trace_pair, legacy, time_global, memory_snapshots, empty, nan_amounts):
        make(out)
    assert not math.isnan(sum(curve(1.0)))


if __name__ == "__main__":
    main()
