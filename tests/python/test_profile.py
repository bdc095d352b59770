"""veles.load and a Profile: header, columns, DataFrames, queries, stacks."""
import gc
import json
import os

import numpy as np
import pytest

import veles
from conftest import time_profile, trace_profile

DATA = os.path.join(os.environ["VELES_SRCDIR"], "tests", "data", "profiles")


def flatten_typed(obj):
    """The rows a typed-layout profile means, as a reader of the seeds
    would flatten it: each measurement with its type's attributes."""
    rows = []
    for key, cols in obj["resources"].items():
        attrs = obj["resource_type_map"][key]
        n = len(next(iter(cols.values())))
        for i in range(n):
            row = dict(attrs)
            row.update({k: v[i] for k, v in cols.items()})
            rows.append(row)
    return rows


def test_dataframe_round_trip_typed(write):
    obj = trace_profile(uids=6, points=50)
    p = veles.load(write("trace.json", obj))
    df = p.to_dataframe()
    want = flatten_typed(obj)
    assert len(df) == len(p) == len(want) == 300
    assert sorted(df.columns) == sorted(want[0].keys())
    for col in df.columns:
        assert [r[col] for r in want] == df[col].tolist(), col
    # Text is categorical, from the profile's strings.
    assert str(df["uid"].dtype) == "category"
    assert set(df["uid"].cat.categories) == {r["uid"] for r in want}
    assert df["amount"].dtype == np.int32


def test_dataframe_round_trip_time(write):
    obj = time_profile(runs=7)
    p = veles.load(write("time.json", obj))
    df = p.to_dataframe()
    want = obj["global"]["resources"]
    assert len(df) == len(want)
    for col in ("uid", "type", "subtype", "order", "amount"):
        assert [r[col] for r in want] == df[col].tolist(), col
    assert p.header == obj["header"]
    assert p.collector_info == obj["collector_info"]
    assert p.models == []


def test_numeric_columns_wrap_the_profile(write):
    p = veles.load(write("trace.json", trace_profile()))
    amount = p.column("amount")
    # No copy: a read-only view whose owner chain keeps the profile alive.
    assert not amount.flags.writeable
    assert amount.base is not None
    with pytest.raises(ValueError):
        amount[0] = 1
    first = amount.tolist()
    del p
    gc.collect()
    assert amount.tolist() == first


def test_resources_dict(write):
    obj = trace_profile(uids=2, points=3)
    p = veles.load(write("trace.json", obj))
    r = p.resources
    assert set(r) == set(p.columns)
    assert r["structure-unit-size"].tolist() == [
        s for key in obj["resources"] for s in obj["resources"][key]["structure-unit-size"]]
    assert r["subtype"].tolist() == ["time delta"] * 6


def test_absent_values_are_nan_and_none(write):
    obj = time_profile(runs=2)
    del obj["global"]["resources"][1]["order"]
    obj["global"]["resources"][2]["note"] = "x"
    df = veles.load(write("t.json", obj)).to_dataframe()
    assert np.isnan(df["order"][1]) and df["order"][0] == 1
    assert df["note"].isna().sum() == len(df) - 1 and df["note"][2] == "x"


def test_models_are_dicts():
    p = veles.load(os.path.join(DATA, "trace-models.perf"))
    with open(os.path.join(DATA, "trace-models.perf")) as f:
        assert p.models == json.load(f)["models"]
    assert isinstance(p.models[0], dict)


def test_query_where_and_group_by(write):
    obj = trace_profile(uids=4, points=30)
    p = veles.load(write("trace.json", obj))
    df = p.to_dataframe()
    sel = p.query(where=["amount>20000", "uid~op_[12]"])
    want = df[(df["amount"] > 20000) & df["uid"].astype(str).str.contains("op_[12]")]
    assert sel["amount"].tolist() == want["amount"].tolist()
    either = p.query(where=["amount<100", "amount>60000"], any=True)
    assert len(either) == ((df["amount"] < 100) | (df["amount"] > 60000)).sum()
    g = p.query(group_by="uid", agg="mean")
    means = df.groupby("uid", observed=True)["amount"].mean()
    assert g["uid"].tolist() == sorted(means.index)
    assert np.allclose(g["mean"], [means[u] for u in g["uid"]])
    assert g["count"].tolist() == [30] * 4
    med = p.query(where="amount>1000", group_by="uid", agg="median", of="structure-unit-size")
    big = df[df["amount"] > 1000].groupby("uid", observed=True)["structure-unit-size"].median()
    assert np.allclose(med["median"], [big[u] for u in med["uid"]])


def test_query_errors(write):
    p = veles.load(write("trace.json", trace_profile()))
    with pytest.raises(veles.InvalidError, match="where 'amount' is not KEY OP VALUE"):
        p.query(where="amount")
    with pytest.raises(ValueError, match="unknown aggregate 'avg'"):
        p.query(group_by="uid", agg="avg")


def test_folded_memory_stacks():
    p = veles.load(os.path.join(DATA, "memory.perf"))
    assert p.folded() == "_start;__libc_start_main;main;malloc 4\n"
    assert p.folded(as_dict=True) == {"_start;__libc_start_main;main;malloc": 4.0}


def test_folded_without_stacks(write):
    p = veles.load(write("t.json", time_profile(runs=2)))
    with pytest.raises(veles.InvalidError, match="no resource has a call stack"):
        p.folded()


def test_malformed_profile_raises(tmp_path):
    bad = tmp_path / "bad.perf"
    bad.write_text('{"header": {"type": "time", "cmd": "./a"}, "global": {"resources": [1,}')
    with pytest.raises(veles.ParseError) as e:
        veles.load(str(bad))
    msg = str(e.value)
    # One line naming the file and where it broke.
    assert "\n" not in msg and msg.startswith(str(bad) + ":1:")
    assert isinstance(e.value, veles.Error)


def test_missing_key_and_missing_file(tmp_path):
    nokey = tmp_path / "nokey.perf"
    nokey.write_text('{"header": {"cmd": "./a"}, "resources": {}}')
    with pytest.raises(veles.Error, match="header.type"):
        veles.load(str(nokey))
    with pytest.raises(veles.Error, match="nothere.perf"):
        veles.load(str(tmp_path / "nothere.perf"))


def test_check_two_files(write):
    base = write("base.json", time_profile(1.0, seed=1))
    target = write("target.json", time_profile(1.3, seed=2))
    results = veles.check(base, target, seed=7)
    assert [r.location for r in results] == ["./prog [real]"]
    r = results[0]
    assert r.is_degradation and r.method == "stat"
    assert 28 < r.change < 32
    lo, hi = r.interval
    assert lo <= r.change <= hi
    same = veles.check(base, base, method="aat")
    assert {r.cls for r in same} == {"NoChange"}
    with pytest.raises(veles.InvalidError, match="unknown method"):
        veles.check(base, target, method="nonsense")
    with pytest.raises(veles.InvalidError, match="alpha wants a number"):
        veles.check(base, target, alpha=2)
