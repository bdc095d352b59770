#!/usr/bin/python3
"""The reference for regression-analysis `full`: the same six fits per uid
done with numpy's least squares, independently of Veles.

    regression_ref.py PROFILE OUT.json [--of KEY] [--per KEY]
    regression_ref.py --compare REF.json VELES_PROFILE [--rel 1e-6]

The first form reads a profile in the typed layout ("resources" +
"resource_type_map"), fits every model that can be fitted to each uid's
points and writes {uid: {model: {"coeffs": [...], "r_square": R,
"r_square_perun": P, "x_start": A, "x_end": B}}}. Power and exponential
are fitted as lines through (ln x, ln y) and (x, ln y), and like the
logarithmic model only on the points whose logarithms exist (as Perun
does); r^2 is 1 - SSE/SST on the original y (1 when every y is equal),
and Perun's r^2 is the same except in log space for power and exponential
and derived from the linear fit for the constant (perun/postprocess/
regression_analysis/derived.py). The second form checks that the
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


def subset(model, x, y):
    keep = {"logarithmic": x > 0, "power": (x > 0) & (y > 0),
            "exponential": y > 0}.get(model, np.ones_like(x, dtype=bool))
    return x[keep], y[keep]


def fits(x, y):
    """{model: (coeffs, x, y it was fitted to, Perun's r^2 or None)}"""
    out = {"constant": ([float(y.mean())], x, y, None)}
    for model in ("linear", "logarithmic", "quadratic", "power", "exponential"):
        xs, ys = subset(model, x, y)
        one = np.ones_like(xs)
        if len(np.unique(xs)) < (3 if model == "quadratic" else 2):
            continue
        if model == "linear":
            out[model] = (list(lstsq([one, xs], ys)), xs, ys, None)
        elif model == "logarithmic":
            out[model] = (list(lstsq([one, np.log(xs)], ys)), xs, ys, None)
        elif model == "quadratic":
            out[model] = (list(lstsq([one, xs, xs * xs], ys)), xs, ys, None)
        else:
            u = np.log(xs) if model == "power" else xs
            a, b = lstsq([one, u], np.log(ys))
            fit = a + b * u
            out[model] = ([math.exp(a), b if model == "power" else math.exp(b)], xs, ys,
                          perun_r2(np.log(ys), fit))
    return out


def perun_r2(y, fitted):
    sst = float(np.sum((y - y.mean()) ** 2))
    return 1 - float(np.sum((y - fitted) ** 2)) / sst if sst > 0 else 0.0


def constant_perun_r2(x, y, linear):
    """Perun's derived_const: the angle of the linear model, in radians
    over 90, picks between 1 - r^2 and r^2 (1 - angle/90)."""
    if linear is None:
        return 1.0
    (b0, b1), xs, ys, _ = linear
    r2 = perun_r2(ys, b0 + b1 * xs)
    angle = math.atan2(abs(b1 * x.max()), abs(x.max() - x.min())) / 90
    r = r2 * (1 - angle) if angle > 0.01 else 1 - r2
    return min(1.0, max(0.0, r))


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
        f = fits(x, y)
        ref[uid] = {}
        for m, (c, xs, ys, pr2) in f.items():
            if m == "constant":
                pr2 = constant_perun_r2(x, y, f.get("linear"))
            elif pr2 is None:
                pr2 = perun_r2(ys, predict(m, c, xs))
            ref[uid][m] = {"coeffs": [float(v) for v in c],
                           "r_square": r_square(ys, predict(m, c, xs)),
                           "r_square_perun": pr2,
                           "x_start": float(xs.min()), "x_end": float(xs.max())}
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
            for key in ("r_square", "r_square_perun"):
                if abs(want[key] - m[key]) > rel:
                    bad.append(f"{uid} {name}: {key} {m[key]} != {want[key]}")
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
