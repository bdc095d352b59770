/*
 * A recording of `veles monitor -f FILE` read as a profile: it is played
 * back with the summary values of each interval collected (as --profile
 * collects them live), and the recording's header says where and how it
 * was made. `veles show FILE` shows it with any of its views.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/monitor/monitor.h"
#include "monitor/record.h"
#include "monitor/run.h"
#include "monitor/view.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"

/* The summary letters of the recorded ones: a detail letter (D, per disk)
 * gives its summary (d), once. */
static void summary_letters(const char *recorded, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = recorded; *p && n + 1 < cap; p++) {
		const struct mon_view *v = mon_view_find(*p);
		char c = *p;

		if (v && v->detail)
			c = (char)tolower((unsigned char)c);
		v = mon_view_find(c);
		if (v && !v->detail && !memchr(out, c, n))
			out[n++] = c;
	}
	out[n] = '\0';
}

/* "key":"value" from the recording's header, into the params object. */
static void add_param(struct buf *b, const char *header, const char *key)
{
	char *v = mon_header_dup(header, key);

	if (!v)
		return;
	buf_addf(b, ",\"%s\":", key);
	buf_add_json_str(b, v, strlen(v));
	free(v);
}

struct recorded {
	char letters[32];
	double interval;
	char host[128];
	char *modules; /* the recording's --import, "" for none */
	char *params;
};

static int read_header(const char *path, struct recorded *r)
{
	struct mon_player pl;
	struct buf b = BUF_INIT;
	char v[64];
	int rc = mon_player_open(&pl, path);

	if (rc < 0)
		return rc;
	if (!mon_header_get(pl.header, "subsystems", v, sizeof(v)) || !v[0])
		snprintf(v, sizeof(v), "cdn");
	summary_letters(v, r->letters, sizeof(r->letters));
	r->interval = mon_header_get(pl.header, "interval", v, sizeof(v)) ? atof(v) : 0;
	if (!mon_header_get(pl.header, "host", r->host, sizeof(r->host)))
		snprintf(r->host, sizeof(r->host), "unknown");
	buf_addf(&b, "{\"subsystems\":\"%s\",\"interval\":%g", r->letters, r->interval);
	add_param(&b, pl.header, "host");
	add_param(&b, pl.header, "kernel");
	add_param(&b, pl.header, "machine");
	add_param(&b, pl.header, "cpus");
	r->modules = mon_header_dup(pl.header, "modules");
	if (!r->modules)
		r->modules = xstrdup("");
	if (r->modules[0])
		add_param(&b, pl.header, "modules");
	buf_addc(&b, '}');
	r->params = buf_detach(&b, NULL);
	mon_player_close(&pl);
	return 0;
}

/* The recording's --import with each module's file reduced to its name:
 * a recording is data, and must not name code to run, so its modules are
 * looked up in the module directories only (docs/monitor-modules.md). */
static char *module_names(const char *spec)
{
	struct buf b = BUF_INIT;

	for (const char *p = spec; *p;) {
		size_t n = strcspn(p, ":"), fn = strcspn(p, ",:");
		const char *name = p;

		for (const char *q = p; q < p + fn; q++)
			if (*q == '/')
				name = q + 1;
		if (b.len)
			buf_addc(&b, ':');
		buf_add(&b, name, (size_t)(p + n - name));
		p += n + (p[n] == ':');
	}
	return buf_detach(&b, NULL);
}

/* Plays @path back, its summary values into @values ("SECONDS name value"
 * lines, as --profile collects them). The modules it was recorded with are
 * loaded again by name, as --profile loads them, so their values join;
 * one that cannot be loaded here only loses its own values. */
struct teller {
	void (*message)(void *arg, enum collect_msg kind, const char *text);
	void *arg;
};

/* The playback's notes (a damaged recording, a module not found here). */
static void tell(void *arg, const char *line)
{
	const struct teller *t = arg;

	if (t->message)
		t->message(t->arg, COLLECT_MSG_ERR, line);
}

static int play_values(const char *path, const struct recorded *r, struct teller *t,
		       struct buf *values)
{
	char *names = module_names(r->modules);
	int rc;
	struct mon_run_opts o = {.letters = r->letters,
				 .imports = names[0] ? names : NULL,
				 .imports_optional = true,
				 .count = -1,
				 .sep = ' ',
				 .playback = path,
				 .values = values,
				 .quiet = true,
				 .say = tell,
				 .say_arg = t};

	rc = mon_run(&o);
	free(names);
	return rc;
}

int monitor_recording_profile(const char *path,
			      void (*message)(void *arg, enum collect_msg kind, const char *text),
			      void *message_arg, struct profile **out)
{
	struct teller t = {message, message_arg};
	struct recorded r = {0};
	struct buf values = BUF_INIT;
	struct profile *p;
	double last = 0;
	int rc = read_header(path, &r);

	if (rc >= 0 && !r.letters[0])
		rc = err_set(ERR_INVALID, "%s: no summary subsystem was recorded", path);
	if (rc >= 0)
		rc = play_values(path, &r, &t, &values);
	if (rc < 0) {
		free(r.params);
		free(r.modules);
		buf_release(&values);
		return rc;
	}
	p = monitor_profile_new(r.params);
	monitor_profile_fill(p, buf_str(&values), &last);
	p->has_timestamp = true;
	p->timestamp = last;
	p->cmd = xstrdup("veles monitor");
	p->args = xasprintf("-s %s -i %g%s%s -f %s", r.letters, r.interval,
			    r.modules[0] ? " --import " : "", r.modules, path);
	p->workload = xstrdup(r.host);
	p->collector = xstrdup("monitor");
	free(r.modules);
	buf_release(&values);
	*out = p;
	return 0;
}
