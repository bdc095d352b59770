"""veles.Project running commands: collect, run_matrix and bisect."""
import os
import subprocess

import pytest

import veles


@pytest.fixture
def fresh(project):
    """The project, with ./prog (a 20 ms sleep) committed."""
    prog = project / "prog"
    prog.write_text("#!/bin/sh\nsleep 0.02\n")
    prog.chmod(0o755)
    subprocess.run(["git", "add", "prog"], cwd=project, check=True)
    subprocess.run(["git", "commit", "-qm", "prog"], cwd=project, check=True)
    return project


def test_collect(fresh):
    pr = veles.Project()
    lines = []
    veles.set_log(lambda level, msg: lines.append((level, msg)))
    try:
        p = pr.collect(["time", "-r", "2", "--warmup", "0"], "./prog", "x", name="mine")
    finally:
        veles.set_log(veles._log)
    assert p.header["cmd"] == "./prog" and p.header["workload"] == "x"
    assert p.collector_info["name"] == "time"
    assert (fresh / ".veles" / "jobs" / "mine.perf").exists()
    assert "mine.perf" in [q["name"] for q in pr.pending()]
    # Quiet, as `collect -q`: nothing to warn of, and no summary.
    assert not any(level == veles.LOG_WARNING for level, _ in lines)
    df = p.to_dataframe()
    assert len(df) == len(p) > 0


def test_collect_memory_runtime_found(fresh, monkeypatch):
    # python3 is not in the build tree: the runtime is found from
    # libveles.so's own place. (A sanitized build preloads its runtimes
    # into this python3; they must not reach the profiled program.)
    monkeypatch.delenv("VELES_MEMORY_LIB", raising=False)
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    p = veles.Project().collect("memory", "/bin/true", name="mem")
    assert p.collector_info["name"] == "memory"


def test_collect_errors(fresh):
    pr = veles.Project()
    with pytest.raises(veles.InvalidError, match="unknown collector 'nosuch'"):
        pr.collect("nosuch", "./prog")
    with pytest.raises(veles.InvalidError, match="--bogus"):
        pr.collect(["time", "--bogus"], "./prog")
    with pytest.raises(veles.InvalidError, match="no command to profile"):
        pr.collect("time", [])
    with pytest.raises(veles.InvalidError, match="name '../x'"):
        pr.collect("time", "./prog", name="../x")
    with pytest.raises(TypeError):
        pr._pr.collect("time", ["./prog"], {})


def test_run_matrix(fresh):
    (fresh / "veles.yml").write_text(
        "cmds: [./prog]\nworkloads: [a, b]\n"
        "collectors:\n  - name: time\n    params: {repeat: 2, warmup: 0}\n")
    pr = veles.Project()
    jobs = pr.run_matrix()
    assert [(j["cmd"], j["workload"], j["collector"], j["ok"]) for j in jobs] == [
        ("./prog", "a", "time", 1), ("./prog", "b", "time", 1)]
    assert all(os.path.exists(j["path"]) and j["name"].endswith(".perf") for j in jobs)
    assert jobs[0]["version"] == pr.versions()[0]["id"]
    on_head = pr.run_matrix("HEAD")
    assert len(on_head) == 2 and all(j["ok"] == 1 for j in on_head)
    (fresh / "veles.yml").write_text("cmds: [./prog]\n")
    with pytest.raises(veles.InvalidError, match="no jobs"):
        pr.run_matrix()


def test_bisect(fresh):
    # prog, then prog 10x slower, then an unrelated change.
    (fresh / "prog").write_text("#!/bin/sh\nsleep 0.2\n")
    subprocess.run(["git", "commit", "-qam", "slow"], cwd=fresh, check=True)
    (fresh / "README").write_text("x\n")
    subprocess.run(["git", "add", "README"], cwd=fresh, check=True)
    subprocess.run(["git", "commit", "-qm", "readme"], cwd=fresh, check=True)
    pr = veles.Project()
    slow = pr.versions()[1]["id"]
    r = pr.bisect("HEAD~2", "HEAD", "./prog", on="real", runs=3, seed=5)
    assert r.first == slow
    assert r.steps[0] == (slow, "bad")
    assert r.change > 0 and "Degradation" in r.cls
    with pytest.raises(veles.InvalidError, match="same version"):
        pr.bisect("HEAD", "HEAD", "./prog")
    with pytest.raises(veles.InvalidError, match="unknown bisect option 'colour'"):
        pr.bisect("HEAD~2", "HEAD", "./prog", colour="red")
    with pytest.raises(veles.InvalidError, match="name the command"):
        pr.bisect("HEAD~2", "HEAD")
