/* USDT notes and argument specs (see trace-usdt.h). */
#include <asm/perf_regs.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/trace/trace-usdt.h"
#include "util/common.h"

#define NT_STAPSDT 3

/* The x86-64 register names an operand may use, by perf register. */
static const struct {
	const char *names[4]; /* 64, 32, 16, 8 bits */
	int reg;
} regs[] = {
	{{"rax", "eax", "ax", "al"}, PERF_REG_X86_AX},
	{{"rbx", "ebx", "bx", "bl"}, PERF_REG_X86_BX},
	{{"rcx", "ecx", "cx", "cl"}, PERF_REG_X86_CX},
	{{"rdx", "edx", "dx", "dl"}, PERF_REG_X86_DX},
	{{"rsi", "esi", "si", "sil"}, PERF_REG_X86_SI},
	{{"rdi", "edi", "di", "dil"}, PERF_REG_X86_DI},
	{{"rbp", "ebp", "bp", "bpl"}, PERF_REG_X86_BP},
	{{"rsp", "esp", "sp", "spl"}, PERF_REG_X86_SP},
	{{"rip", "eip", "ip", NULL}, PERF_REG_X86_IP},
	{{"r8", "r8d", "r8w", "r8b"}, PERF_REG_X86_R8},
	{{"r9", "r9d", "r9w", "r9b"}, PERF_REG_X86_R9},
	{{"r10", "r10d", "r10w", "r10b"}, PERF_REG_X86_R10},
	{{"r11", "r11d", "r11w", "r11b"}, PERF_REG_X86_R11},
	{{"r12", "r12d", "r12w", "r12b"}, PERF_REG_X86_R12},
	{{"r13", "r13d", "r13w", "r13b"}, PERF_REG_X86_R13},
	{{"r14", "r14d", "r14w", "r14b"}, PERF_REG_X86_R14},
	{{"r15", "r15d", "r15w", "r15b"}, PERF_REG_X86_R15},
};

/* "%name" of @len characters: its perf register, or -1. */
static int reg_of(const char *s, size_t len)
{
	if (len < 2 || s[0] != '%')
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		for (int k = 0; k < 4; k++)
			if (regs[i].names[k] && strlen(regs[i].names[k]) == len - 1 &&
			    strncmp(regs[i].names[k], s + 1, len - 1) == 0)
				return regs[i].reg;
	return -1;
}

/* "$imm", "%reg", "disp(%reg)" or "(%reg)". */
static int parse_operand(const char *s, struct usdt_arg *a)
{
	char *end;

	if (s[0] == '$') {
		errno = 0;
		a->value = strtoll(s + 1, &end, 0);
		a->kind = USDT_ARG_IMM;
		return end == s + 1 || *end || errno ? ERR_PARSE : 0;
	}
	if (s[0] == '%') {
		a->kind = USDT_ARG_REG;
		a->reg = reg_of(s, strlen(s));
		return a->reg < 0 ? ERR_PARSE : 0;
	}
	errno = 0;
	a->value = s[0] == '(' ? 0 : strtoll(s, &end, 0);
	if (s[0] == '(')
		end = (char *)s;
	if (errno || end[0] != '(' || end[strlen(end) - 1] != ')')
		return ERR_PARSE; /* a symbol's address or an index: not read */
	a->kind = USDT_ARG_MEM;
	a->reg = reg_of(end + 1, strlen(end) - 2);
	return a->reg < 0 ? ERR_PARSE : 0;
}

int usdt_arg_parse(const char *spec, struct usdt_arg *a)
{
	const char *at = strchr(spec, '@');
	char *end;
	long n;

	*a = (struct usdt_arg){.kind = USDT_ARG_NONE};
	if (!at)
		return ERR_PARSE;
	n = strtol(spec, &end, 10);
	if (end != at || (labs(n) != 1 && labs(n) != 2 && labs(n) != 4 && labs(n) != 8))
		return ERR_PARSE;
	a->bytes = (int)labs(n);
	a->is_signed = n < 0;
	return parse_operand(at + 1, a);
}

/* Splits the spec at spaces; nargs -1 when one argument cannot be read. */
static void parse_spec(struct usdt_probe *p)
{
	char *copy = xstrdup(p->spec), *save = NULL;

	p->nargs = 0;
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (p->nargs == USDT_MAX_ARGS || usdt_arg_parse(t, &p->args[p->nargs]) < 0) {
			p->nargs = -1;
			break;
		}
		p->nargs++;
	}
	free(copy);
}

/* ---- the notes ---- */

