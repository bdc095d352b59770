/*
 * veles show PROFILE heapmap: a map of the heap's address space at the end
 * of one snapshot, in curses on a terminal (the arrow keys move through the
 * snapshots), else one frame as text (docs/views.md).
 */
#include <curses.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/show.h"
#include "profile/profile.h"
#include "util/buf.h"
#include "util/common.h"
#include "view/heapmap.h"

#define LABEL 20 /* "0x0000555555559000 |" */
#define TEXT_ROWS 16

static const char level_char[] = " .:+#";

static void frame_header(const struct heapmap *h, int64_t snap, const struct heapmap_frame *f,
			 struct buf *b)
{
	buf_addf(b,
		 "heapmap of pid %" PRIu64 ", snapshot %" PRId64 " (of %" PRId64 "..%" PRId64
		 "): %" PRIu64 " B in %zu blocks live\n",
		 h->pid, snap, h->first, h->last, f->bytes, f->blocks);
	buf_addf(b,
		 "one cell: %" PRIu64 " B; %zu address range%s, %" PRIu64
		 " B in all (gaps over 1 MiB left out)\n",
		 h->cell, h->nranges, h->nranges == 1 ? "" : "s", h->span);
}

/* One frame as text: the header, a row of cells per line, the legend. */
static void frame_text(const struct heapmap *h, int64_t snap, struct buf *b)
{
	struct heapmap_frame f;

	heapmap_frame(h, snap, &f);
	frame_header(h, snap, &f, b);
	if (h->nranges == 0)
		buf_adds(b, "no block was allocated: the map is empty\n");
	for (int r = 0; r < h->rows && h->nranges; r++) {
		buf_addf(b, "0x%016" PRIx64 " |", heapmap_row_addr(h, r));
		for (int c = 0; c < h->cols; c++)
			buf_addc(b, level_char[f.level[(size_t)r * (size_t)h->cols + (size_t)c]]);
		buf_adds(b, "|\n");
	}
	buf_adds(b,
		 "cells: ' ' empty, '.' up to 1/4 used, ':' up to 1/2, '+' up to 3/4, '#' more\n");
	free(f.level);
}

/* ---- curses ----
 *
 * libncursesw is opened when the interactive view starts, not linked: every
 * other command starts faster without it. <curses.h> gives the types and
 * constants; the functions come from this table.
 */

static struct {
	WINDOW *(*initscr_)(void);
	int (*endwin_)(void);
	int (*cbreak_)(void);
	int (*noecho_)(void);
	int (*keypad_)(WINDOW *, bool);
	int (*curs_set_)(int);
	bool (*has_colors_)(void);
	int (*start_color_)(void);
	int (*init_pair_)(short, short, short);
	int (*werase_)(WINDOW *);
	int (*wmove_)(WINDOW *, int, int);
	int (*waddnstr_)(WINDOW *, const char *, int);
	int (*waddch_)(WINDOW *, chtype);
	int (*wattrset_)(WINDOW *, int);
	int (*wrefresh_)(WINDOW *);
	int (*wgetch_)(WINDOW *);
	int (*getmaxx_)(const WINDOW *);
	int (*getmaxy_)(const WINDOW *);
} nc;

static int curses_load(void)
{
	static const char *const names[] = {
		"initscr",    "endwin",	     "cbreak",	  "noecho", "keypad",  "curs_set",
		"has_colors", "start_color", "init_pair", "werase", "wmove",   "waddnstr",
		"waddch",     "wattrset",    "wrefresh",  "wgetch", "getmaxx", "getmaxy"};
	void *h = dlopen("libncursesw.so.6", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return err_set(ERR_NOTFOUND, "the interactive heapmap needs libncursesw.so.6 "
					     "(use --text for one frame as text)");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		void *f = dlsym(h, names[i]);

		if (!f)
			return err_set(ERR_NOTFOUND, "libncursesw.so.6 has no %s", names[i]);
		memcpy((char *)&nc + i * sizeof(f), &f, sizeof(f));
	}
	return 0;
}

static void put_line(WINDOW *w, int y, const char *text, size_t len)
{
	nc.wmove_(w, y, 0);
	nc.waddnstr_(w, text, (int)len);
}

