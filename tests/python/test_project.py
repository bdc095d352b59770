"""veles.Project: versions, profiles, loading by N@i/N@p/id, checks."""
import json
import os
import subprocess
import warnings

import pytest

import veles
from conftest import time_profile


def test_versions_and_profiles(project):
    pr = veles.Project()
    assert pr.root == str(project)
    vs = pr.versions()
    assert [v["summary"] for v in vs] == ["slower", "first"]
    assert [v["profiles"] for v in vs] == [1, 1]
    assert vs[0]["parents"] == vs[1]["id"]
    ps = pr.profiles()
    assert [(p["index"], p["name"], p["type"], p["cmd"]) for p in ps] == [
        (0, "prog-time-2.perf", "time", "./prog")]
    assert pr.profiles("HEAD~1")[0]["name"] == "prog-time-1.perf"
    assert [p["name"] for p in pr.pending()] == ["prog-time-3.perf"]


def test_load_by_name(project):
    pr = veles.Project(project)
    p = pr.load("0@i")
    assert p.name == "prog-time-2.perf" and len(p.id) == 40
    assert veles.load(p.id[:8]).id == p.id
    assert veles.load("0@i", project=str(project)).name == p.name
    assert pr.load("0@i", rev="HEAD~1").name == "prog-time-1.perf"
    assert veles.load("0@p").name == "prog-time-3.perf"
    assert veles.load(".veles/jobs/prog-time-3.perf").id == ""
    with pytest.raises(veles.NotFoundError, match="no profile 3@i in version"):
        pr.load("3@i")
    with pytest.raises(LookupError):
        pr.load("nothing-like-this")


def test_check_versions(project):
    pr = veles.Project()
    results = pr.check("HEAD~1", "HEAD", seed=3)
    assert len(results) == 1
    r = results[0]
    assert r.location == "./prog [real]" and r.is_degradation
    assert r.baseline_profile == "prog-time-1.perf" and r.target_profile == "prog-time-2.perf"
    assert 28 < r.change < 32
    # The same check on the profiles themselves.
    again = pr.check("0@i", pr.load("0@i"), seed=3)
    assert again[0].cls == "NoChange"
    byprof = pr.check(pr.load("0@i", "HEAD~1"), pr.load("0@i"), seed=3)
    assert byprof[0].change == pytest.approx(r.change)


def test_check_without_baseline_warns(project):
    veles_bin = os.environ["VELES"]
    (project / ".veles" / "jobs" / "other-time-1.perf").write_text(
        json.dumps(time_profile(1.0, cmd="./other")))
    subprocess.run([veles_bin, "add", "-q", "other-time-1.perf"], check=True)
    pr = veles.Project()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        results = pr.check("HEAD~1", "HEAD", seed=1)
    assert [r.target_profile for r in results] == ["prog-time-2.perf"]
    said = [str(x.message) for x in w if issubclass(x.category, veles.VelesWarning)]
    assert said == [f"other-time-1.perf has no baseline in version {pr.versions()[1]['id'][:7]}"]


def test_not_a_project(tmp_path):
    with pytest.raises(veles.NotFoundError, match="not a Veles project"):
        veles.Project(tmp_path)
    with pytest.raises(veles.Error, match="cannot open project"):
        veles.Project(tmp_path / "missing")


def test_sort_profiles_by(project):
    """format.sort_profiles_by numbers N@p and N@i as `veles status` does,
    and a key that is none of Perun's is a warning, once."""
    veles_bin = os.environ["VELES"]
    jobs = project / ".veles" / "jobs"
    (jobs / "a-time-1.perf").write_text(json.dumps(time_profile(1.0, cmd="./a")))
    (jobs / "z-time-1.perf").write_text(json.dumps(time_profile(1.0, cmd="./z")))
    pr = veles.Project()
    assert [p["name"] for p in pr.pending()] == ["a-time-1.perf", "prog-time-3.perf",
                                                "z-time-1.perf"]
    subprocess.run([veles_bin, "status", "--sort-by", "source"], check=True,
                   capture_output=True)
    # Perun's order: descending.
    assert [p["name"] for p in pr.pending()] == ["z-time-1.perf", "prog-time-3.perf",
                                                "a-time-1.perf"]
    assert veles.load("0@p").name == "z-time-1.perf"
    status = subprocess.run([veles_bin, "status"], check=True, capture_output=True,
                            text=True).stdout
    assert status.index("z-time-1.perf") < status.index("a-time-1.perf")
    subprocess.run([veles_bin, "config", "set", "format.sort_profiles_by", "colour"],
                   check=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        names = [p["name"] for p in veles.Project().pending()]
    assert names == ["a-time-1.perf", "prog-time-3.perf", "z-time-1.perf"]
    said = [str(x.message) for x in w if issubclass(x.category, veles.VelesWarning)]
    assert len(said) == 1 and "'colour' is not a key to sort by" in said[0]
