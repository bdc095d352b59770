/* Choosing the metric a comparison looks at (metric.h). */
#include <stdlib.h>
#include <string.h>

#include "analyze/degrade.h"
#include "analyze/metric.h"
#include "profile/profile.h"

static const char *const order[] = {"instructions", "cycles", "cpu", "real", "user", "sys", NULL};

const char *const *metric_order(void)
{
	return order;
}

bool metric_known(const char *name)
{
	for (size_t i = 0; order[i]; i++)
		if (strcmp(order[i], name) == 0)
			return true;
	return false;
}

bool metric_present(const struct profile *p, const char *metric)
{
	const struct column *c = table_col(&p->types, "subtype");

	for (size_t t = 0; c && t < p->types.nrows; t++) {
		const char *s = col_text(p, c, t);

		if (s && strcmp(s, metric) == 0)
			return true;
	}
	return false;
}

bool metric_any(const struct profile *p)
{
	for (size_t i = 0; order[i]; i++)
		if (metric_present(p, order[i]))
			return true;
	return false;
}

const char *metric_shared(const struct profile *a, const struct profile *b)
{
	for (size_t i = 0; order[i]; i++)
		if (metric_present(a, order[i]) && metric_present(b, order[i]))
			return order[i];
	return NULL;
}

/* The subtype of "UID [SUBTYPE]", as a pointer to its start and length. */
static const char *location_subtype(const char *location, size_t *len)
{
	size_t n = strlen(location);
	const char *open;

	if (n < 3 || location[n - 1] != ']' || !(open = strrchr(location, '[')) ||
	    open == location || open[-1] != ' ')
		return NULL;
	*len = (size_t)(location + n - 1 - (open + 1));
	return open + 1;
}

bool metric_location_is(const char *location, const char *metric)
{
	size_t len;
	const char *s = location_subtype(location, &len);

	return s && len == strlen(metric) && strncmp(s, metric, len) == 0;
}

/* A location at one of the metrics (another than the one kept, maybe). */
static bool at_a_metric(const char *location)
{
	for (size_t i = 0; order[i]; i++)
		if (metric_location_is(location, order[i]))
			return true;
	return false;
}

void metric_filter_changes(struct change_list *l, size_t from, const char *metric)
{
	size_t k = from;

	for (size_t i = from; i < l->n; i++) {
		struct change *c = &l->v[i];

		if (!at_a_metric(c->location) || metric_location_is(c->location, metric)) {
			l->v[k++] = *c;
			continue;
		}
		free(c->location);
	}
	l->n = k;
}