static void draw(WINDOW *w, const struct heapmap *h, int64_t snap)
{
	struct heapmap_frame f;
	struct buf line = BUF_INIT;
	bool color = nc.has_colors_();

	heapmap_frame(h, snap, &f);
	nc.werase_(w);
	frame_header(h, snap, &f, &line);
	put_line(w, 0, line.data, line.len);
	for (int r = 0; r < h->rows; r++) {
		line.len = 0;
		buf_addf(&line, "0x%016" PRIx64 " |", heapmap_row_addr(h, r));
		put_line(w, r + 2, line.data, line.len);
		for (int c = 0; c < h->cols; c++) {
			unsigned char lv = f.level[(size_t)r * (size_t)h->cols + (size_t)c];

			nc.wattrset_(w, color && lv ? (int)COLOR_PAIR(lv) : 0);
			nc.waddch_(w, (chtype)level_char[lv]);
		}
		nc.wattrset_(w, 0);
		nc.waddch_(w, '|');
	}
	line.len = 0;
	buf_adds(&line, "left/right: snapshot, home/end: first/last, p: peak, q: quit;"
			" .:+# up to 1/4, 1/2, 3/4, more used");
	put_line(w, h->rows + 2, line.data, line.len);
	nc.wrefresh_(w);
	buf_release(&line);
	free(f.level);
}

static WINDOW *curses_start(void)
{
	WINDOW *w;

	cli_unguard_stdout();
	w = nc.initscr_();

	nc.cbreak_();
	nc.noecho_();
	nc.keypad_(w, TRUE);
	nc.curs_set_(0);
	if (nc.has_colors_()) {
		nc.start_color_();
		nc.init_pair_(1, COLOR_BLUE, COLOR_BLACK);
		nc.init_pair_(2, COLOR_GREEN, COLOR_BLACK);
		nc.init_pair_(3, COLOR_YELLOW, COLOR_BLACK);
		nc.init_pair_(4, COLOR_RED, COLOR_BLACK);
	}
	return w;
}

/* The new snapshot after @key, or INT64_MIN to quit. */
static int64_t step(const struct heapmap *h, int key, int64_t snap)
{
	switch (key) {
	case KEY_LEFT:
	case 'h':
		return snap > h->first ? snap - 1 : snap;
	case KEY_RIGHT:
	case 'l':
		return snap < h->last ? snap + 1 : snap;
	case KEY_HOME:
	case 'g':
		return h->first;
	case KEY_END:
	case 'G':
		return h->last;
	case 'p':
		return heapmap_peak(h);
	case 'q':
	case 27:
		return INT64_MIN;
	}
	return snap;
}

static int interactive(struct heapmap *h, int64_t snap)
{
	WINDOW *w;

	if (curses_load() < 0)
		return -1;
	w = curses_start();
	while (snap != INT64_MIN) {
		int key;

		heapmap_layout(h, nc.getmaxx_(w) - LABEL - 1, nc.getmaxy_(w) - 3);
		draw(w, h, snap);
		key = nc.wgetch_(w);
		if (key != KEY_RESIZE)
			snap = step(h, key, snap);
	}
	nc.endwin_();
	return 0;
}

int show_heapmap(const struct profile *p, const struct show_opts *o, bool tty, int width)
{
	struct heapmap h;
	int64_t snap;
	int ret = heapmap_build(p, &h);

	if (ret < 0) {
		fprintf(stderr, "veles show: %s\n", err_msg());
		return -1;
	}
	snap = o->snapshot >= 0 ? o->snapshot : heapmap_peak(&h);
	if (snap < h.first || snap > h.last) {
		fprintf(stderr,
			"veles show: heapmap: no snapshot %" PRId64 " (the events are in %" PRId64
			"..%" PRId64 ")\n",
			snap, h.first, h.last);
		heapmap_release(&h);
		return -1;
	}
	if (tty && !o->text) {
		ret = interactive(&h, snap);
		if (ret < 0)
			fprintf(stderr, "veles show: %s\n", err_msg());
	} else {
		struct buf b = BUF_INIT;

		heapmap_layout(&h, width - LABEL - 1, o->rows ? (int)o->rows : TEXT_ROWS);
		frame_text(&h, snap, &b);
		fwrite(b.data, 1, b.len, stdout);
		buf_release(&b);
	}
	heapmap_release(&h);
	return ret < 0 ? -1 : 0;
}
