/*
 * Whether an x86-64 ELF object keeps frame pointers: the share of its
 * functions that open with `push %rbp; mov %rsp,%rbp` (after an endbr64).
 * The runtime judges each object it finds loaded from the file's bytes,
 * mapped whole; header-only and allocation-free, since it runs inside the
 * profiled program's allocator.
 */
#ifndef RUNTIME_FPJUDGE_H
#define RUNTIME_FPJUDGE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FPJUDGE_SAMPLE 256 /* functions looked at, at most */

/* The prologue of function @sym: 1 it sets up a frame pointer, 0 not, -1
 * when its code is not in the file. */
static inline int fpjudge_opens_frame(const unsigned char *img, size_t size, const Elf64_Shdr *sh,
				      size_t nsh, const Elf64_Sym *sym)
{
	static const unsigned char endbr[] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const unsigned char frame[] = {0x55, 0x48, 0x89, 0xe5};
	const Elf64_Shdr *text;
	const unsigned char *code;
	uint64_t off;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= nsh)
		return -1;
	text = &sh[sym->st_shndx];
	if (text->sh_type != SHT_PROGBITS || sym->st_value < text->sh_addr)
		return -1;
	off = text->sh_offset + (sym->st_value - text->sh_addr);
	if (off > size || size - off < 8)
		return -1;
	code = img + off;
	if (memcmp(code, endbr, sizeof(endbr)) == 0)
		return memcmp(code + 4, frame, sizeof(frame)) == 0;
	return memcmp(code, frame, sizeof(frame)) == 0;
}

/* 1 when at least half the functions sampled from the symbol table
 * (.symtab when the file has one, else .dynsym) set up a frame pointer, 0
 * when fewer do, -1 when it cannot tell (not such a file, fewer than 4
 * functions). */
static inline int fpjudge(const unsigned char *img, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)(const void *)img;
	const Elf64_Shdr *sh;
	int with = 0, seen = 0;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || (eh->e_shoff & 7))
		return -1;
	sh = (const Elf64_Shdr *)(const void *)(img + eh->e_shoff);
	for (int pass = 0; pass < 2 && seen == 0; pass++) {
		for (size_t i = 0; i < eh->e_shnum && seen < FPJUDGE_SAMPLE; i++) {
			const Elf64_Shdr *tab = &sh[i];
			size_t n;

			if (tab->sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    tab->sh_entsize != sizeof(Elf64_Sym) || tab->sh_offset > size ||
			    tab->sh_size > size - tab->sh_offset || (tab->sh_offset & 7))
				continue;
			n = tab->sh_size / sizeof(Elf64_Sym);
			for (size_t k = 0; k < n && seen < FPJUDGE_SAMPLE; k++) {
				const Elf64_Sym *sym =
					(const Elf64_Sym *)(const void *)(img + tab->sh_offset) + k;
				int r;

				if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_size < 16)
					continue;
				r = fpjudge_opens_frame(img, size, sh, eh->e_shnum, sym);
				if (r < 0)
					continue;
				with += r;
				seen++;
			}
		}
	}
	if (seen < 4)
		return -1;
	return with * 2 >= seen;
}

#endif
