#!/bin/sh
# Writes share/scripts/python/lib/syscalls_x86_64.py, the x86_64 system
# call numbers Util.syscall_name() names, from the kernel's UAPI header
# (Debian: linux-libc-dev). The numbers are the kernel's ABI and never
# change; run again only to add calls of newer kernels.
set -eu
hdr=${1:-/usr/include/x86_64-linux-gnu/asm/unistd_64.h}
out=$(dirname "$0")/../share/scripts/python/lib/syscalls_x86_64.py
{
	echo "# x86_64 system call numbers, from <asm/unistd_64.h>"
	echo "# (written by scripts/gen-syscall-names.sh)."
	echo "names = {"
	awk '$1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ {
		printf "    %d: \"%s\",\n", $3, substr($2, 6) }' "$hdr"
	echo "}"
} >"$out.tmp"
mv "$out.tmp" "$out"