struct elf_ctx {
	Elf *elf;
	uint64_t base_addr; /* .stapsdt.base's address, 0 when absent */
};

static Elf_Scn *section_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (gelf_getshdr(scn, sh) && (name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(name, want) == 0)
			return scn;
	}
	return NULL;
}

/* The file offset of address @v, through the section that holds it. */
static uint64_t addr_to_offset(Elf *elf, uint64_t v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_addr &&
		    v >= sh.sh_addr && v < sh.sh_addr + sh.sh_size)
			return v - sh.sh_addr + sh.sh_offset;
	return 0;
}

/* One note's description: pc, base, semaphore, provider, name, args. */
static int take_note(const struct elf_ctx *e, const char *desc, size_t len, struct usdt_list *out)
{
	uint64_t pc, base, sema;
	const char *prov = desc + 24, *name, *args, *end = desc + len;
	struct usdt_probe p = {0};

	if (len < 27)
		return ERR_PARSE;
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sema, desc + 16, 8);
	name = memchr(prov, '\0', (size_t)(end - prov));
	args = name ? memchr(name + 1, '\0', (size_t)(end - name - 1)) : NULL;
	if (!args || !memchr(args + 1, '\0', (size_t)(end - args - 1)))
		return ERR_PARSE;
	name++;
	args++;
	/* Prelinking moves the code; .stapsdt.base says by how much. */
	if (e->base_addr && base)
		pc += e->base_addr - base;
	p.provider = xstrdup(prov);
	p.name = xstrdup(name);
	p.spec = xstrdup(args);
	p.pc = pc;
	p.sema_off = sema ? addr_to_offset(e->elf, sema) : 0;
	parse_spec(&p);
	out->probes = xrealloc(out->probes, (out->n + 1) * sizeof(*out->probes));
	out->probes[out->n++] = p;
	return 0;
}

static int read_notes(struct elf_ctx *e, Elf_Scn *scn, struct usdt_list *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;
	int ret = 0;

	while (ret == 0 && data && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_STAPSDT && nh.n_namesz == 8 &&
		    memcmp((char *)data->d_buf + name_off, "stapsdt", 8) == 0)
			ret = take_note(e, (char *)data->d_buf + desc_off, nh.n_descsz, out);
		off = next;
	}
	return ret;
}

int usdt_read(const char *path, struct usdt_list *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	struct elf_ctx e = {0};
	Elf_Scn *scn;
	GElf_Shdr sh;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	e.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!e.elf || elf_kind(e.elf) != ELF_K_ELF)
		ret = err_set(ERR_PARSE, "collect trace: %s is not an ELF file", path);
	if (ret == 0 && section_named(e.elf, ".stapsdt.base", &sh))
		e.base_addr = sh.sh_addr;
	if (ret == 0 && (scn = section_named(e.elf, ".note.stapsdt", &sh)) &&
	    read_notes(&e, scn, out) < 0)
		ret = err_set(ERR_PARSE, "collect trace: %s has a malformed USDT note", path);
	if (e.elf)
		elf_end(e.elf);
	close(fd);
	return ret;
}

void usdt_list_free(struct usdt_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->probes[i].provider);
		free(l->probes[i].name);
		free(l->probes[i].spec);
	}
	free(l->probes);
	memset(l, 0, sizeof(*l));
}

/* ---- argument values ---- */

int64_t usdt_extend(uint64_t v, int bytes, bool is_signed)
{
	int shift = 64 - 8 * bytes;

	if (bytes == 8)
		return (int64_t)v;
	v &= (1ull << (8 * bytes)) - 1;
	if (!is_signed)
		return (int64_t)v;
	return (int64_t)(v << shift) >> shift;
}

bool usdt_arg_value(const struct usdt_arg *a, const struct usdt_hit *h, int64_t *out)
{
	uint64_t v = 0, addr, sp;

	switch (a->kind) {
	case USDT_ARG_IMM:
		*out = a->value;
		return true;
	case USDT_ARG_REG:
		if (!h->regs)
			return false;
		*out = usdt_extend(h->regs[a->reg], a->bytes, a->is_signed);
		return true;
	case USDT_ARG_MEM:
		if (!h->regs || !h->stack)
			return false;
		addr = h->regs[a->reg] + (uint64_t)a->value;
		sp = h->regs[PERF_REG_X86_SP];
		if (addr < sp || addr - sp + (uint64_t)a->bytes > h->stack_len)
			return false;
		memcpy(&v, h->stack + (addr - sp), (size_t)a->bytes);
		*out = usdt_extend(v, a->bytes, a->is_signed);
		return true;
	default:
		return false;
	}
}
