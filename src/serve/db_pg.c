/*
 * The PostgreSQL backend of db.h, through libpq. libpq (and the TLS,
 * Kerberos and LDAP libraries it pulls in) is loaded on first use, as the
 * server's other libraries are (lazy.h says why). db.h's `?` placeholders
 * become `$1`, `$2`...; integers are sent as int8, reals as float8, texts
 * untyped so the server infers them from where they go.
 */
#include <dlfcn.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "serve/db.h"
#include "util/buf.h"
#include "util/common.h"
#include "util/error.h"
#include "util/xalloc.h"

/* clang-format off */
#define PQ_FUNCS(X) \
	X(PQconnectdb) X(PQstatus) X(PQerrorMessage) X(PQfinish) X(PQreset) \
	X(PQsetNoticeProcessor) X(PQexec) X(PQexecParams) X(PQresultStatus) \
	X(PQresultErrorMessage) X(PQclear) X(PQntuples) X(PQnfields) X(PQftype) \
	X(PQgetisnull) X(PQgetvalue) X(PQcmdTuples) X(PQtransactionStatus)
/* clang-format on */

static struct {
#define FIELD(name) __typeof__(name) *name;
	PQ_FUNCS(FIELD)
#undef FIELD
} pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_error[256];

static void pq_load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define ENTRY(name) {#name, offsetof(__typeof__(pq), name)},
		PQ_FUNCS(ENTRY)
#undef ENTRY
	};
	void *h = dlopen(VELES_PQ_SONAME, RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		snprintf(pq_error, sizeof(pq_error), "cannot load %s: %s", VELES_PQ_SONAME,
			 dlerror());
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		void *p = dlsym(h, syms[i].name);

		if (!p) {
			snprintf(pq_error, sizeof(pq_error), "cannot load %s: no %s in it",
				 VELES_PQ_SONAME, syms[i].name);
			return;
		}
		*(void **)((char *)&pq + syms[i].off) = p;
	}
}

struct pg {
	PGconn *c;
	char *where; /* the URL without its password, for messages */
};

/* Type OIDs of PostgreSQL's catalog (pg_type.dat). */
enum { OID_BOOL = 16, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26 };
enum { OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700 };

/* Notices (CREATE TABLE IF NOT EXISTS says it skipped) are not errors, and
 * library code prints nothing. */
static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* libpq's message, its trailing newline and "ERROR:  " dropped. */
static int pg_error(struct pg *p, const PGresult *r, const char *what)
{
	const char *m = r ? pq.PQresultErrorMessage(r) : "";
	size_t n;

	if (!*m)
		m = pq.PQerrorMessage(p->c);
	if (strncmp(m, "ERROR:  ", 8) == 0)
		m += 8;
	n = strcspn(m, "\n");
	return err_set(ERR_IO, "%s: %s: %.*s", p->where, what, (int)n, m);
}

/* "postgresql://user:secret@host/db" -> "postgresql://user@host/db". */
static char *hide_password(const char *url)
{
	const char *scheme = strstr(url, "://"), *at, *colon;

	if (!scheme)
		return xstrdup(url);
	scheme += 3;
	at = strchr(scheme, '@');
	colon = strchr(scheme, ':');
	if (!at || !colon || colon > at)
		return xstrdup(url);
	return xasprintf("%.*s%s", (int)(colon - url), url, at);
}

static int pg_open(const char *target, void **h)
{
	struct pg *p;

	pthread_once(&pq_once, pq_load);
	if (pq_error[0])
		return err_set(ERR_GENERIC, "%s", pq_error);
	p = xcalloc(1, sizeof(*p));
	p->where = hide_password(target);
	p->c = pq.PQconnectdb(target);
	if (!p->c || pq.PQstatus(p->c) != CONNECTION_OK) {
		const char *m = p->c ? pq.PQerrorMessage(p->c) : "out of memory";
		int ret = err_set(ERR_IO, "cannot connect to %s: %.*s", p->where,
				  (int)strcspn(m, "\n"), m);

		pq.PQfinish(p->c);
		free(p->where);
		free(p);
		return ret;
	}
	pq.PQsetNoticeProcessor(p->c, quiet, NULL);
	*h = p;
	return 0;
}

static void pg_close(void *h)
{
	struct pg *p = h;

	pq.PQfinish(p->c);
	free(p->where);
	free(p);
}

/* @sql with `?` numbered; question marks inside quotes stay. */
static char *number_params(const char *sql)
{
	struct buf b = BUF_INIT;
	char quote = 0;
	int n = 0;

	for (const char *s = sql; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
		} else if (*s == '\'' || *s == '"') {
			quote = *s;
		} else if (*s == '?') {
			buf_addf(&b, "$%d", ++n);
			continue;
		}
		buf_addc(&b, *s);
	}
	return buf_detach(&b, NULL);
}

