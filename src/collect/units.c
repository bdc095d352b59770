/* Unit names and factors (units.h). */
#include <string.h>

#include "collect/units.h"
#include "util/common.h"

struct unit_name {
	const char *text;
	enum unit_dim dim;
	double scale;
	const char *name; /* the spelling profiles use */
};

/* Both micro signs (U+00B5 and U+03BC) appear in tools' output. */
static const struct unit_name names[] = {
	{"ps", UNIT_TIME, 1e-12, "ps"},
	{"ns", UNIT_TIME, 1e-9, "ns"},
	{"nsec", UNIT_TIME, 1e-9, "ns"},
	{"nanoseconds", UNIT_TIME, 1e-9, "ns"},
	{"us", UNIT_TIME, 1e-6, "us"},
	{"\xc2\xb5s", UNIT_TIME, 1e-6, "us"},
	{"\xce\xbcs", UNIT_TIME, 1e-6, "us"},
	{"usec", UNIT_TIME, 1e-6, "us"},
	{"microseconds", UNIT_TIME, 1e-6, "us"},
	{"ms", UNIT_TIME, 1e-3, "ms"},
	{"msec", UNIT_TIME, 1e-3, "ms"},
	{"milliseconds", UNIT_TIME, 1e-3, "ms"},
	{"s", UNIT_TIME, 1, "s"},
	{"sec", UNIT_TIME, 1, "s"},
	{"secs", UNIT_TIME, 1, "s"},
	{"second", UNIT_TIME, 1, "s"},
	{"seconds", UNIT_TIME, 1, "s"},
	{"min", UNIT_TIME, 60, "min"},
	{"minutes", UNIT_TIME, 60, "min"},
	{"h", UNIT_TIME, 3600, "h"},
	{"hours", UNIT_TIME, 3600, "h"},
	{"B", UNIT_MEMORY, 1, "B"},
	{"bytes", UNIT_MEMORY, 1, "B"},
	{"kB", UNIT_MEMORY, 1e3, "kB"},
	{"MB", UNIT_MEMORY, 1e6, "MB"},
	{"GB", UNIT_MEMORY, 1e9, "GB"},
	{"TB", UNIT_MEMORY, 1e12, "TB"},
	{"KB", UNIT_MEMORY, 1024.0, "KiB"},
	{"KiB", UNIT_MEMORY, 1024.0, "KiB"},
	{"MiB", UNIT_MEMORY, 1048576.0, "MiB"},
	{"GiB", UNIT_MEMORY, 1073741824.0, "GiB"},
	{"TiB", UNIT_MEMORY, 1099511627776.0, "TiB"},
};

void unit_parse(const char *text, size_t len, struct unit *u)
{
	while (len && (*text == ' ' || *text == '\t')) {
		text++;
		len--;
	}
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	*u = (struct unit){len ? UNIT_OTHER : UNIT_NONE, 1.0, NULL};
	for (size_t i = 0; len && i < ARRAY_SIZE(names); i++) {
		if (strlen(names[i].text) == len && memcmp(names[i].text, text, len) == 0) {
			*u = (struct unit){names[i].dim, names[i].scale, names[i].name};
			return;
		}
	}
}

const char *unit_dim_type(enum unit_dim dim)
{
	return dim == UNIT_TIME ? "time" : dim == UNIT_MEMORY ? "memory" : "mixed";
}
