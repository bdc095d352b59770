#!/bin/bash
# t-serve_history.sh on a PostgreSQL database (a temporary server from
# Debian's postgresql package; skipped with 77 without it).
HIST_PG=1 exec bash "$(dirname "$0")/t-serve_history.sh"
