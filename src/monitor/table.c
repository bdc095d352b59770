/* Tables of named rows of u64 columns, and the samples made of them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/monitor.h"
#include "util/common.h"

void mon_table_reset(struct mon_table *t)
{
	t->nrows = 0;
}

void mon_table_release(struct mon_table *t)
{
	free(t->names);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

uint64_t *mon_table_add(struct mon_table *t, const char *name, size_t n, size_t ncols)
{
	uint64_t *row;

	if (t->nrows == t->cap) {
		XGROW(t->names, t->nrows + 1, t->cap);
		XRESIZE(t->vals, t->cap * (ncols ? ncols : 1));
	}
	if (n >= MON_NAME)
		n = MON_NAME - 1;
	memcpy(t->names[t->nrows], name, n);
	memset(t->names[t->nrows] + n, 0, MON_NAME - n);
	row = t->vals + t->nrows * ncols;
	memset(row, 0, ncols * sizeof(*row));
	t->nrows++;
	return row;
}

long mon_table_find(const struct mon_table *t, const char *name)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->names[i], name))
			return (long)i;
	return -1;
}

void mon_table_copy(struct mon_table *dst, const struct mon_table *src, size_t ncols)
{
	if (dst->cap < src->nrows) {
		dst->cap = src->nrows;
		dst->names = xrealloc(dst->names, dst->cap * sizeof(*dst->names));
		dst->vals =
			xrealloc(dst->vals, dst->cap * (ncols ? ncols : 1) * sizeof(*dst->vals));
	}
	dst->nrows = src->nrows;
	if (!src->nrows)
		return;
	memcpy(dst->names, src->names, src->nrows * sizeof(*src->names));
	memcpy(dst->vals, src->vals, src->nrows * ncols * sizeof(*src->vals));
}

int mon_col_index(enum mon_tab tab, const char *name)
{
	const struct mon_tabdef *d = &mon_tabdefs[tab];

	for (size_t i = 0; i < d->ncols; i++)
		if (!strcmp(d->cols[i].name, name))
			return (int)i;
	return -1;
}

uint64_t mon_num(const char **p)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	*p = s;
	return v;
}

void mon_sample_reset(struct mon_sample *s)
{
	s->present = 0;
	for (int i = 0; i < MT_COUNT; i++)
		mon_table_reset(&s->tab[i]);
	for (size_t i = 0; i < s->nmod; i++)
		free(s->mod[i].line);
	s->nmod = 0;
}

void mon_sample_release(struct mon_sample *s)
{
	mon_sample_reset(s);
	for (int i = 0; i < MT_COUNT; i++)
		mon_table_release(&s->tab[i]);
	free(s->mod);
	memset(s, 0, sizeof(*s));
}

void mon_sample_add_modrec(struct mon_sample *s, unsigned module, const char *line, size_t n)
{
	XGROW(s->mod, s->nmod + 1, s->capmod);
	s->mod[s->nmod].module = module;
	s->mod[s->nmod].line = xstrndup(line, n);
	s->nmod++;
}

void mon_sample_copy(struct mon_sample *dst, const struct mon_sample *src)
{
	mon_sample_reset(dst);
	dst->t = src->t;
	dst->present = src->present;
	for (int i = 0; i < MT_COUNT; i++)
		mon_table_copy(&dst->tab[i], &src->tab[i], mon_tabdefs[i].ncols);
	for (size_t i = 0; i < src->nmod; i++)
		mon_sample_add_modrec(dst, src->mod[i].module, src->mod[i].line,
				      strlen(src->mod[i].line));
}
