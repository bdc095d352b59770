/* The starter script of `veles script -g python` (pygen.h). */
#include <stdlib.h>
#include <string.h>

#include "perf/pygen.h"
#include "util/common.h"

static const char *const py_keywords[] = {
	"False", "None",     "True",  "and",	"as",	"assert", "async",  "await",	"break",
	"class", "continue", "def",   "del",	"elif", "else",	  "except", "finally",	"for",
	"from",	 "global",   "if",    "import", "in",	"is",	  "lambda", "nonlocal", "not",
	"or",	 "pass",     "raise", "return", "try",	"while",  "with",   "yield",
};

/* The handler's own parameters and the functions its body calls: a field
 * by one of these names would clash with them. */
static const char *const taken_names[] = {
	"event_name", "context",     "common_cpu", "common_secs",  "common_nsecs",
	"common_pid", "common_comm", "print",	   "print_header",
};

bool pygen_is_identifier(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (const char *p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	for (size_t i = 0; i < ARRAY_SIZE(py_keywords); i++)
		if (strcmp(s, py_keywords[i]) == 0)
			return false;
	return true;
}

void pygen_add_str(struct buf *b, const char *s, bool percent)
{
	buf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '"')
			buf_addf(b, "\\%c", *p);
		else if (*p == '%' && percent)
			buf_adds(b, "%%");
		else if (*p >= 0x20 && *p < 0x7f)
			buf_addc(b, (char)*p);
		else
			buf_addf(b, "\\x%02x", *p);
	}
	buf_addc(b, '"');
}

/* The string @s as Python sees it: a str literal, or for bytes beyond
 * ASCII the UTF-8 they spell (as the handler's name is looked up). */
static void add_key(struct buf *b, const char *s)
{
	bool ascii = true;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		ascii = ascii && *p < 0x80;
	if (ascii) {
		pygen_add_str(b, s, false);
		return;
	}
	buf_addc(b, 'b');
	pygen_add_str(b, s, false);
	buf_adds(b, ".decode(\"utf-8\", \"surrogateescape\")");
}

/* The field names of a format file, the common_* ones left out. */
static size_t format_fields(const char *text, char ***out)
{
	char **v = NULL;
	size_t n = 0;

	for (const char *p = strstr(text, "field:"); p; p = strstr(p + 1, "field:")) {
		const char *semi = strchr(p, ';'), *end, *start;

		if (!semi)
			break;
		end = memchr(p, '[', (size_t)(semi - p));
		end = end ? end : semi;
		while (end > p && end[-1] == ' ')
			end--;
		start = end;
		while (start > p + 6 && start[-1] != ' ' && start[-1] != '*')
			start--;
		if (end > start && strncmp(start, "common_", 7) != 0) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = xstrndup(start, (size_t)(end - start));
		}
	}
	*out = v;
	return n;
}

static char *format_name(const char *text)
{
	const char *p = strncmp(text, "name: ", 6) == 0 ? text : strstr(text, "\nname: ");

	if (!p)
		return xstrdup("unknown");
	p += p[0] == '\n' ? 7 : 6;
	return xstrndup(p, strcspn(p, "\n"));
}

static bool name_taken(char *const *params, size_t n, const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(taken_names); i++)
		if (strcmp(s, taken_names[i]) == 0)
			return true;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, params[i]) == 0)
			return true;
	return false;
}

/* The parameter name of each field: its own when that is a free
 * identifier, else field_N (N its place, from 1), with '_' added while
 * that is taken. Positional, so the handler is called the same way. */
static char **param_names(char *const *fields, size_t n)
{
	char **params = xcalloc(n + 1, sizeof(*params));

	for (size_t i = 0; i < n; i++) {
		struct buf b = BUF_INIT;

		if (pygen_is_identifier(fields[i]) && !name_taken(params, i, fields[i])) {
			params[i] = xstrdup(fields[i]);
			continue;
		}
		buf_addf(&b, "field_%zu", i + 1);
		while (name_taken(params, i, buf_str(&b)) || name_taken(fields, n, buf_str(&b)))
			buf_addc(&b, '_');
		params[i] = buf_detach(&b, NULL);
	}
	return params;
}

static void gen_body(struct buf *b, char *const *fields, char *const *params, size_t n)
{
	buf_adds(b, "):\n    print_header(event_name, common_cpu, common_secs, common_nsecs,\n"
		    "                 common_pid, common_comm)\n    print(");
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_adds(b, " + \", \" +\n          ");
		/* "NAME" "=%s": the name's own '%' doubled, the format's not. */
		pygen_add_str(b, fields[i], true);
		buf_addf(b, " \"=%%s\" %% (%s,)", params[i]);
	}
	buf_adds(b, ")\n");
}

static void gen_handler(struct buf *b, const struct tp_format *f, size_t index)
{
	char **fields, **params, *name = format_name(f->text);
	size_t n = format_fields(f->text, &fields);
	struct buf key = BUF_INIT;
	bool plain;

	buf_addf(&key, "%s__%s", f->system, name);
	plain = pygen_is_identifier(buf_str(&key));
	params = param_names(fields, n);
	if (plain)
		buf_addf(b, "\n\ndef %s(", buf_str(&key));
	else
		buf_addf(b,
			 "\n\n# This tracepoint's name is no Python name: its handler is\n"
			 "# registered below under the name veles script looks up.\n"
			 "def tracepoint_%zu(",
			 index + 1);
	buf_adds(b, "event_name, context, common_cpu,\n"
		    "        common_secs, common_nsecs, common_pid, common_comm");
	for (size_t i = 0; i < n; i++)
		buf_addf(b, ",%s%s", i % 6 == 0 ? "\n        " : " ", params[i]);
	gen_body(b, fields, params, n);
	if (!plain) {
		buf_adds(b, "\n\nglobals()[");
		add_key(b, buf_str(&key));
		buf_addf(b, "] = tracepoint_%zu\n", index + 1);
	}
	for (size_t i = 0; i < n; i++) {
		free(fields[i]);
		free(params[i]);
	}
	free(fields);
	free(params);
	free(name);
	buf_release(&key);
}

static const char gen_head[] =
	"# Handlers for `veles script -s`, generated by `veles script -g python`.\n"
	"# Each handler gets the common arguments, then every field of its\n"
	"# tracepoint's format; common_pc(context), common_flags(context) and\n"
	"# common_lock_depth(context) give the remaining common fields.\n"
	"# See docs/cli/script.md for the modules Core and Util.\n"
	"\n"
	"from perf_trace_context import *\n"
	"from Core import *\n"
	"\n"
	"\n"
	"def trace_begin():\n"
	"    print(\"in trace_begin\")\n"
	"\n"
	"\n"
	"def trace_end():\n"
	"    print(\"in trace_end\")\n";

static const char gen_tail[] =
	"\n\ndef trace_unhandled(event_name, context, common_cpu, common_secs, common_nsecs,\n"
	"        common_pid, common_comm):\n"
	"    print_header(event_name, common_cpu, common_secs, common_nsecs,\n"
	"                 common_pid, common_comm)\n"
	"    print()\n"
	"\n\ndef print_header(event_name, cpu, secs, nsecs, pid, comm):\n"
	"    print(\"%-20s %5u %05u.%09u %8u %-20s \" %\n"
	"          (event_name, cpu, secs, nsecs, pid, comm), end=\"\")\n";

void pygen_script(const struct tp_format *formats, size_t n, struct buf *out)
{
	buf_adds(out, gen_head);
	for (size_t i = 0; i < n; i++)
		gen_handler(out, &formats[i], i);
	buf_adds(out, gen_tail);
}
