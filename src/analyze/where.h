/*
 * Conditions on a profile's resources such as 'amount>100',
 * 'subtype=malloc' or 'uid~^SLList_': KEY OP VALUE, OP one of = != < <=
 * > >= ~ !~ (~ matches a POSIX extended regular expression anywhere in
 * the value). Both sides compare as numbers when both are numbers, else
 * as text; a resource without KEY fails. 'uid' is the uid as `veles show`
 * prints it.
 */
#ifndef ANALYZE_WHERE_H
#define ANALYZE_WHERE_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct buf;
struct profile;

enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_MATCH, OP_NOMATCH };

struct where {
	char *text; /* as given, for the record */
	char *key;
	enum op op;
	char *value;
	bool value_is_num;
	double num;
	regex_t re; /* OP_MATCH, OP_NOMATCH */
};

/* Parses @text into @c; ERR_INVALID naming it as "@what 'TEXT' ...". */
int where_parse(const char *text, const char *what, struct where *c);
void where_release(struct where *c);
/* Whether resource @row of @p satisfies @c (@scratch: any buffer). */
bool where_holds(const struct where *c, const struct profile *p, size_t row, struct buf *scratch);

#endif
