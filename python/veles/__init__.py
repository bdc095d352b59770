"""Veles profiles from Python: load, query, convert, check (docs/python.md).

    >>> import veles
    >>> p = veles.load("0@i")                  # or a path, N@p, an id prefix
    >>> p.header["cmd"], len(p)
    >>> df = p.to_dataframe()                  # pandas, text as categoricals
    >>> p.query(where="amount>100", group_by="uid", agg="mean")
    >>> print(p.folded())                      # flame-graph collapsed stacks
    >>> veles.Project().check("HEAD~1", "HEAD")
    >>> veles.Project().collect(["time", "-r", "5"], "./prog", "100")
    >>> veles.Project().bisect("v1.0", "HEAD", "./prog", on="real")

The work is done by libveles (include/veles.h) through the C extension
veles._veles; numeric columns reach numpy without a copy.
"""

import json
import os
import warnings

from . import _veles
from ._veles import Error, InvalidError, NotFoundError, ParseError

__all__ = [
    "BisectResult", "CheckResult", "Error", "InvalidError", "NotFoundError", "ParseError", "Profile",
    "Project", "VelesWarning", "check", "load",
]
__version__ = _veles.version
ABI_VERSION = _veles.ABI_VERSION

LOG_PROGRESS, LOG_WARNING = 0, 1


class VelesWarning(UserWarning):
    """What the library warns of while it works (environments that
    differ, a profile without a baseline, a result it could not judge)."""


def _log(level, message):
    if level == LOG_WARNING:
        warnings.warn(message, VelesWarning, stacklevel=3)


def set_log(fn):
    """Sends the library's warnings and progress to fn(level, message)
    (level LOG_WARNING or LOG_PROGRESS); None drops them. By default
    warnings become VelesWarning."""
    _veles.set_log(fn)


_veles.set_log(_log)


def _numpy():
    import numpy
    return numpy


def _column_array(table, i, kind):
    """Column i of a _veles.Table as a numpy array: numbers without a copy
    where the table keeps them as rows, text as an object array."""
    np = _numpy()
    if kind in ("str", "json"):
        codes, cats = table.codes(i)
        codes = np.frombuffer(codes, dtype=np.int32)
        values = np.array(cats + [None], dtype=object)
        return values[codes]  # -1 picks the None at the end
    return _numeric(table.values(i))


def _numeric(buf):
    """A numpy array over a column's buffer: no copy; it keeps the buffer,
    and so the profile, alive."""
    np = _numpy()
    return np.frombuffer(buf, dtype={"i": np.int32, "q": np.int64,
                                     "d": np.float64}[memoryview(buf).format])


def _table_columns(table):
    return {name: _column_array(table, i, kind)
            for i, (name, kind) in enumerate(zip(table.names, table.kinds))}


def _table_dataframe(table):
    """A _veles.Table as a pandas DataFrame: numeric columns wrap the
    table's cells, text columns are categoricals of its strings."""
    import pandas as pd
    np = _numpy()
    data = {}
    for i, (name, kind) in enumerate(zip(table.names, table.kinds)):
        if kind in ("str", "json"):
            codes, cats = table.codes(i)
            data[name] = pd.Categorical.from_codes(np.frombuffer(codes, dtype=np.int32),
                                                   categories=cats)
        else:
            data[name] = _numeric(table.values(i))
    return pd.DataFrame(data, copy=False)


def _table_rows(table):
    return [table.row(r) for r in range(table.nrows)]


