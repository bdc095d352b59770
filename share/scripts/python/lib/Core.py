"""Core: helpers for `veles script` handlers (docs/cli/script.md).

autodict() is a dictionary that creates missing levels on first use;
flag_str() and symbol_str() name the values of a tracepoint's flag and
symbolic fields the way its format's print fmt does (__print_flags,
__print_symbolic). veles fills their tables from the recording's formats
before trace_begin() through the define_* functions below.
"""


class autodict(dict):
    """A dict whose missing keys appear as new autodicts, so that
    d[comm][pid][id] = 1 needs no intermediate levels. A count starts with
    `try: d[k] += 1` / `except TypeError: d[k] = 1`: the autodict that a
    missing key gives cannot be added to."""

    def __missing__(self, key):
        value = self[key] = type(self)()
        return value


_flag_fields = {}      # (event, field) -> delimiter
_flag_values = {}      # (event, field) -> {value: name}, in the format's order
_symbolic_values = {}  # (event, field) -> {value: name}


def define_flag_field(event_name, field_name, delim):
    _flag_fields[(event_name, field_name)] = delim
    _flag_values.setdefault((event_name, field_name), {})


def define_flag_value(event_name, field_name, value, field_str):
    _flag_values.setdefault((event_name, field_name), {})[value] = field_str


def define_symbolic_field(event_name, field_name):
    _symbolic_values.setdefault((event_name, field_name), {})


def define_symbolic_value(event_name, field_name, value, field_str):
    _symbolic_values.setdefault((event_name, field_name), {})[value] = field_str


def flag_str(event_name, field_name, value):
    """The names of the flags set in value, lowest bit first, joined by the
    format's delimiter with a space either side ("S | D"), as perf's Core
    does: 0 is the name the format gives 0, else ""; bits no name covers
    are left out."""
    names = _flag_values.get((event_name, field_name), {})
    delim = _flag_fields.get((event_name, field_name), "|")
    if value == 0:
        return names.get(0, "")
    parts = []
    for bits in sorted(names):
        if bits and value & bits == bits:
            parts.append(names[bits])
            value &= ~bits
    return (" " + delim + " ").join(parts)


def symbol_str(event_name, field_name, value):
    """The name the format gives value, or "" (perf's Core) for none."""
    return _symbolic_values.get((event_name, field_name), {}).get(value, "")
