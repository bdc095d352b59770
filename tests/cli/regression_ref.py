#!/usr/bin/python3
"""The reference for regression-analysis `full`: the same six fits per uid
done with numpy's least squares, independently of Veles.

    regression_ref.py PROFILE OUT.json [--of KEY] [--per KEY]
    regression_ref.py --compare REF.json VELES_PROFILE [--rel 1e-6]

The first form reads a profile in the typed layout ("resources" +
"resource_type_map"), fits every model that can be fitted to each uid's
points and writes {uid: {model: {"coeffs": [...], "r_square": R,
"x_start": A, "x_end": B}}}. Power and exponential are fitted as lines
through (ln x, ln y) and (x, ln y); r^2 is always 1 - SSE/SST on the
original y (1 when every y is equal). The second form checks that the
profile's models match REF to a relative tolerance and exits non-zero
saying where they differ.
"""
import json
import math
import sys

import numpy as np


def lstsq(cols, y):
    # Columns scaled to unit norm first: x and x^2 of sizes in the millions
    # differ by a factor 1e6, and the scaling keeps lstsq accurate.
    a = np.column_stack(cols)
    norms = np.linalg.norm(a, axis=0)
    norms[norms == 0] = 1
    return np.linalg.lstsq(a / norms, y, rcond=None)[0] / norms


def r_square(y, fitted):
    sst = float(np.sum((y - y.mean()) ** 2))
    sse = float(np.sum((y - fitted) ** 2))
    return 1 - sse / sst if sst > 0 else 1.0


def fits(x, y):
    one = np.ones_like(x)
    distinct = len(np.unique(x))
    out = {"constant": [float(y.mean())]}
    if distinct >= 2:
        out["linear"] = list(lstsq([one, x], y))
    if distinct >= 2 and (x > 0).all():
        out["logarithmic"] = list(lstsq([one, np.log(x)], y))
    if distinct >= 3:
        out["quadratic"] = list(lstsq([one, x, x * x], y))
    if distinct >= 2 and (x > 0).all() and (y > 0).all():
        a, b = lstsq([one, np.log(x)], np.log(y))
        out["power"] = [math.exp(a), b]
    if distinct >= 2 and (y > 0).all():
        a, b = lstsq([one, x], np.log(y))
        out["exponential"] = [math.exp(a), math.exp(b)]
    return out


def predict(model, c, x):
    if model == "constant":
        return np.full_like(x, c[0])
    if model == "linear":
        return c[0] + c[1] * x
    if model == "logarithmic":
        return c[0] + c[1] * np.log(x)
    if model == "quadratic":
        return c[0] + c[1] * x + c[2] * x * x
    if model == "power":
        return c[0] * x ** c[1]
    return c[0] * np.exp(x * math.log(c[1]))


def reference(path, out, of, per):
    p = json.load(open(path))
    points = {}
    for key, res in p["resources"].items():
        uid = p["resource_type_map"][key]["uid"]
        xs, ys = points.setdefault(uid, ([], []))
        xs.extend(res[per])
        ys.extend(res[of])
    ref = {}
    for uid, (xs, ys) in points.items():
        x, y = np.array(xs, dtype=float), np.array(ys, dtype=float)
        ref[uid] = {m: {"coeffs": [float(v) for v in c],
                        "r_square": r_square(y, predict(m, c, x)),
                        "x_start": float(x.min()), "x_end": float(x.max())}
                    for m, c in fits(x, y).items()}
    json.dump(ref, open(out, "w"))


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def compare(ref_path, prof_path, rel):
    ref = json.load(open(ref_path))
    got = {}
    for m in json.load(open(prof_path))["models"]:
        got.setdefault(m["uid"], {})[m["model"]] = m
    bad = []
    if set(ref) != set(got):
        bad.append(f"uids differ: {sorted(set(ref) ^ set(got))[:5]}")
    for uid, models in ref.items():
        if set(models) != set(got.get(uid, {})):
            bad.append(f"{uid}: models {sorted(models)} != {sorted(got.get(uid, {}))}")
            continue
        for name, want in models.items():
            m = got[uid][name]
            have = [c["value"] for c in m["coeffs"]]
            if name == "constant" and have[1:] == [0]:  # b1 = 0, as Perun writes it
                have = have[:1]
            pairs = list(zip(want["coeffs"], have)) + [(want[k], m[k]) for k in
                                                       ("x_start", "x_end")]
            if len(have) != len(want["coeffs"]) or not all(close(a, b, rel) for a, b in pairs):
                bad.append(f"{uid} {name}: coeffs {have} != {want['coeffs']}")
            # r^2 near 0 has no relative scale: compare it absolutely.
            if abs(want["r_square"] - m["r_square"]) > rel:
                bad.append(f"{uid} {name}: r_square {m['r_square']} != {want['r_square']}")
    if bad:
        sys.exit("regression_ref: " + "; ".join(bad[:5]) + f" ({len(bad)} differences)")


def main():
    args = sys.argv[1:]
    opt = {"--of": "amount", "--per": "structure-unit-size", "--rel": "1e-6"}
    while len(args) > 2 and args[-2] in opt:
        opt[args[-2]] = args[-1]
        args = args[:-2]
    if args[0] == "--compare":
        compare(args[1], args[2], float(opt["--rel"]))
    else:
        reference(args[0], args[1], opt["--of"], opt["--per"])


if __name__ == "__main__":
    main()