class Profile:
    """A loaded profile: its header, models, resources as columns, queries
    over them, and its call stacks."""

    def __init__(self, handle):
        self._p = handle

    def __len__(self):
        return len(self._p)

    def __repr__(self):
        return (f"<veles.Profile {self.name} {self.header.get('type')} "
                f"{self.header.get('cmd')!r}, {len(self)} resources>")

    @property
    def name(self):
        """The file or entry name it was loaded by."""
        return self._p.name

    @property
    def id(self):
        """A registered profile's id ('' for a file or a pending one)."""
        return self._p.id

    @property
    def version(self):
        """The version a registered profile belongs to ('' otherwise)."""
        return self._p.version

    @property
    def header(self):
        """header: type, cmd, args or params, workload, units, ... (a dict)."""
        return json.loads(self._p.json("header"))

    @property
    def collector_info(self):
        return json.loads(self._p.json("collector_info"))

    @property
    def postprocessors(self):
        return json.loads(self._p.json("postprocessors"))

    @property
    def models(self):
        """The fitted models (a list of dicts, Perun's keys)."""
        return json.loads(self._p.json("models"))

    @property
    def columns(self):
        """The resources' columns, in order."""
        return self._p.resources().names

    @property
    def resources(self):
        """The resources as columns: {name: numpy array}. Numeric columns
        the profile keeps one cell per resource wrap its memory (read-only,
        no copy); a type's attributes (uid, subtype, ...) are expanded;
        text is an object array (None: no value)."""
        return _table_columns(self._p.resources())

    def column(self, name):
        """One column of the resources as a numpy array."""
        t = self._p.resources()
        try:
            i = t.names.index(name)
        except ValueError:
            raise NotFoundError(f"no column '{name}' in {self.name}") from None
        return _column_array(t, i, t.kinds[i])

    def to_dataframe(self):
        """The resources as a pandas DataFrame, a row per resource: numbers
        without a copy where possible, text as categoricals."""
        return _table_dataframe(self._p.resources())

    def query(self, where=None, group_by=None, agg="sum", of=None, any=False):
        """Selects resources by conditions ('amount>100', 'uid~^SLList_',
        'subtype=malloc'; all must hold, or one with any=True) and with
        group_by aggregates `of` (default amount) per group by agg:
        count, sum, mean, median, min or max. A DataFrame."""
        return _table_dataframe(self._p.query(where=where, any=any, group_by=group_by,
                                              agg=agg, of=of))

    def folded(self, of=None, as_dict=False):
        """The call stacks in the flame-graph collapsed format
        ("outer;...;inner VALUE" lines), or {stack: value}."""
        text = self._p.folded(of)
        if not as_dict:
            return text
        out = {}
        for line in text.splitlines():
            stack, _, value = line.rpartition(" ")
            out[stack] = float(value)
        return out


def _opts(options):
    out = {}
    for key, value in options.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        out[key.replace("_", "-")] = str(value)
    return out


class CheckResult:
    """One location compared: its class (result), the change in percent
    with its interval, the method that judged it, and what was compared."""

    __slots__ = ("location", "result", "method", "rel_change", "ci_low", "ci_high",
                 "confidence", "confidence_kind", "baseline", "target", "n_baseline",
                 "n_target", "note", "detail", "baseline_profile", "target_profile",
                 "baseline_id", "target_id", "baseline_version", "target_version", "config")

    def __init__(self, row):
        for key in self.__slots__:
            setattr(self, key, row.get(key))

    @staticmethod
    def _pct(v):
        return None if v is None else 100.0 * v

    @property
    def cls(self):
        """The class, as Perun names it: Degradation, NoChange, ..."""
        return self.result

    @property
    def change(self):
        """The relative change in percent (target against baseline)."""
        return self._pct(self.rel_change)

    @property
    def interval(self):
        """The interval of the change in percent, (low, high), or None."""
        if self.ci_low is None or self.ci_high is None:
            return None
        return (self._pct(self.ci_low), self._pct(self.ci_high))

    @property
    def is_degradation(self):
        return self.result in ("MaybeDegradation", "Degradation", "SevereDegradation",
                               "TotalDegradation")

    def __repr__(self):
        change = "n/a" if self.change is None else f"{self.change:+.1f}%"
        return f"<CheckResult {self.location}: {self.result} {change} ({self.method})>"


def _results(table):
    return [CheckResult(row) for row in _table_rows(table)]


class BisectResult:
    """What Project.bisect found: first, the first slow version's id (None
    when bad was not surely slower, or a version could not be told apart),
    its class and change in percent against good, and steps, the
    (version, verdict) of each version measured on the way ("good", "bad"
    or "unknown")."""

    __slots__ = ("first", "cls", "change", "n_good", "n_first", "steps")

    def __init__(self, rows):
        self.steps = [(r["version"], r["verdict"]) for r in rows if r["verdict"] != "first"]
        last = rows[-1] if rows and rows[-1]["verdict"] == "first" else {}
        self.first = last.get("version")
        self.cls = last.get("class")
        rel = last.get("rel_change")
        self.change = None if rel is None else 100.0 * rel
        self.n_good, self.n_first = last.get("n_good"), last.get("n_version")

    def __repr__(self):
        if self.first is None:
            return f"<BisectResult: not found after {len(self.steps)} steps>"
        return f"<BisectResult {self.first[:7]}: {self.cls} {self.change:+.1f}%>"


