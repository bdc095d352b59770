/*
 * Declarative command options: one table per command says what each
 * option is, where its value goes and what it means, and the same table
 * parses argv and writes the --help text. Nothing is global (no optind,
 * no optarg), so library code can parse the options of a collector or a
 * postprocessor while a server thread parses another's.
 *
 * A table is built where it is used, so its value pointers point into the
 * caller's own structs:
 *
 *	struct opt opts[] = {
 *		OPT_LONG('r', "repeat", &st->repeat, "N", 1, "measured runs"),
 *		OPT_BOOL('q', "quiet", &quiet, "no summary"),
 *		OPT_END(),
 *	};
 */
#ifndef UTIL_OPTPARSE_H
#define UTIL_OPTPARSE_H

#include <stdbool.h>

struct buf;
struct opt;

enum opt_kind {
	OPT_KIND_END,
	OPT_KIND_GROUP,	   /* a heading or a paragraph in the help, after a blank line */
	OPT_KIND_INCLUDE,  /* the options of another table (include) */
	OPT_KIND_ALIAS,	   /* another spelling of the option named alias_of; not in the help */
	OPT_KIND_BOOL,	   /* sets *(bool *)value */
	OPT_KIND_STRING,   /* *(const char **)value = the argument (argv's string) */
	OPT_KIND_LONG,	   /* *(long *)value, a whole number >= min */
	OPT_KIND_DOUBLE,   /* *(double *)value, a finite number > min */
	OPT_KIND_CALLBACK, /* cb(ctx, opt, argument or NULL) */
	OPT_KIND_HELP,	   /* -h, --help listed in the help: opt_parse() returns OPT_HELP */
};

enum {
	OPT_NOARG = 1,	   /* a callback option that takes no argument */
	OPT_OPTARG = 2,	   /* the argument is optional: only as --name=VALUE */
	OPT_HIDDEN = 4,	   /* accepted, not listed in the help */
	OPT_ARG2 = 8,	   /* a callback option with two arguments ("--filter-by KEY VALUE"):
			    * the callback is called with each in turn */
	OPT_ONE_DASH = 16, /* an alias spelled with one dash: "-bn" (Perun's multi-letter shorts) */
};

/* Returns 0, or a negative error with err_set()'s one-line message. */
typedef int (*opt_cb)(void *ctx, const struct opt *o, const char *arg);

struct opt {
	enum opt_kind kind;
	int short_name;	       /* 0: none */
	const char *long_name; /* NULL: none */
	void *value;
	const char *argh; /* the argument's name in the help ("N") */
	const char *help; /* may hold '\n': continuation lines are aligned */
	long min; /* OPT_KIND_LONG: the least value; OPT_KIND_DOUBLE: values must exceed it */
	opt_cb cb;
	int flags;
	const struct opt *include; /* OPT_KIND_INCLUDE: the table */
	const char *alias_of;	   /* OPT_KIND_ALIAS: the long name of the option meant */
};

#define OPT_END()                                                                                  \
	{                                                                                          \
		.kind = OPT_KIND_END                                                               \
	}
#define OPT_GROUP(title)                                                                           \
	{                                                                                          \
		.kind = OPT_KIND_GROUP, .help = (title)                                            \
	}
#define OPT_HELP_LINE()                                                                            \
	{                                                                                          \
		.kind = OPT_KIND_HELP, .short_name = 'h', .long_name = "help", .help = "this help" \
	}
#define OPT_INCLUDE(table)                                                                         \
	{                                                                                          \
		.kind = OPT_KIND_INCLUDE, .include = (table)                                       \
	}
/*
 * Other spellings of an option, matched exactly (never as a prefix):
 * OPT_ALIAS("of-key", "of") reads --of-key as --of; OPT_DASH_ALIAS("bn",
 * "bucket-number") reads -bn, -bn=5 and -bn 5 as --bucket-number.
 */
#define OPT_ALIAS(name, target)                                                                    \
	{                                                                                          \
		.kind = OPT_KIND_ALIAS, .long_name = (name), .alias_of = (target)                  \
	}
#define OPT_DASH_ALIAS(name, target)                                                               \
	{                                                                                          \
		.kind = OPT_KIND_ALIAS, .long_name = (name), .alias_of = (target),                 \
		.flags = OPT_ONE_DASH                                                              \
	}
#define OPT_BOOL(s, l, v, h)                                                                       \
	{                                                                                          \
		.kind = OPT_KIND_BOOL, .short_name = (s), .long_name = (l), .value = (v),          \
		.help = (h)                                                                        \
	}
#define OPT_STRING(s, l, v, a, h)                                                                  \
	{                                                                                          \
		.kind = OPT_KIND_STRING, .short_name = (s), .long_name = (l), .value = (v),        \
		.argh = (a), .help = (h)                                                           \
	}
#define OPT_LONG(s, l, v, a, m, h)                                                                 \
	{                                                                                          \
		.kind = OPT_KIND_LONG, .short_name = (s), .long_name = (l), .value = (v),          \
		.argh = (a), .min = (m), .help = (h)                                               \
	}
#define OPT_DOUBLE(s, l, v, a, m, h)                                                               \
	{                                                                                          \
		.kind = OPT_KIND_DOUBLE, .short_name = (s), .long_name = (l), .value = (v),        \
		.argh = (a), .min = (m), .help = (h)                                               \
	}
#define OPT_CALLBACK(s, l, a, f, h)                                                                \
	{                                                                                          \
		.kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .argh = (a),       \
		.cb = (f), .help = (h)                                                             \
	}
#define OPT_FLAG_CALLBACK(s, l, f, h)                                                              \
	{                                                                                          \
		.kind = OPT_KIND_CALLBACK, .short_name = (s), .long_name = (l), .cb = (f),         \
		.help = (h), .flags = OPT_NOARG                                                    \
	}

enum {
	OPTP_STOP_AT_OPERAND = 1, /* the first operand ends the options (a command follows) */
	OPTP_NO_HELP = 2,	  /* -h and --help are not taken as a request for help */
	OPTP_KEEP_DASHDASH = 4,	  /* "--" stays in the operands */
	OPTP_UNDERSCORES = 8,	  /* '_' in a long option reads as '-' (Perun's --bucket_number) */
};

struct optparse {
	const char *name;  /* message prefix: "collect time" -> "collect time: unknown option" */
	const char *usage; /* "veles collect time [OPTIONS] -- COMMAND": one or more lines */
	const char *about; /* a paragraph after the usage, or NULL */
	const struct opt *opts;
	void *ctx; /* given to the callbacks */
	int flags;
};

enum { OPT_HELP = 1 };

/*
 * Parses argv[1..argc) against @p's table. Long options may be shortened
 * to a prefix no other option shares; -h and --help ask for the help
 * unless the table gives those names to options of its own. An option whose
 * long name an earlier one has already (a collector restating a common
 * option with its own help or a short name) is that earlier one, in the
 * parsing and in the help. Operands (and, with
 * OPTP_STOP_AT_OPERAND, everything from the first operand on) are moved,
 * in order, to argv[1..*@nop]; the other arguments follow them (argv is
 * permuted, no string lost), so argv[*@nop + 1] is not NULL unless all
 * were operands: take a copy for a NULL-terminated command line. Returns
 * 0, OPT_HELP when -h or --help
 * came (parsing stops there), or ERR_INVALID with a message such as
 * "collect time: unknown option '--x'".
 */
int opt_parse(const struct optparse *p, int argc, char **argv, int *nop);

/* The help: usage, about, then the options aligned in two columns. */
void opt_help(const struct optparse *p, struct buf *out);

#endif