/* A lost connection is made again for the next call (not within a
 * transaction, which the server has rolled back anyway). */
static void maybe_reset(struct pg *p)
{
	if (pq.PQstatus(p->c) == CONNECTION_BAD)
		pq.PQreset(p->c);
}

static PGresult *run(struct pg *p, const char *sql, const struct db_val *v, size_t nv)
{
	char *q = number_params(sql), *bufs = xcalloc(nv ? nv : 1, 32);
	const char **vals = xcalloc(nv ? nv : 1, sizeof(*vals));
	Oid *types = xcalloc(nv ? nv : 1, sizeof(*types));
	PGresult *r;

	for (size_t i = 0; i < nv; i++) {
		char *b = bufs + 32 * i;

		if (v[i].type == DB_INT) {
			snprintf(b, 32, "%lld", (long long)v[i].i);
			vals[i] = b;
			types[i] = OID_INT8;
		} else if (v[i].type == DB_REAL) {
			snprintf(b, 32, "%.17g", v[i].d);
			vals[i] = b;
			types[i] = OID_FLOAT8;
		} else if (v[i].type == DB_TEXT) {
			vals[i] = v[i].s;
		}
	}
	r = pq.PQexecParams(p->c, q, (int)nv, types, vals, NULL, NULL, 0);
	free(q);
	free(bufs);
	free(vals);
	free(types);
	return r;
}

static int pg_exec(void *h, const char *sql, const struct db_val *v, size_t nv, int64_t *changes)
{
	struct pg *p = h;
	PGresult *r = run(p, sql, v, nv);
	ExecStatusType st = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
	int ret = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		ret = pg_error(p, r, "cannot write");
	else if (changes)
		*changes = strtoll(pq.PQcmdTuples(r), NULL, 10);
	pq.PQclear(r);
	if (ret < 0)
		maybe_reset(p);
	return ret;
}

static struct db_val value_of(PGresult *r, int row, int col)
{
	const char *s;

	if (pq.PQgetisnull(r, row, col))
		return (struct db_val){.type = DB_NULL};
	s = pq.PQgetvalue(r, row, col);
	switch (pq.PQftype(r, col)) {
	case OID_INT2:
	case OID_INT4:
	case OID_INT8:
	case OID_OID:
		return DB_INT(strtoll(s, NULL, 10));
	case OID_BOOL:
		return DB_INT(*s == 't');
	case OID_NUMERIC: /* SUM of integers is numeric: an integer still */
		if (!strpbrk(s, ".eEN"))
			return DB_INT(strtoll(s, NULL, 10));
		return DB_REAL(strtod(s, NULL));
	case OID_FLOAT4:
	case OID_FLOAT8:
		return DB_REAL(strtod(s, NULL));
	default:
		return DB_TEXT(s);
	}
}

static int pg_query(void *h, const char *sql, const struct db_val *v, size_t nv, db_row_fn fn,
		    void *arg)
{
	struct pg *p = h;
	PGresult *r = run(p, sql, v, nv);
	struct db_val vals[32];
	int ret = 0, rows, cols;

	if (!r || pq.PQresultStatus(r) != PGRES_TUPLES_OK) {
		ret = pg_error(p, r, "cannot read");
		pq.PQclear(r);
		maybe_reset(p);
		return ret;
	}
	rows = pq.PQntuples(r);
	cols = pq.PQnfields(r);
	if (cols > 32)
		cols = 32;
	for (int i = 0; i < rows && ret == 0; i++) {
		for (int k = 0; k < cols; k++)
			vals[k] = value_of(r, i, k);
		ret = fn(arg, &(struct db_row){(size_t)cols, vals});
	}
	pq.PQclear(r);
	return ret;
}

static int pg_script(void *h, const char *sql)
{
	struct pg *p = h;
	PGresult *r = pq.PQexec(p->c, sql);
	ExecStatusType st = r ? pq.PQresultStatus(r) : PGRES_FATAL_ERROR;
	int ret = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		ret = pg_error(p, r, "cannot run a script");
	pq.PQclear(r);
	if (ret < 0)
		maybe_reset(p);
	return ret;
}

/* Two servers starting at once on a new database would both create its
 * tables: the migration holds a lock of the whole database (any number
 * will do, all Veles agree on it) until its transaction ends. */
const struct db_backend db_pg = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.query = pg_query,
	.script = pg_script,
	.lock_rows = " FOR UPDATE SKIP LOCKED",
	.migrate_lock = "SELECT pg_advisory_xact_lock(7697363)",
};
