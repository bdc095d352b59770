/*
 * libdw's functions, resolved from libdw.so.1 on first use: a veles that
 * never reads DWARF (most commands) neither loads nor needs it. One table
 * for every reader of DWARF (the memory collector's symbols and inlined
 * frames, the trace collector's member offsets).
 */
#ifndef COLLECT_LIBDW_LAZY_H
#define COLLECT_LIBDW_LAZY_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>

struct libdw {
	/* libdwfl: a process's modules, addresses to names and lines */
	Dwfl_Callbacks proc_callbacks; /* find_elf and find_debuginfo of a live process */
	Dwfl *(*dwfl_begin)(const Dwfl_Callbacks *);
	void (*dwfl_end)(Dwfl *);
	void (*dwfl_report_begin)(Dwfl *);
	int (*dwfl_report_end)(Dwfl *, void *, void *);
	int (*dwfl_linux_proc_maps_report)(Dwfl *, FILE *);
	Dwfl_Module *(*dwfl_addrmodule)(Dwfl *, Dwarf_Addr);
	const char *(*dwfl_module_addrname)(Dwfl_Module *, GElf_Addr);
	Dwfl_Line *(*dwfl_module_getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*dwfl_lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *,
				     Dwarf_Word *);
	const char *(*dwfl_module_info)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *,
					Dwarf_Addr *, Dwarf_Addr *, const char **, const char **);
	Dwarf_Die *(*dwfl_module_addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	/* libdw: a file's debugging entries */
	Dwarf *(*dwarf_begin)(int, Dwarf_Cmd);
	int (*dwarf_end)(Dwarf *);
	int (*dwarf_nextcu)(Dwarf *, Dwarf_Off, Dwarf_Off *, size_t *, Dwarf_Off *, uint8_t *,
			    uint8_t *);
	Dwarf_Die *(*dwarf_offdie)(Dwarf *, Dwarf_Off, Dwarf_Die *);
	int (*dwarf_child)(Dwarf_Die *, Dwarf_Die *);
	int (*dwarf_siblingof)(Dwarf_Die *, Dwarf_Die *);
	int (*dwarf_tag)(Dwarf_Die *);
	const char *(*dwarf_diename)(Dwarf_Die *);
	int (*dwarf_hasattr)(Dwarf_Die *, unsigned int);
	Dwarf_Attribute *(*dwarf_attr)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	Dwarf_Attribute *(*dwarf_attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	const char *(*dwarf_formstring)(Dwarf_Attribute *);
	int (*dwarf_formudata)(Dwarf_Attribute *, Dwarf_Word *);
	Dwarf_Die *(*dwarf_formref_die)(Dwarf_Attribute *, Dwarf_Die *);
	int (*dwarf_peel_type)(Dwarf_Die *, Dwarf_Die *);
	int (*dwarf_bytesize)(Dwarf_Die *);
	int (*dwarf_getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*dwarf_getscopes_die)(Dwarf_Die *, Dwarf_Die **);
	int (*dwarf_getsrcfiles)(Dwarf_Die *, Dwarf_Files **, size_t *);
	const char *(*dwarf_filesrc)(Dwarf_Files *, size_t, Dwarf_Word *, Dwarf_Word *);
};

/* The table, loaded on the first call; NULL when libdw.so.1, or any of
 * its functions, is missing (the answer is kept). */
const struct libdw *libdw_get(void);

#endif
