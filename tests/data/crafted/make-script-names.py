#!/usr/bin/env python3
"""Writes two tracepoint recordings (docs/perf-data.md) whose format files
carry names that are no Python names, into DIR:

script-name-payload.data: one tracepoint whose name hides a command behind
carriage returns: pasted into Python code as it is,
`def evil__a(*a): pass<CR>__import__("os")...` runs it when the script is
loaded (a terminal shows only the last part of the line).

script-names.data: that one, and others with fields named as keywords, as
the handler's own parameters, with quotes, '%', control and bidirectional
characters, twice the same, and a system and name beyond ASCII.

Usage: make-script-names.py DIR"""
import struct
import sys

PERF_TYPE_TRACEPOINT = 2
PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_CPU, PERF_SAMPLE_RAW = 2, 4, 128, 1024
RECORD_TPFORMAT = 0x5646
PERF_RECORD_COMM = 3


def fmt(name, fields):
    lines = ["name: " + name, "ID: 9999", "format:",
             "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;",
             "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;", ""]
    off = 8
    for f in fields:
        lines.append("\tfield:%s;\toffset:%d;\tsize:8;\tsigned:1;" % (f, off))
        off += 8
    lines += ["", 'print fmt: "x"']
    return "\n".join(lines) + "\n"


def tpformat(system, text):
    body = system.encode() + b"\0" + text.encode() + b"\0"
    size = (8 + len(body) + 7) & ~7
    return struct.pack("<IHH", RECORD_TPFORMAT, 0, size) + body.ljust(size - 8, b"\0")


payload = 'a(*a): pass\r__import__("os").system("touch pwned-name")\rdef b'
formats = [
    ("evil", fmt(payload, ["long id"])),
    ("raw_syscalls", fmt("sys_enter", [
        "long from", "long context", "long print", 'long x"y', "long a\rb",
        "long 100%d", "long id", "long id", "long field_7", "long ok_name",
        "long x=__import__('os').system('touch\tpwned-field')",
        "long s\u202eevil"])),
    ("my-sys", fmt("ev.1", ["long v"])),
    ("s\u00e9", fmt("n\u202e", ["long v"])),
]


def write(path, formats):
    event = "evil:a"
    sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW
    header = struct.pack("<8sIIQQIIQQ", b"VELESPD1", 1, 56 + len(event), sample_type, 1, 0,
                         len(event), PERF_TYPE_TRACEPOINT, 0) + event.encode()
    # A comm record: the process the (absent) samples would name.
    comm = struct.pack("<II", 1, 1) + b"evil".ljust(8, b"\0")
    with open(path, "wb") as out:
        out.write(header)
        for system, text in formats:
            out.write(tpformat(system, text))
        out.write(struct.pack("<IHH", PERF_RECORD_COMM, 0, 8 + len(comm)) + comm)


write(sys.argv[1] + "/script-name-payload.data", formats[:1])
write(sys.argv[1] + "/script-names.data", formats)
