/*
 * `veles config set`: edits config.yml as text so comments and layout
 * survive (an emitter would drop them). Handles the block-mapping style
 * Veles writes: "key: value" lines nested by indentation.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/fsutil.h"

struct line {
	const char *start;
	size_t len;
	size_t indent;
	bool blank; /* empty or comment only */
};

static size_t split_lines(const char *text, size_t len, struct line **out)
{
	struct line *lines = NULL;
	size_t n = 0, cap = 0;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t ind = 0;

		while (ind < l && p[ind] == ' ')
			ind++;
		lines = xgrow(lines, sizeof(*lines), n + 1, &cap);
		lines[n].start = p;
		lines[n].len = l;
		lines[n].indent = ind;
		lines[n].blank = ind == l || p[ind] == '#';
		n++;
		p += l + (nl ? 1 : 0);
	}
	*out = lines;
	return n;
}

/* True when line @l is "KEY:" followed by a space, end of line or comment. */
static bool line_has_key(const struct line *l, const char *key, size_t klen)
{
	const char *s = l->start + l->indent;
	size_t rest = l->len - l->indent;

	if (l->blank || rest < klen + 1 || memcmp(s, key, klen) != 0 || s[klen] != ':')
		return false;
	return rest == klen + 1 || s[klen + 1] == ' ' || s[klen + 1] == '\t';
}

static bool needs_quotes(const char *v)
{
	if (!*v || strchr(":#{}[],&*!|>'\"%@`", v[0]) || v[0] == '-' || v[0] == '?')
		return true;
	if (strstr(v, ": ") || strstr(v, " #") || strchr(v, '\n'))
		return true;
	return v[strlen(v) - 1] == ' ' || v[0] == ' ';
}

static void add_value(struct buf *b, const char *value)
{
	if (needs_quotes(value))
		buf_add_json_str(b, value, strlen(value));
	else
		buf_adds(b, value);
}

/*
 * Finds where @key goes: sets *at to the line index of the key's own line
 * (found) or of the line after which missing parts are inserted, and
 * *matched to the number of key parts found.
 */
static void locate(const struct line *lines, size_t n, char **parts, size_t nparts, size_t *at,
		   size_t *matched, size_t *end_of_block)
{
	size_t lo = 0, hi = n, depth = 0, indent = 0, i;

	*at = n;
	while (depth < nparts) {
		size_t klen = strlen(parts[depth]);
		size_t found = hi;

		for (i = lo; i < hi; i++)
			if (lines[i].indent == indent &&
			    line_has_key(&lines[i], parts[depth], klen)) {
				found = i;
				break;
			}
		if (found == hi)
			break;
		*at = found;
		depth++;
		/* The block of this key: following lines indented deeper. */
		lo = found + 1;
		for (i = lo; i < hi; i++)
			if (!lines[i].blank && lines[i].indent <= indent)
				break;
		hi = i;
		for (i = lo; i < hi; i++)
			if (!lines[i].blank) {
				indent = lines[i].indent;
				break;
			}
		if (i == hi)
			indent += 2;
	}
	*matched = depth;
	*end_of_block = hi;
	/* Insert after the last non-blank line of the enclosing block. */
	while (*end_of_block > lo && *end_of_block > 0 && lines[*end_of_block - 1].blank &&
	       depth < nparts)
		(*end_of_block)--;
}

static int edit(const char *text, size_t len, char **parts, size_t nparts, const char *value,
		struct buf *out)
{
	struct line *lines;
	size_t n = split_lines(text, len, &lines);
	size_t at, matched, end, i, ind;

	locate(lines, n, parts, nparts, &at, &matched, &end);
	if (matched == nparts) {
		const struct line *l = &lines[at];
		const char *colon = memchr(l->start, ':', l->len);
		size_t next = at + 1;

		while (next < n && lines[next].blank)
			next++;
		if (next < n && lines[next].indent > l->indent) {
			free(lines);
			return err_set(ERR_INVALID,
				       "'%s' holds other keys; set one of them instead",
				       parts[nparts - 1]);
		}
		for (i = 0; i < at; i++)
			buf_add(out, lines[i].start, lines[i].len), buf_addc(out, '\n');
		buf_add(out, l->start, (size_t)(colon - l->start) + 1);
		buf_addc(out, ' ');
		add_value(out, value);
		buf_addc(out, '\n');
		for (i = at + 1; i < n; i++)
			buf_add(out, lines[i].start, lines[i].len), buf_addc(out, '\n');
		free(lines);
		return 0;
	}
	if (matched > 0) {
		const struct line *l = &lines[at];
		const char *colon = memchr(l->start, ':', l->len);
		const char *after = colon + 1;
		size_t rest = l->len - (size_t)(after - l->start);

		while (rest && (*after == ' ' || *after == '\t'))
			after++, rest--;
		if (rest && *after != '#') {
			free(lines);
			return err_set(ERR_INVALID, "'%s' is a value, not a section",
				       parts[matched - 1]);
		}
	}
	if (matched == 0)
		end = n;
	for (i = 0; i < end; i++)
		buf_add(out, lines[i].start, lines[i].len), buf_addc(out, '\n');
	ind = matched ? lines[at].indent + 2 : 0;
	if (matched && at + 1 < end) {
		for (i = at + 1; i < end; i++)
			if (!lines[i].blank) {
				ind = lines[i].indent;
				break;
			}
	}
	for (i = matched; i < nparts; i++, ind += 2) {
		size_t k;

		for (k = 0; k < ind; k++)
			buf_addc(out, ' ');
		buf_adds(out, parts[i]);
		buf_addc(out, ':');
		if (i + 1 == nparts) {
			buf_addc(out, ' ');
			add_value(out, value);
		}
		buf_addc(out, '\n');
	}
	for (i = end; i < n; i++)
		buf_add(out, lines[i].start, lines[i].len), buf_addc(out, '\n');
	free(lines);
	return 0;
}

static bool valid_key(const char *key)
{
	const char *p;

	if (!*key || key[0] == '.' || key[strlen(key) - 1] == '.' || strstr(key, ".."))
		return false;
	for (p = key; *p; p++)
		if (!(*p == '.' || *p == '_' || *p == '-' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

int config_set_file(const char *path, const char *key, const char *value)
{
	struct buf text = BUF_INIT, out = BUF_INIT;
	char *copy, *parts[32], *save = NULL, *tok;
	size_t nparts = 0;
	int ret;

	if (!valid_key(key))
		return err_set(ERR_INVALID,
			       "invalid key '%s': use dotted names like collect.warn_dirty", key);
	ret = file_read_all(path, &text);
	if (ret < 0 && ret != ERR_NOTFOUND)
		return ret;
	copy = xstrdup(key);
	for (tok = strtok_r(copy, ".", &save); tok && nparts < ARRAY_SIZE(parts);
	     tok = strtok_r(NULL, ".", &save))
		parts[nparts++] = tok;
	ret = edit(buf_str(&text), text.len, parts, nparts, value, &out);
	if (ret == 0)
		ret = config_parse_check(path, buf_str(&out), out.len);
	if (ret == 0) {
		char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');

		if (slash) {
			*slash = '\0';
			ret = mkdir_p(dir);
		}
		free(dir);
	}
	if (ret == 0)
		ret = file_write_atomic(path, out.data, out.len);
	free(copy);
	buf_release(&text);
	buf_release(&out);
	return ret;
}
