/* veles log's list of versions (log_view.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "project/version_index.h"
#include "store/store.h"
#include "util/buf.h"
#include "vcs/vcs.h"
#include "view/log_view.h"

/* "3 profiles: 2 time, 1 memory"; entries come sorted by type. */
static void describe(struct buf *b, const struct version_slot *s)
{
	size_t i, run = 0;

	if (!s) {
		buf_adds(b, "no profiles");
		return;
	}
	buf_addf(b, "%zu profile%s: ", s->n, s->n == 1 ? "" : "s");
	for (i = 0; i < s->n; i++) {
		run++;
		if (i + 1 == s->n || strcmp(s->e[i].type, s->e[i + 1].type) != 0) {
			buf_addf(b, "%s%zu %s", b->data[b->len - 1] == ' ' ? "" : ", ", run,
				 s->e[i].type);
			run = 0;
		}
	}
}

static void version_label(struct buf *b, const struct vcs_version *v, bool plain, bool full)
{
	if (plain)
		buf_addf(b, "v%u (%.7s)", v->counter, v->id);
	else
		buf_addf(b, "%.*s", full ? 40 : 7, v->id);
}

static void version_text(struct buf *b, const struct log_view *st, const struct vcs_version *v,
			 const struct version_slot *s)
{
	char date[64];
	time_t t = (time_t)(v->time + v->tz_offset * 60);
	struct tm tm;
	const char *p;

	if (st->oneline) {
		version_label(b, v, st->plain, false);
		buf_adds(b, " [");
		describe(b, s);
		buf_addf(b, "] %s\n", v->summary);
		return;
	}
	buf_adds(b, "version ");
	version_label(b, v, st->plain, true);
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	buf_addf(b, "\nAuthor:   %s <%s>\nDate:     %s %c%02d%02d\nProfiles: ", v->author, v->email,
		 date, v->tz_offset < 0 ? '-' : '+', abs(v->tz_offset) / 60,
		 abs(v->tz_offset) % 60);
	describe(b, s);
	buf_addc(b, '\n');
	/* Each profile by its id, which names it wherever N@i does and, unlike
	 * N@i, stays the same when profiles are added. */
	for (size_t i = 0; s && i < s->n; i++) {
		buf_addf(b, "  %.8s  %zu@i  %-6s  %s\n", s->e[i].blob, i, s->e[i].type,
			 s->e[i].name);
	}
	buf_addc(b, '\n');
	for (p = v->message; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		buf_addf(b, "    %.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
	buf_addc(b, '\n');
}

static void add_json_field(struct buf *b, const char *key, const char *value)
{
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, value, strlen(value));
}

static void version_json(struct buf *b, const struct log_view *st, const struct vcs_version *v,
			 const struct version_slot *s)
{
	size_t i;

	buf_adds(b, st->shown ? ",\n" : "[\n");
	buf_addf(b, "{\"id\":\"%s\"", v->id);
	if (st->plain)
		buf_addf(b, ",\"number\":%u", v->counter);
	add_json_field(b, "author", v->author);
	add_json_field(b, "email", v->email);
	buf_addf(b, ",\"time\":%lld", (long long)v->time);
	add_json_field(b, "summary", v->summary);
	buf_adds(b, ",\"parents\":[");
	for (i = 0; i < v->nparents; i++)
		buf_addf(b, "%s\"%s\"", i ? "," : "", v->parents[i]);
	buf_adds(b, "],\"profiles\":[");
	for (i = 0; s && i < s->n; i++) {
		buf_addf(b, "%s{\"index\":\"%zu@i\"", i ? "," : "", i);
		add_json_field(b, "type", s->e[i].type);
		add_json_field(b, "name", s->e[i].name);
		buf_addf(b, ",\"id\":\"%s\"}", s->e[i].blob);
	}
	buf_adds(b, "]}");
}

void log_view_version(struct buf *out, struct log_view *lv, const struct vcs_version *v,
		      const struct version_slot *s)
{
	if (lv->json)
		version_json(out, lv, v, s);
	else
		version_text(out, lv, v, s);
	lv->shown++;
}

void log_view_end(struct buf *out, const struct log_view *lv)
{
	if (lv->json)
		buf_adds(out, lv->shown ? "\n]\n" : "[]\n");
}
