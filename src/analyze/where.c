/*
 * Conditions on a profile's resources: KEY OP VALUE, OP one of = != < <=
 * > >= ~ !~ (docs/postprocess/filter.md). The filter postprocessor keeps
 * the resources that match; queries select them.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/where.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"

static bool parse_num(const char *s, double *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !*end && !errno && !isnan(*out);
}

/* The operator at @s and its length; 0 for none. */
static size_t op_at(const char *s, enum op *op)
{
	static const struct {
		const char *text;
		enum op op;
	} ops[] = {{"!=", OP_NE}, {"!~", OP_NOMATCH}, {"<=", OP_LE}, {">=", OP_GE},
		   {"=", OP_EQ},  {"<", OP_LT},	      {">", OP_GT},  {"~", OP_MATCH}};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = strlen(ops[i].text);

		if (strncmp(s, ops[i].text, len) == 0) {
			*op = ops[i].op;
			return len;
		}
	}
	return 0;
}

int where_parse(const char *text, const char *what, struct where *c)
{
	size_t k = strcspn(text, "=!<>~"), len;

	memset(c, 0, sizeof(*c));
	len = text[k] ? op_at(text + k, &c->op) : 0;
	if (k == 0 || len == 0)
		return err_set(ERR_INVALID,
			       "%s '%s' is not KEY OP VALUE (OP one of = != < <= > >= ~ !~)", what,
			       text);
	c->text = xstrdup(text);
	c->key = xstrndup(text, k);
	c->value = xstrdup(text + k + len);
	c->value_is_num = parse_num(c->value, &c->num);
	if (c->op == OP_MATCH || c->op == OP_NOMATCH) {
		int rc = regcomp(&c->re, c->value, REG_EXTENDED | REG_NOSUB);
		char msg[128];

		if (rc) {
			regerror(rc, &c->re, msg, sizeof(msg));
			c->op = OP_EQ; /* nothing compiled to free */
			return err_set(ERR_INVALID, "%s '%s': %s", what, text, msg);
		}
	}
	return 0;
}

void where_release(struct where *c)
{
	if (c->op == OP_MATCH || c->op == OP_NOMATCH)
		regfree(&c->re);
	free(c->text);
	free(c->key);
	free(c->value);
	memset(c, 0, sizeof(*c));
}

/* A resource's value of @key as text and, when it is one, as a number. */
static const char *row_value(const struct profile *p, size_t row, const char *key,
			     struct buf *scratch, double *num, bool *is_num)
{
	size_t at;
	const struct column *c;
	const char *s;

	*is_num = false;
	if (strcmp(key, "uid") == 0) {
		s = profile_uid(p, row, scratch);
		*is_num = parse_num(s, num);
		return s;
	}
	c = profile_attr(p, row, key, NULL, &at);
	if (!c)
		return NULL;
	if (c->kind == COL_I64 || c->kind == COL_F64) {
		*num = col_num(c, at);
		*is_num = true;
		buf_reset(scratch);
		buf_addf(scratch, "%.15g", *num);
		return buf_str(scratch);
	}
	s = col_text(p, c, at);
	if (s)
		*is_num = parse_num(s, num);
	return s;
}

bool where_holds(const struct where *c, const struct profile *p, size_t row, struct buf *scratch)
{
	double num;
	bool is_num;
	const char *s = row_value(p, row, c->key, scratch, &num, &is_num);
	int cmp;

	if (!s)
		return false;
	if (c->op == OP_MATCH || c->op == OP_NOMATCH)
		return (regexec(&c->re, s, 0, NULL, 0) == 0) == (c->op == OP_MATCH);
	if (is_num && c->value_is_num)
		cmp = (num > c->num) - (num < c->num);
	else
		cmp = strcmp(s, c->value);
	switch (c->op) {
	case OP_EQ:
		return cmp == 0;
	case OP_NE:
		return cmp != 0;
	case OP_LT:
		return cmp < 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GT:
		return cmp > 0;
	default:
		return cmp >= 0;
	}
}
