/*
 * --export: an interval's summary values ("cpu.user 3", modules' values
 * included) sent somewhere instead of printed as a table:
 *   lexpr[,HOST:PORT]     "name value" lines, to the terminal or a socket
 *   graphite,HOST:PORT    the plaintext protocol, "HOST.name value time"
 *   prometheus,[ADDR:]PORT  served at http://ADDR:PORT/metrics; ADDR is
 *                         127.0.0.1 unless given ([::1] for IPv6)
 */
#ifndef MONITOR_EXPORT_H
#define MONITOR_EXPORT_H

#include <stdio.h>

#include "monitor/output.h"
#include "util/buf.h"

enum mon_export_kind { EXPORT_LEXPR, EXPORT_GRAPHITE, EXPORT_PROMETHEUS };

struct mon_export {
	enum mon_export_kind kind;
	char *host, *port; /* prometheus: the address listened on */
	int fd;		   /* lexpr or graphite: the connected socket, or -1 */
	int listen_fd;	   /* prometheus */
	char host_prefix[64];
	struct buf values, out;
	struct buf metrics; /* prometheus: the latest page */
	FILE *terminal;
};

/* Parses "kind[,address]"; -1 with a usage message when it is malformed. */
int mon_export_parse(struct mon_export *e, const char *spec);
/* Connects or starts listening. */
int mon_export_open(struct mon_export *e, FILE *terminal);
int mon_export_interval(struct mon_export *e, struct mon_out *o, const struct mon_interval *iv);
/* Prometheus: serves requests until @deadline (CLOCK_MONOTONIC seconds);
 * one already past still answers a request that is waiting. */
void mon_export_wait(struct mon_export *e, double deadline);
void mon_export_close(struct mon_export *e);

#endif