def _argv(cmd, args):
    """A command as a list of str: cmd (a str or a list) and args."""
    words = [cmd] if isinstance(cmd, (str, os.PathLike)) else list(cmd)
    return [os.fspath(w) if isinstance(w, os.PathLike) else str(w) for w in words + list(args)]


class Project:
    """The Veles project around path (default: the current directory)."""

    def __init__(self, path=None):
        self._pr = _veles.Project(None if path is None else os.fspath(path))

    def __repr__(self):
        return f"<veles.Project {self.root}>"

    @property
    def root(self):
        return self._pr.root

    def versions(self, rev=None, limit=0):
        """The history from rev (default HEAD), newest first: dicts with
        id, short_id, author, email, time, summary, parents, profiles."""
        return _table_rows(self._pr.versions(rev, limit))

    def profiles(self, rev=None):
        """The profiles registered to rev (default HEAD) in N@i order:
        dicts with index, id, name, type, cmd, args, workload, collector."""
        return _table_rows(self._pr.profiles(rev))

    def pending(self):
        """The pending profiles in N@p order."""
        return _table_rows(self._pr.pending())

    def load(self, spec, rev=None):
        """A profile by path, N@i (of rev), N@p, name or id prefix."""
        return Profile(self._pr.load(str(spec), rev))

    def check(self, base, target, **options):
        """Checks target against base: two revisions (each profile of
        target with base's profile of the same configuration), or two
        profiles (Profile objects or names for load()). Options as
        `veles check` takes them: method, alpha, min_effect, severe, test,
        rounds, seed, aat_threshold, on, strict_env, force. A list of
        CheckResult."""
        if isinstance(base, Profile) or isinstance(target, Profile):
            base = base if isinstance(base, Profile) else self.load(base)
            target = target if isinstance(target, Profile) else self.load(target)
            return _results(self._pr.check(base._p, target._p, _opts(options)))
        return _results(self._pr.check(str(base), str(target), _opts(options)))

    def collect(self, collector, cmd, *args, workload=None, name=None, template=None):
        """Runs cmd with args (in the current directory) under collector,
        as `veles collect` does: collector is a name ("time") or a list,
        its name and options (["time", "-r", "5"]). The profile is written
        pending into .veles/jobs/ (named name, or by template, or the
        setting format.output_profile_template) and returned as a Profile
        (None when the collector writes none)."""
        options = {k: v for k, v in (("workload", workload), ("name", name),
                                     ("template", template)) if v is not None}
        path = self._pr.collect(_argv(collector, ()), _argv(cmd, args), _opts(options))
        return None if path is None else Profile(_veles.load(path))

    def run_matrix(self, revs=None):
        """Runs the job matrix (config.yml or veles.yml) as `veles run
        matrix` does: on the working tree, or on each revision of revs (a
        str or a list; A..B for a range) checked out elsewhere. A dict per
        job: version, cmd, args, workload, collector, ok, error, path,
        name, registered, seconds."""
        if isinstance(revs, str):
            revs = [revs]
        return _table_rows(self._pr.run_matrix(None if revs is None else list(revs)))

    def bisect(self, good, bad, cmd=None, *args, **options):
        """Finds the first version between good and bad that made cmd (with
        args) slower, as `veles bisect` does, each version checked out and
        built elsewhere. Options as `veles bisect` takes them: build,
        runs, max_runs, on, min_effect, alpha, seed, strict_env,
        interleave, job (instead of cmd), location. A BisectResult."""
        argv = None if cmd is None else _argv(cmd, args)
        rows = _table_rows(self._pr.bisect(str(good), str(bad), argv, _opts(options)))
        return BisectResult(rows)


def load(path_or_id, project=None):
    """Loads a profile: a file, or with a project (a Project or its path;
    by default the one around the current directory when path_or_id is no
    file) any name `veles` takes: N@i, N@p, a name or an id prefix."""
    if isinstance(project, Project):
        return project.load(path_or_id)
    spec = os.fspath(path_or_id) if not isinstance(path_or_id, str) else path_or_id
    if project is None and os.path.isfile(spec):
        return Profile(_veles.load(spec))
    if project is None and os.sep in spec and not os.path.exists(spec):
        raise NotFoundError(f"no such profile file: {spec}")
    return Project(project).load(spec)


def check(base, target, **options):
    """Checks profile target against profile base (Profiles or paths),
    without a project; a list of CheckResult."""
    base = base if isinstance(base, Profile) else load(base)
    target = target if isinstance(target, Profile) else load(target)
    return _results(_veles.check_profiles(base._p, target._p, _opts(options)))
