/* /proc/net/sockstat: "sockets: used N", "TCP: inuse N orphan N tw N ...". */
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

/* Where each "PROTO: key" goes among the table's columns. */
static const struct {
	const char *proto, *key;
} slots[] = {
	{"sockets", "used"}, {"TCP", "inuse"},	{"TCP", "orphan"},  {"TCP", "tw"},
	{"TCP", "alloc"},    {"TCP", "mem"},	{"UDP", "inuse"},   {"UDP", "mem"},
	{"RAW", "inuse"},    {"FRAG", "inuse"}, {"FRAG", "memory"},
};

static int slot(const char *proto, size_t pn, const char *key, size_t kn)
{
	for (size_t i = 0; i < ARRAY_SIZE(slots); i++)
		if (strlen(slots[i].proto) == pn && !memcmp(slots[i].proto, proto, pn) &&
		    strlen(slots[i].key) == kn && !memcmp(slots[i].key, key, kn))
			return (int)i;
	return -1;
}

/* The "key value" pairs after "PROTO:" on one line. */
static void parse_line(const char *p, const char *eol, uint64_t *row)
{
	size_t pn = strcspn(p, ":\n");
	const char *q = p + pn + 1;

	while (q < eol) {
		const char *key;
		size_t kn;
		int s;

		while (*q == ' ')
			q++;
		key = q;
		kn = strcspn(q, " \n");
		q += kn;
		s = slot(p, pn, key, kn);
		if (s >= 0)
			row[s] = mon_num(&q);
		else
			mon_num(&q);
	}
}

int mon_parse_sockstat(const char *text, struct mon_table *t)
{
	uint64_t *row = mon_table_add(t, "sock", 4, ARRAY_SIZE(slots));

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');

		if (!eol)
			eol = p + strlen(p);
		parse_line(p, eol, row);
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}
