/* ELF symbol tables (see elfsym.h). */
#include <stddef.h>

#include "perf/elfsym.h"

static void each_in(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, elfsym_fn fn, void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			continue;
		name = elf_strptr(e, sh->sh_link, s.st_name);
		if (name && *name)
			fn(&s, name, arg);
	}
}

enum elfsym_table elfsym_each(Elf *e, bool dynsym, elfsym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dyn_sh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			each_in(e, scn, &sh, fn, arg);
			return ELFSYM_SYMTAB;
		}
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dyn_sh = sh;
		}
	}
	if (!dynsym || !dyn)
		return ELFSYM_NONE;
	each_in(e, dyn, &dyn_sh, fn, arg);
	return ELFSYM_DYNSYM;
}

bool elfsym_is_func(const GElf_Sym *s, bool ifunc)
{
	int type = GELF_ST_TYPE(s->st_info);

	return s->st_shndx != SHN_UNDEF && s->st_value != 0 &&
	       (type == STT_FUNC || (ifunc && type == STT_GNU_IFUNC));
}
