/*
 * What a profile says reaches the terminal as text, never as a command to
 * it. Profiles and recordings come from anyone (`veles pull`), and their
 * uids, commands and function names are printed: an escape sequence in one
 * could set the window title, write the clipboard (OSC 52), move the cursor
 * to hide a line, or make a \r rewrite the start of one. On a terminal,
 * stdout and stderr pass through a filter that shows such bytes as \xNN;
 * the only sequences it lets through are the colours (SGR, ESC [ ... m) and
 * the erase to the end of the line (ESC [ K) that Veles writes itself, and
 * on stderr the \r of its progress line. Pipes and files get every byte
 * as it is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/fsutil.h"

enum { PLAIN, ESC, CSI, LEAD_C2 };

struct guard {
	int fd;
	bool allow_cr;
	int state;
	char seq[16]; /* a CSI sequence being read, from its ESC */
	size_t nseq;
};

static FILE *raw_stdout;

struct out {
	char data[4096];
	size_t len;
	int fd;
};

static void out_bytes(struct out *o, const char *p, size_t n)
{
	if (o->len + n > sizeof(o->data)) {
		(void)write_in_full(o->fd, o->data, o->len);
		o->len = 0;
	}
	if (n > sizeof(o->data)) {
		(void)write_in_full(o->fd, p, n);
		return;
	}
	memcpy(o->data + o->len, p, n);
	o->len += n;
}

static void out_escaped(struct out *o, unsigned char c)
{
	char text[5];

	snprintf(text, sizeof(text), "\\x%02x", c);
	out_bytes(o, text, 4);
}

/* A sequence that turned out not to be one Veles writes: shown as text. */
static void drop_seq(struct guard *g, struct out *o)
{
	out_escaped(o, (unsigned char)g->seq[0]);
	out_bytes(o, g->seq + 1, g->nseq - 1);
	g->nseq = 0;
	g->state = PLAIN;
}

static bool plain_ok(const struct guard *g, unsigned char c)
{
	return c >= 0x20 || c == '\n' || c == '\t' || (c == '\r' && g->allow_cr);
}

static void feed(struct guard *g, struct out *o, unsigned char c)
{
	switch (g->state) {
	case ESC:
		g->seq[g->nseq++] = (char)c;
		if (c == '[')
			g->state = CSI;
		else
			drop_seq(g, o);
		return;
	case CSI:
		g->seq[g->nseq++] = (char)c;
		if (c == 'm' || c == 'K') {
			out_bytes(o, g->seq, g->nseq);
			g->nseq = 0;
			g->state = PLAIN;
		} else if (!((c >= '0' && c <= '9') || c == ';') || g->nseq == sizeof(g->seq)) {
			drop_seq(g, o);
		}
		return;
	case LEAD_C2:
		g->state = PLAIN;
		if (c >= 0x80 && c <= 0x9f) { /* U+0080..U+009F: the C1 controls */
			out_escaped(o, 0xc2);
			out_escaped(o, c);
			return;
		}
		out_bytes(o, "\xc2", 1);
		break;
	}
	if (c == 0x1b) {
		g->seq[0] = (char)c;
		g->nseq = 1;
		g->state = ESC;
	} else if (c == 0xc2) {
		g->state = LEAD_C2;
	} else if (plain_ok(g, c) && c != 0x7f) {
		out_bytes(o, (const char *)&c, 1);
	} else {
		out_escaped(o, c);
	}
}

static ssize_t guard_write(void *cookie, const char *buf, size_t size)
{
	struct guard *g = cookie;
	struct out o = {.fd = g->fd};

	for (size_t i = 0; i < size; i++)
		feed(g, &o, (unsigned char)buf[i]);
	(void)write_in_full(o.fd, o.data, o.len);
	return (ssize_t)size;
}

static int guard_close(void *cookie)
{
	struct guard *g = cookie;
	struct out o = {.fd = g->fd};

	if (g->nseq)
		drop_seq(g, &o);
	if (g->state == LEAD_C2)
		out_bytes(&o, "\xc2", 1);
	g->state = PLAIN;
	(void)write_in_full(o.fd, o.data, o.len);
	return 0;
}

/* One guard for each stream, for the whole run: the streams are never
 * closed before exit, so nothing is allocated that exit would leave. */
static struct guard guards[2];

static FILE *guarded(int fd, bool allow_cr, int mode)
{
	static const cookie_io_functions_t io = {.write = guard_write, .close = guard_close};
	struct guard *g = &guards[fd == STDERR_FILENO];
	FILE *f;

	g->fd = fd;
	g->allow_cr = allow_cr;
	f = fopencookie(g, "w", io);
	if (f)
		setvbuf(f, NULL, mode, 0);
	return f;
}

void cli_guard_terminal(void)
{
	FILE *f;

	if (getenv("VELES_RAW_TERMINAL"))
		return;
	if (isatty(STDOUT_FILENO) && (f = guarded(STDOUT_FILENO, false, _IOLBF))) {
		fflush(stdout);
		raw_stdout = stdout;
		stdout = f;
	}
	if (isatty(STDERR_FILENO) && (f = guarded(STDERR_FILENO, true, _IONBF)))
		stderr = f;
}

void cli_unguard_stdout(void)
{
	if (!raw_stdout)
		return;
	fclose(stdout);
	stdout = raw_stdout;
	raw_stdout = NULL;
}
