"""Fixtures of the binding's tests: generated profiles and a project."""
import json
import os
import random
import subprocess

import pytest


def trace_profile(uids=5, points=40, seed=1):
    """The typed layout, as bench/gen_profile.py writes it (smaller)."""
    rnd = random.Random(seed)
    resources, types = {}, {}
    for u in range(uids):
        uid = f"SLList_op_{u}(SLList*, int)"
        key = uid + "#0"
        sizes = [rnd.randrange(0, 100000) for _ in range(points)]
        amounts = [s * (u % 7 + 1) // 3 + rnd.randrange(0, 1000) for s in sizes]
        resources[key] = {"amount": amounts, "structure-unit-size": sizes}
        types[key] = {"subtype": "time delta", "uid": uid, "time": "6.8e-05s", "type": "mixed"}
    return {
        "origin": "f7f3dcea69b97f2b03c421a223a770917149cfae",
        "header": {"workload": "", "type": "mixed", "units": {"mixed(time delta)": "us"},
                   "params": "", "cmd": "../stap-collector/tst"},
        "collector_info": {"name": "complexity", "params": {"method": "custom"}},
        "postprocessors": [], "models": [],
        "resources": resources, "resource_type_map": types,
    }


def time_profile(factor=1.0, runs=20, seed=1, cmd="./prog"):
    """The seed's time layout: real, user and sys of each run."""
    rnd = random.Random(seed)
    res = []
    for k in range(runs):
        for sub, base in (("real", 1.0), ("user", 0.9), ("sys", 0.05)):
            res.append({"uid": cmd, "type": "time", "subtype": sub, "order": k + 1,
                        "amount": round(base * factor * (1 + rnd.gauss(0, 0.01)), 6)})
    return {"header": {"type": "time", "cmd": cmd, "params": "", "workload": "",
                       "units": {"time": "s"}},
            "collector_info": {"name": "time", "params": {"repeat": runs}},
            "postprocessors": [], "global": {"timestamp": 1.0, "resources": res}}


@pytest.fixture
def write(tmp_path):
    def write_json(name, obj):
        path = tmp_path / name
        path.write_text(json.dumps(obj))
        return str(path)
    return write_json


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A git project with two versions, each with a time profile of 20
    runs; the second 30% slower; and one pending profile."""
    veles = os.environ["VELES"]
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="T", GIT_COMMITTER_EMAIL="t@example.com")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    root = tmp_path / "p"
    root.mkdir()

    def run(*cmd):
        subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)

    run("git", "init", "-q", "-b", "main", ".")
    (root / "prog.c").write_text("int main(void) { return 0; }\n")
    run("git", "add", "prog.c")
    run("git", "commit", "-qm", "first")
    run(veles, "init", "-q")
    jobs = root / ".veles" / "jobs"
    (jobs / "prog-time-1.perf").write_text(json.dumps(time_profile(1.0, seed=1)))
    run(veles, "add", "-q", "prog-time-1.perf")
    with open(root / "prog.c", "a") as f:
        f.write("/* slower */\n")
    run("git", "commit", "-qam", "slower")
    (jobs / "prog-time-2.perf").write_text(json.dumps(time_profile(1.3, seed=2)))
    run(veles, "add", "-q", "prog-time-2.perf")
    (jobs / "prog-time-3.perf").write_text(json.dumps(time_profile(1.0, seed=3)))
    monkeypatch.chdir(root)
    return root
