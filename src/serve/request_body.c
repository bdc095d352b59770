/* The JSON bodies of requests (request_body.h), and those of POST
 * /api/runs and POST /api/sessions (request.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "serve/env.h"
#include "serve/request.h"
#include "serve/request_body.h"
#include "serve/util.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/xalloc.h"

enum { MAX_EVENTS = 64, MAX_EVENT_NAME = 256, MAX_COMMAND = 8192, MAX_TITLE = 500, MAX_DEPTH = 32 };

yajl_val body_parse(const char *body, size_t len)
{
	char *text = xstrndup(body ? body : "", len), msg[128];
	yajl_val v;

	if (memchr(body ? body : "", '\0', len)) {
		free(text);
		err_set(ERR_PARSE, "the body holds a NUL");
		return NULL;
	}
	v = yajl_tree_parse(text, msg, sizeof(msg));
	free(text);
	if (!v) {
		msg[strcspn(msg, "\n")] = '\0';
		err_set(ERR_PARSE, "the body is not JSON: %s", msg);
		return NULL;
	}
	if (!YAJL_IS_OBJECT(v)) {
		yajl_tree_free(v);
		err_set(ERR_PARSE, "the body must be a JSON object");
		return NULL;
	}
	return v;
}

yajl_val body_member(yajl_val obj, const char *name)
{
	for (size_t i = 0; i < obj->u.object.len; i++)
		if (strcmp(obj->u.object.keys[i], name) == 0)
			return obj->u.object.values[i];
	return NULL;
}

int body_string(yajl_val obj, const char *name, size_t max, char **out)
{
	yajl_val v = body_member(obj, name);

	*out = NULL;
	if (!v || YAJL_IS_NULL(v))
		return 0;
	if (!YAJL_IS_STRING(v))
		return err_set(ERR_PARSE, "%s must be a string", name);
	if (strlen(v->u.string) > max)
		return err_set(ERR_PARSE, "%s is longer than %zu bytes", name, max);
	*out = xstrdup(v->u.string);
	return 0;
}

int body_number(yajl_val obj, const char *name, double *out)
{
	yajl_val v = body_member(obj, name);

	if (!v || YAJL_IS_NULL(v) || (YAJL_IS_STRING(v) && !*v->u.string))
		return 0; /* absent, or an empty field of a form */
	if (YAJL_IS_STRING(v)) {
		char *end;
		double d = strtod(v->u.string, &end);

		if (*end || end == v->u.string)
			return err_set(ERR_PARSE, "%s must be a number", name);
		*out = d;
	} else if (YAJL_IS_NUMBER(v)) {
		*out = YAJL_GET_DOUBLE(v);
	} else {
		return err_set(ERR_PARSE, "%s must be a number", name);
	}
	return 1;
}

/* A string member no longer than @max (absent or null: @def). */
static int get_string(yajl_val obj, const char *name, size_t max, const char *def, char **out)
{
	int ret = body_string(obj, name, max, out);

	if (ret == 0 && !*out && def)
		*out = xstrdup(def);
	return ret;
}

static int get_bool(yajl_val obj, const char *name, bool def, bool *out)
{
	yajl_val v = body_member(obj, name);

	*out = def;
	if (!v || YAJL_IS_NULL(v))
		return 0;
	if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
		return err_set(ERR_PARSE, "%s must be true or false", name);
	*out = YAJL_IS_TRUE(v);
	return 0;
}

static int get_int(yajl_val obj, const char *name, long long lo, long long hi, long long def,
		   long long *out)
{
	double d;
	int ret = body_number(obj, name, &d);

	*out = def;
	if (ret <= 0)
		return ret;
	if (!isfinite(d) || d != floor(d) || d < (double)lo || d > (double)hi)
		return err_set(ERR_PARSE, "%s must be a whole number from %lld to %lld", name, lo,
			       hi);
	*out = (long long)d;
	return 0;
}

static bool event_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > MAX_EVENT_NAME)
		return false;
	for (const char *c = s; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == ',' || (unsigned char)*c == 0x7f)
			return false;
	return true;
}

