/*
 * The program bench/fuzz.sh fuzzes: a word-frequency counter with a
 * planted quadratic path. Its hash table hashes a word longer than four
 * bytes by its first four (a shortcut that looked harmless on short
 * words), so "counter", "country" and "countless" share one chain, and
 * each new word walks the whole chain, folding the case of both keys
 * anew (through the C library's multibyte decoder) at every compare.
 * Seeds of ordinary text run in linear time; an input of many distinct
 * words with one prefix runs in time quadratic in their number.
 *
 *   fuzz_planted [FILE]   (stdin without FILE)
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#define NBUCKETS 1024

struct node {
	struct node *next;
	const char *w;
	size_t len;
	unsigned long count;
};

static struct node *table[NBUCKETS];

static unsigned hash(const char *w, size_t len)
{
	unsigned h = 2166136261u;

	/* The planted bug: a long word is hashed by its first four bytes. */
	if (len > 4)
		len = 4;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)w[i]) * 16777619u;
	return h % NBUCKETS;
}

/* A UTF-8 key as a case-folded wide string, freshly allocated. */
static wchar_t *folded(const char *w, size_t len)
{
	wchar_t *f = malloc((len + 1) * sizeof(*f));
	mbstate_t st;
	size_t i = 0, n = 0;

	if (!f)
		exit(2);
	memset(&st, 0, sizeof(st));
	while (i < len) {
		wchar_t c;
		size_t k = mbrtowc(&c, w + i, len - i, &st);

		/* A byte that is no character stands for itself. */
		if (k == 0 || k > len - i) {
			c = (unsigned char)w[i];
			k = 1;
			memset(&st, 0, sizeof(st));
		}
		f[n++] = (wchar_t)towlower((wint_t)c);
		i += k;
	}
	f[n] = 0;
	return f;
}

/* Case-insensitive equality: both keys folded anew at every compare, the
 * second half of the bug, harmless while chains are short. */
static int same(const char *a, size_t an, const char *b, size_t bn)
{
	wchar_t *fa = folded(a, an), *fb = folded(b, bn);
	int eq = wcscmp(fa, fb) == 0;

	free(fa);
	free(fb);
	return eq;
}

static void add(const char *w, size_t len)
{
	struct node **p = &table[hash(w, len)];

	for (; *p; p = &(*p)->next)
		if (same((*p)->w, (*p)->len, w, len)) {
			(*p)->count++;
			return;
		}
	*p = calloc(1, sizeof(**p));
	if (!*p)
		exit(2);
	(*p)->w = w;
	(*p)->len = len;
	(*p)->count = 1;
}

static int space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
	size_t len = 0, cap = 1 << 16, n, i = 0, distinct = 0;
	char *in = malloc(cap);

	setlocale(LC_CTYPE, "C.UTF-8");
	if (!f || !in)
		return 2;
	while ((n = fread(in + len, 1, cap - len, f)) > 0) {
		char *more;

		if ((len += n) < cap)
			continue;
		more = realloc(in, cap *= 2);
		if (!more)
			return 2;
		in = more;
	}
	while (i < len) {
		size_t s;

		while (i < len && space(in[i]))
			i++;
		s = i;
		while (i < len && !space(in[i]))
			i++;
		if (i > s)
			add(in + s, i - s);
	}
	for (int b = 0; b < NBUCKETS; b++)
		for (struct node *p = table[b]; p; p = p->next)
			distinct++;
	printf("%zu distinct words\n", distinct);
	return 0;
}
