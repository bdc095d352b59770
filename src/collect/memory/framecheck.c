/*
 * Whether an executable keeps frame pointers (framecheck.h): the share of
 * its functions that open with `push %rbp; mov %rsp,%rbp` (after an
 * endbr64), read from the ELF file with pread.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/memory/framecheck.h"
#include "util/common.h"

#define SAMPLE 256 /* functions looked at, at most */

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	return pread(fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The prologue of the function at @sym: 1 it sets up a frame pointer, 0 not. */
static int opens_frame(int fd, const Elf64_Shdr *sh, size_t nsh, const Elf64_Sym *sym)
{
	static const unsigned char endbr[] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const unsigned char frame[] = {0x55, 0x48, 0x89, 0xe5};
	const Elf64_Shdr *text;
	unsigned char code[8];

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= nsh)
		return -1;
	text = &sh[sym->st_shndx];
	if (text->sh_type != SHT_PROGBITS || sym->st_value < text->sh_addr ||
	    !read_at(fd, code, sizeof(code), text->sh_offset + (sym->st_value - text->sh_addr)))
		return -1;
	if (memcmp(code, endbr, sizeof(endbr)) == 0)
		return memcmp(code + 4, frame, sizeof(frame)) == 0;
	return memcmp(code, frame, sizeof(frame)) == 0;
}

/* Counts the functions of symbol table @tab that open a frame. */
static void count_frames(int fd, const Elf64_Shdr *sh, size_t nsh, const Elf64_Shdr *tab, int *with,
			 int *seen)
{
	size_t n = tab->sh_entsize == sizeof(Elf64_Sym) ? tab->sh_size / sizeof(Elf64_Sym) : 0;

	for (size_t i = 0; i < n && *seen < SAMPLE; i++) {
		Elf64_Sym sym;
		int r;

		if (!read_at(fd, &sym, sizeof(sym), tab->sh_offset + i * sizeof(sym)) ||
		    ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size < 16)
			continue;
		r = opens_frame(fd, sh, nsh, &sym);
		if (r < 0)
			continue;
		*with += r;
		(*seen)++;
	}
}

int memory_frame_pointers(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), with = 0, seen = 0;
	Elf64_Shdr *sh = NULL;
	Elf64_Ehdr eh;

	if (fd < 0)
		return -1;
	if (read_at(fd, &eh, sizeof(eh), 0) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_X86_64 &&
	    eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum > 0 && eh.e_shnum < 4096) {
		sh = xmalloc(eh.e_shnum * sizeof(*sh));
		if (!read_at(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff))
			eh.e_shnum = 0;
		/* .symtab when the file has it, else the exported .dynsym. */
		for (int pass = 0; pass < 2 && seen == 0; pass++)
			for (size_t i = 0; i < eh.e_shnum; i++)
				if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
					count_frames(fd, sh, eh.e_shnum, &sh[i], &with, &seen);
	}
	free(sh);
	close(fd);
	if (seen < 4)
		return -1;
	return with * 2 >= seen;
}
