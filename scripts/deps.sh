#!/bin/sh
# Installs the Debian packages Veles needs to build, test and benchmark.
# Idempotent: asks apt only for what is missing, and refreshes the package
# lists only when something is.
set -eu

PKGS="gcc make pkg-config meson ninja-build git
libgit2-dev zlib1g-dev libzstd-dev libyajl-dev libcmocka-dev libyaml-dev
clang-format cppcheck python3 hyperfine time procps
libgsl-dev python3-numpy python3-scipy chromium libxml2-utils
libelf-dev uftrace linux-perf bpftrace libpfm4-dev
libdw-dev g++ heaptrack valgrind zstd sqlite3 sysstat collectl
libncurses-dev libunwind8 systemtap-sdt-dev"
# veles script: its Python module embeds libpython and decodes tracepoints
# with libtraceevent.
PKGS="$PKGS libpython3-dev libtraceevent-dev"
# import veles: the binding builds against python3-dev; its DataFrames are
# pandas', its tests pytest's.
PKGS="$PKGS python3-dev python3-pandas python3-pytest"
# collect regex: PCRE2; its tests run Google Benchmark and pytest-benchmark.
PKGS="$PKGS libpcre2-dev libbenchmark-dev python3-pytest-benchmark"
# collect bounds parses C with libclang (llvm-config finds it); its
# benchmark compares with LLVM's scalar evolution (clang, opt). clang also
# builds the programs whose edges veles fuzz counts (t-fuzz_cov.sh).
PKGS="$PKGS libclang-dev llvm clang"
# make fuzz: clang's libFuzzer and sanitizer runtimes (tests/fuzz).
PKGS="$PKGS libclang-rt-14-dev"

# veles serve: HTTP (libmicrohttpd), its database (SQLite), HDF5 exports
# (read back by h5py and pandas in the tests), wrk for its benchmark.
PKGS="$PKGS libmicrohttpd-dev libsqlite3-dev libhdf5-dev python3-h5py python3-pandas
python3-tables wrk"
# A team's database: PostgreSQL through libpq; the server itself for the
# tests and bench/runners.sh (initdb, pg_ctl).
PKGS="$PKGS libpq-dev postgresql"

# npm builds the HTML views' chart library (web/): Debian's nodejs and npm,
# unless an npm is already there.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing >&2
