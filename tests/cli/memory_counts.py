"""Prints a memory profile's events counted per allocation site, for
t-collect_memory.sh: "FUNCTION SUBTYPE COUNT BYTES" lines, then the
distinct pids and threads and the source:line of each site."""
import json
import sys
from collections import Counter

prof = json.load(open(sys.argv[1]))
types = prof["resource_type_map"]
count, amount, lines = Counter(), Counter(), set()
pids, threads = set(), set()
for key, res in prof["resources"].items():
    t = types[key]
    uid = t["uid"]
    k = (uid["function"], t["subtype"])
    count[k] += len(res["amount"])
    amount[k] += sum(res["amount"])
    pids.update(res.get("pid", []))
    threads.update(res.get("thread", []))
    lines.add("line %s:%s:%d" % (uid["source"].split("/")[-1], uid["function"], uid["line"]))
for (fn, sub), n in sorted(count.items()):
    print(fn, sub, n, amount[(fn, sub)])
print("pids", len(pids))
print("threads", len(threads))
for line in sorted(lines):
    print(line)
