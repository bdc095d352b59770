#!/bin/sh
# A throwaway PostgreSQL server from Debian's postgresql package, for the
# tests and bench/runners.sh: its cluster and its unix socket in one folder,
# no TCP port. PostgreSQL refuses to run as root, so as root the server runs
# as nobody (the folder is given to it).
#   pg-temp.sh start DIR   initdb + pg_ctl start; prints the database URL
#   pg-temp.sh stop DIR    pg_ctl stop (immediate), then removes DIR
# Exit 77 with the reason when the package is missing.
set -eu

cmd=${1:?usage: pg-temp.sh start|stop DIR}
dir=${2:?usage: pg-temp.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
	echo "pg-temp: no PostgreSQL server (Debian package postgresql)" >&2
	exit 77
fi

as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

case $cmd in
start)
	mkdir -p "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		# nobody must reach it: the folder above (a mktemp -d of the
		# caller's, mode 700) is opened to passing through, no more.
		chmod o+x "$(dirname "$dir")"
		chown nobody "$dir"
		chmod 700 "$dir"
	fi
	as_owner "$bin/initdb" -D "$dir/data" -U veles --auth=trust -E UTF8 --no-sync \
		>"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		exit 1
	}
	# Unix socket only, in the folder; fsync off: a test's data need not
	# survive a crash of the machine.
	as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses= -c unix_socket_directories=$dir -c fsync=off -c max_connections=50" \
		start >/dev/null || {
		cat "$dir/server.log" >&2
		exit 1
	}
	as_owner "$bin/createdb" -h "$dir" -U veles veles
	# The socket's folder must be reachable by whoever connects.
	chmod 755 "$dir"
	echo "postgresql://veles@/veles?host=$dir"
	;;
stop)
	[ -d "$dir/data" ] && as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop \
		>/dev/null 2>&1 || true
	rm -rf "$dir"
	;;
*)
	echo "usage: pg-temp.sh start|stop DIR" >&2
	exit 2
	;;
esac