/* events: a list of names, or one comma-separated string. */
static int get_events(yajl_val obj, char **out)
{
	yajl_val v = body_member(obj, "events");
	struct buf b = BUF_INIT;
	size_t n = 0;

	*out = NULL;
	if (v && YAJL_IS_STRING(v)) {
		char *list = xstrdup(v->u.string), *save = NULL;
		int ret = 0;

		for (char *e = strtok_r(list, ", ", &save); e; e = strtok_r(NULL, ", ", &save)) {
			if (!event_name_ok(e) || ++n > MAX_EVENTS) {
				ret = err_set(ERR_PARSE, "bad event name or too many events");
				break;
			}
			buf_addf(&b, "%s%s", b.len ? "," : "", e);
		}
		free(list);
		if (ret < 0) {
			buf_release(&b);
			return ret;
		}
	} else if (v && YAJL_IS_ARRAY(v)) {
		if (v->u.array.len > MAX_EVENTS)
			return err_set(ERR_PARSE, "at most %d events", MAX_EVENTS);
		for (size_t i = 0; i < v->u.array.len; i++) {
			yajl_val e = v->u.array.values[i];

			if (!YAJL_IS_STRING(e) || !event_name_ok(e->u.string)) {
				buf_release(&b);
				return err_set(ERR_PARSE, "events must be event names");
			}
			buf_addf(&b, "%s%s", b.len ? "," : "", e->u.string);
		}
	} else if (v && !YAJL_IS_NULL(v)) {
		return err_set(ERR_PARSE, "events must be a list of names");
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

/* A JSON value written back as text (the saved screen state). */
static int emit(yajl_val v, struct buf *b, int depth)
{
	if (depth > MAX_DEPTH)
		return err_set(ERR_PARSE, "screen is nested too deeply");
	if (YAJL_IS_STRING(v)) {
		buf_add_json_str(b, v->u.string, strlen(v->u.string));
	} else if (YAJL_IS_NUMBER(v)) {
		double d = YAJL_GET_DOUBLE(v);

		if (YAJL_IS_INTEGER(v))
			buf_addf(b, "%lld", YAJL_GET_INTEGER(v));
		else
			buf_addf(b, "%.17g", isfinite(d) ? d : 0);
	} else if (YAJL_IS_OBJECT(v)) {
		buf_addc(b, '{');
		for (size_t i = 0; i < v->u.object.len; i++) {
			if (i)
				buf_addc(b, ',');
			buf_add_json_str(b, v->u.object.keys[i], strlen(v->u.object.keys[i]));
			buf_addc(b, ':');
			if (emit(v->u.object.values[i], b, depth + 1) < 0)
				return ERR_PARSE;
		}
		buf_addc(b, '}');
	} else if (YAJL_IS_ARRAY(v)) {
		buf_addc(b, '[');
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				buf_addc(b, ',');
			if (emit(v->u.array.values[i], b, depth + 1) < 0)
				return ERR_PARSE;
		}
		buf_addc(b, ']');
	} else {
		buf_adds(b, YAJL_IS_TRUE(v) ? "true" : YAJL_IS_FALSE(v) ? "false" : "null");
	}
	return 0;
}

static int get_screen(yajl_val obj, char **out)
{
	yajl_val v = body_member(obj, "screen");
	struct buf b = BUF_INIT;

	*out = NULL;
	if (!v || YAJL_IS_NULL(v)) {
		*out = xstrdup("{}");
		return 0;
	}
	if (!YAJL_IS_OBJECT(v))
		return err_set(ERR_PARSE, "screen must be an object");
	if (emit(v, &b, 0) < 0 || b.len > REQ_MAX_SCREEN) {
		buf_release(&b);
		return err_set(ERR_PARSE, "screen is too large or too deep");
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

/* What cannot be asked for together, and what must be there. */
static int check_run(struct run_req *r)
{
	bool attach = r->pid || r->tid;

	if (!r->session || !srv_is_uuid(r->session))
		return err_set(ERR_PARSE, "session must be a session's id");
	if (strcmp(r->tool, "stat") != 0 && strcmp(r->tool, "record") != 0)
		return err_set(ERR_PARSE, "tool must be stat or record");
	if (strcmp(r->tool, "stat") == 0 && !*r->events)
		return err_set(ERR_PARSE, "choose at least one event to count");
	if (r->pid && r->tid)
		return err_set(ERR_PARSE, "give a PID or a TID, not both");
	if (attach && *r->command)
		return err_set(ERR_PARSE, "give a command or a PID/TID to attach to, not both");
	if (!attach && !*r->command)
		return err_set(ERR_PARSE, "give a command, or a PID/TID to attach to");
	if (strchr(r->command, '\0') != r->command + strlen(r->command))
		return err_set(ERR_PARSE, "bad command");
	return env_check(r->env);
}

int run_req_parse(const char *body, size_t len, struct run_req *r)
{
	yajl_val v;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!(v = body_parse(body, len)))
		return ERR_PARSE;
	ret = get_string(v, "session", 64, NULL, &r->session);
	if (ret == 0)
		ret = get_string(v, "tool", 16, "stat", &r->tool);
	if (ret == 0)
		ret = get_events(v, &r->events);
	if (ret == 0)
		ret = get_string(v, "command", MAX_COMMAND, "", &r->command);
	if (ret == 0)
		ret = get_string(v, "env", MAX_COMMAND, "", &r->env);
	if (ret == 0)
		ret = get_bool(v, "streaming", true, &r->streaming);
	if (ret == 0)
		ret = get_bool(v, "callgraph", false, &r->callgraph);
	if (ret == 0)
		ret = get_int(v, "interval_ms", 0, 3600000, 100, &r->interval_ms);
	if (ret == 0)
		ret = get_int(v, "freq", 0, 1000000, 0, &r->freq);
	if (ret == 0)
		ret = get_int(v, "pid", 0, 0x3fffffff, 0, &r->pid);
	if (ret == 0)
		ret = get_int(v, "tid", 0, 0x3fffffff, 0, &r->tid);
	if (ret == 0)
		ret = get_screen(v, &r->screen);
	yajl_tree_free(v);
	if (ret == 0)
		ret = check_run(r);
	if (ret < 0)
		run_req_free(r);
	return ret;
}

void run_req_free(struct run_req *r)
{
	free(r->session);
	free(r->tool);
	free(r->events);
	free(r->command);
	free(r->env);
	free(r->screen);
	memset(r, 0, sizeof(*r));
}

int session_req_parse(const char *body, size_t len, char **title)
{
	yajl_val v = body_parse(body, len);
	int ret;

	*title = NULL;
	if (!v)
		return ERR_PARSE;
	ret = get_string(v, "title", MAX_TITLE, NULL, title);
	yajl_tree_free(v);
	if (ret == 0 && (!*title || !**title)) {
		free(*title);
		*title = NULL;
		ret = err_set(ERR_PARSE, "a session needs a title");
	}
	return ret;
}
