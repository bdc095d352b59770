/* libdw resolved on first use (see libdw-lazy.h). */
#include <dlfcn.h>
#include <stdbool.h>

#include "collect/libdw-lazy.h"

#define DW_SYM(field)                                                                              \
	do {                                                                                       \
		*(void **)&dw.field = dlsym(h, #field);                                            \
		ok = ok && dw.field;                                                               \
	} while (0)

static bool resolve(struct libdw *t, void *h)
{
	struct libdw dw = {0};
	bool ok = true;

	*(void **)&dw.proc_callbacks.find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
	*(void **)&dw.proc_callbacks.find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
	ok = dw.proc_callbacks.find_elf && dw.proc_callbacks.find_debuginfo;
	DW_SYM(dwfl_begin);
	DW_SYM(dwfl_end);
	DW_SYM(dwfl_report_begin);
	DW_SYM(dwfl_report_end);
	DW_SYM(dwfl_linux_proc_maps_report);
	DW_SYM(dwfl_addrmodule);
	DW_SYM(dwfl_module_addrname);
	DW_SYM(dwfl_module_getsrc);
	DW_SYM(dwfl_lineinfo);
	DW_SYM(dwfl_module_info);
	DW_SYM(dwfl_module_addrdie);
	DW_SYM(dwarf_begin);
	DW_SYM(dwarf_end);
	DW_SYM(dwarf_nextcu);
	DW_SYM(dwarf_offdie);
	DW_SYM(dwarf_child);
	DW_SYM(dwarf_siblingof);
	DW_SYM(dwarf_tag);
	DW_SYM(dwarf_diename);
	DW_SYM(dwarf_hasattr);
	DW_SYM(dwarf_attr);
	DW_SYM(dwarf_attr_integrate);
	DW_SYM(dwarf_formstring);
	DW_SYM(dwarf_formudata);
	DW_SYM(dwarf_formref_die);
	DW_SYM(dwarf_peel_type);
	DW_SYM(dwarf_bytesize);
	DW_SYM(dwarf_getscopes);
	DW_SYM(dwarf_getscopes_die);
	DW_SYM(dwarf_getsrcfiles);
	DW_SYM(dwarf_filesrc);
	*t = dw;
	return ok;
}

const struct libdw *libdw_get(void)
{
	static struct libdw table;
	static bool tried, ok;
	void *h;

	if (tried)
		return ok ? &table : NULL;
	tried = true;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	ok = h && resolve(&table, h);
	return ok ? &table : NULL;
}
