#!/usr/bin/env python3
"""Makes the fuzz corpus's crafted inputs (docs/fuzzing.md).

  craft.py rawrec IN OUT      a monitor recording re-framed as stored
                              (uncompressed) zstd blocks, so a fuzzer's
                              mutations reach its records
  craft.py monrec-modlen OUT  a recording whose module record's length
                              is read past its sample record's end
  craft.py perf-chain OUT     a record file whose sample claims a call
                              chain of 2^60 entries
  craft.py tpstream OUT       a tracepoint recording as `veles record -e
                              sched:sched_switch` writes it, for machines
                              without tracefs
"""
import struct
import subprocess
import sys

MON_MAGIC = b"VELESMON1\n"


def zstd_raw(data):
    """One zstd frame of stored blocks (RFC 8878 3.1.1): no compression."""
    out = bytearray(b"\x28\xb5\x2f\xfd")
    out += b"\x00"  # no checksum, no dictionary, no content size
    out += b"\x58"  # window 2 MiB
    blocks = [data[i:i + 65536] for i in range(0, len(data), 65536)] or [b""]
    for i, b in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        out += struct.pack("<I", len(b) << 3 | 0 << 1 | last)[:3] + b
    return bytes(out)


def varint(n):
    out = bytearray()
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)


def record(tag, payload):
    return tag + varint(len(payload)) + payload


def rawrec(src, dst):
    data = open(src, "rb").read()
    assert data.startswith(MON_MAGIC), src
    plain = subprocess.run(["zstd", "-dcq"], input=data[len(MON_MAGIC):],
                           capture_output=True, check=True).stdout
    open(dst, "wb").write(MON_MAGIC + zstd_raw(plain))


def monrec_modlen(dst):
    header = b"version: 1\ninterval: 1\nsubsystems: c\ntables: 1\n"
    # A sample with no tables and one module record: its module number
    # and length lie past the record's end, in the next record's tag and
    # length (64 MiB, a record cut short).
    sample = varint(0) + varint(0) + varint(1)
    tail = b"X" + varint(64 << 20)
    plain = record(b"H", header) + record(b"S", sample) + tail
    open(dst, "wb").write(MON_MAGIC + zstd_raw(plain))


def perf_chain(dst):
    PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME = 1, 2, 4
    PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_PERIOD = 32, 256
    st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN \
        | PERF_SAMPLE_PERIOD
    name = b"cpu-clock"
    hsize = 56 + len(name)
    head = b"VELESPD1" + struct.pack("<IIQQIIQQ", 1, hsize, st, 999, 1, len(name), 1, 0) + name
    recs = bytearray()
    for i in range(40):
        body = struct.pack("<QIIQ", 0x401000 + i, 42, 42, 1000 + i)
        body += struct.pack("<Q", 1)  # the period
        body += struct.pack("<Q", 1 << 60)  # the chain's length
        body += struct.pack("<QQ", 0x401000 + i, 0x402000)
        recs += struct.pack("<IHH", 9, 2, 8 + len(body)) + body  # PERF_RECORD_SAMPLE, user
    open(dst, "wb").write(head + bytes(recs))


SCHED_SWITCH = b"""name: sched_switch
ID: 316
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;

print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "R" : "S", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio
"""


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def perf_record(rtype, body, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def tpstream(dst):
    IP, TID, TIME, CPU, PERIOD, RAW = 1, 2, 4, 128, 256, 1024
    st = IP | TID | TIME | CPU | PERIOD | RAW
    name = b"sched:sched_switch"
    head = b"VELESPD1" + struct.pack("<IIQQIIQQ", 1, 56 + len(name), st, 1, 0, len(name), 2,
                                     316) + name
    recs = bytearray()
    recs += perf_record(0x5646, pad8(b"sched\0" + SCHED_SWITCH + b"\0"))
    # comm (u32 pid, tid, name) and fork (pid, ppid, tid, ptid, time)
    recs += perf_record(3, pad8(struct.pack("<II", 100, 100) + b"worker\0"))
    recs += perf_record(7, struct.pack("<IIIIQ", 101, 100, 101, 100, 500))
    recs += perf_record(3, pad8(struct.pack("<II", 101, 101) + b"child\0") +
                        struct.pack("<IIQII", 101, 101, 900, 0, 0), misc=0x2000)
    for i, (pid, t) in enumerate([(100, 1000), (101, 800), (0, 1200), (101, 1100)]):
        raw = struct.pack("<HBBi", 316, 0, 0, pid) + b"worker".ljust(16, b"\0")
        raw += struct.pack("<iiq", pid, 120, 1) + b"swapper/0".ljust(16, b"\0")
        raw += struct.pack("<ii", 0, 120)
        raw = raw + b"\0" * (-(len(raw) + 4) % 8)
        body = struct.pack("<QIIQIIQ", 0xffffffff81000080, pid, pid, t, i % 2, 0, 1)
        body += struct.pack("<I", len(raw)) + raw
        recs += perf_record(9, body)
    recs += perf_record(2, struct.pack("<QQ", 7, 3))  # lost
    open(dst, "wb").write(head + bytes(recs))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "rawrec" and len(sys.argv) == 4:
        rawrec(sys.argv[2], sys.argv[3])
    elif cmd == "monrec-modlen" and len(sys.argv) == 3:
        monrec_modlen(sys.argv[2])
    elif cmd == "perf-chain" and len(sys.argv) == 3:
        perf_chain(sys.argv[2])
    elif cmd == "tpstream" and len(sys.argv) == 3:
        tpstream(sys.argv[2])
    else:
        sys.exit(__doc__)
