/*
 * A view's options by name (views.h: view_args_set), as the front ends
 * without an option table of their own pass them: the library's API, the
 * web server's query strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "util/error.h"
#include "view/views.h"

static int whole(const char *key, const char *value, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(value, &end, 10);
	if (errno || end == value || *end || *out < 0)
		return err_set(ERR_INVALID, "view option %s: a whole number >= 0, not '%s'", key,
			       value);
	return 0;
}

static int boolean(const char *key, const char *value, bool *out)
{
	if (!value || strcmp(value, "true") == 0 || strcmp(value, "1") == 0 ||
	    strcmp(value, "yes") == 0)
		*out = true;
	else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0 || strcmp(value, "no") == 0)
		*out = false;
	else
		return err_set(ERR_INVALID, "view option %s: true or false, not '%s'", key, value);
	return 0;
}

/* The figures' options that a memory profile's flow fills in when unset. */
static int figure_option(struct view_args *a, const char *key, const char *value)
{
	struct view_opts *vo = &a->vo;

	if (strcmp(key, "of") == 0)
		vo->of = value, a->given |= VIEW_GIVEN_OF;
	else if (strcmp(key, "per") == 0)
		vo->per = value, a->given |= VIEW_GIVEN_PER;
	else if (strcmp(key, "by") == 0)
		vo->by = value, a->given |= VIEW_GIVEN_BY;
	else if (strcmp(key, "aggregation") == 0) {
		a->given |= VIEW_GIVEN_AGG;
		return view_parse_agg(value, &vo->agg);
	} else if (strcmp(key, "stacked") == 0) {
		a->given |= VIEW_GIVEN_STACKING;
		return boolean(key, value, &vo->stacked);
	} else if (strcmp(key, "accumulate") == 0) {
		a->given |= VIEW_GIVEN_ACC;
		return boolean(key, value, &vo->accumulate);
	} else {
		return 1;
	}
	return 0;
}

/* tableof's columns, KEY=VALUE filters, sorting. */
static int table_option(struct view_args *a, const char *key, const char *value)
{
	struct view_opts *vo = &a->vo;
	const char *eq;

	if (strcmp(key, "headers") == 0) {
		if (vo->nheaders == VIEW_MAX_HEADERS)
			return err_set(ERR_INVALID, "at most %d headers", VIEW_MAX_HEADERS);
		vo->headers[vo->nheaders++] = value;
	} else if (strcmp(key, "filter-by") == 0) {
		if (!(eq = strchr(value, '=')) || vo->nfilters == VIEW_MAX_FILTERS)
			return err_set(ERR_INVALID, "view option filter-by: %s",
				       eq ? "too many" : "KEY=VALUE");
		/* The key is kept in the view_args' own room: @value may be
		 * a caller's string that is not ours to cut. */
		snprintf(a->filter_keys[vo->nfilters], sizeof(a->filter_keys[0]), "%.*s",
			 (int)(eq - value), value);
		vo->filters[vo->nfilters].key = a->filter_keys[vo->nfilters];
		vo->filters[vo->nfilters++].value = eq + 1;
	} else if (strcmp(key, "sort-by") == 0) {
		vo->sort_by = value;
	} else if (strcmp(key, "descending") == 0) {
		return boolean(key, value, &vo->sort_desc);
	} else if (strcmp(key, "subject") == 0) {
		if (strcmp(value, "models") != 0 && strcmp(value, "resources") != 0)
			return err_set(ERR_INVALID, "view option subject: resources or models");
		vo->kind = value[0] == 'm' ? VIEW_TABLE_MODELS : VIEW_TABLE_RES;
	} else if (strcmp(key, "format") == 0) {
		a->json = strcmp(value, "json") == 0;
		return strcmp(value, "text") == 0 || a->json
			       ? 0
			       : view_parse_table_fmt(value, &vo->tfmt);
	} else {
		return 1;
	}
	return 0;
}

int view_args_set(struct view_args *a, const char *key, const char *value)
{
	long long n;
	int ret;

	if (!value)
		return err_set(ERR_INVALID, "view option %s needs a value", key);
	if ((ret = figure_option(a, key, value)) <= 0 || (ret = table_option(a, key, value)) <= 0)
		return ret;
	if (strcmp(key, "title") == 0)
		a->vo.title = value;
	else if (strcmp(key, "verbose") == 0)
		return boolean(key, value, &a->verbose);
	else if (strcmp(key, "compact") == 0)
		return boolean(key, value, &a->compact);
	else if (strcmp(key, "limit") == 0 || strcmp(key, "snapshot") == 0 ||
		 strcmp(key, "rows") == 0 || strcmp(key, "width") == 0) {
		if ((ret = whole(key, value, &n)) < 0)
			return ret;
		if (key[0] == 'l')
			a->limit = a->vo.limit = (size_t)n;
		else if (key[0] == 's')
			a->snapshot = n;
		else if (key[0] == 'r')
			a->rows = n > 100000 ? 100000 : (int)n;
		else
			a->vo.width = n < 20 ? 20 : n > 10000 ? 10000 : (int)n;
	} else
		return err_set(ERR_INVALID, "unknown view option '%s'", key);
	return 0;
}
