/* DWARF member offsets for --size (see trace-dwarf.h). */
#include <asm/perf_regs.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/libdw-lazy.h"
#include "collect/trace/trace-dwarf.h"
#include "util/common.h"

static const struct libdw *dw;

/* Whether libdw is there (loaded on first use). */
static bool dw_load(void)
{
	if (!dw)
		dw = libdw_get();
	return dw != NULL;
}

static const int arg_regs[] = {PERF_REG_X86_DI, PERF_REG_X86_SI, PERF_REG_X86_DX,
			       PERF_REG_X86_CX, PERF_REG_X86_R8, PERF_REG_X86_R9};

static bool named(Dwarf_Die *die, const char *name)
{
	const char *n = dw->dwarf_diename(die);

	return n && strcmp(n, name) == 0;
}

/* The child of @parent with tag @tag named @name (any name when NULL);
 * *@index counts the children of that tag before it. */
static bool find_child(Dwarf_Die *parent, int tag, const char *name, Dwarf_Die *out, int *index)
{
	int n = 0;

	if (dw->dwarf_child(parent, out) != 0)
		return false;
	do {
		if (dw->dwarf_tag(out) != tag)
			continue;
		if (!name || named(out, name)) {
			if (index)
				*index = n;
			return true;
		}
		n++;
	} while (dw->dwarf_siblingof(out, out) == 0);
	return false;
}

/* The definition of @func (not a prototype: its parameters have no
 * names) in any unit. */
static bool find_function(Dwarf *dbg, const char *func, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw->dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, p;

		if (dw->dwarf_offdie(dbg, off + hsize, &cu) &&
		    find_child(&cu, DW_TAG_subprogram, func, out, NULL) &&
		    !dw->dwarf_hasattr(out, DW_AT_declaration) &&
		    find_child(out, DW_TAG_formal_parameter, NULL, &p, NULL))
			return true;
		off = next;
	}
	return false;
}

/* @die's type with typedefs and qualifiers peeled off. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	return dw->dwarf_attr_integrate(die, DW_AT_type, &at) && dw->dwarf_formref_die(&at, &t) &&
	       dw->dwarf_peel_type(&t, out) == 0;
}

/* Walks "a.b.c" from structure @st, adding the members' offsets. */
static int walk_members(Dwarf_Die *st, const char *path, struct usdt_arg *a, Dwarf_Die *last)
{
	char *copy = xstrdup(path), *save = NULL;
	int ret = 0;

	for (char *m = strtok_r(copy, ".", &save); m && ret == 0; m = strtok_r(NULL, ".", &save)) {
		Dwarf_Attribute at;
		Dwarf_Word off = 0;
		Dwarf_Die mem;

		if ((dw->dwarf_tag(st) != DW_TAG_structure_type &&
		     dw->dwarf_tag(st) != DW_TAG_union_type) ||
		    !find_child(st, DW_TAG_member, m, &mem, NULL)) {
			ret = err_set(ERR_INVALID, "collect trace: --size: no member '%s' in %s", m,
				      path);
			break;
		}
		if (dw->dwarf_attr_integrate(&mem, DW_AT_data_member_location, &at))
			dw->dwarf_formudata(&at, &off);
		a->value += (int64_t)off;
		*last = mem;
		if (!type_of(&mem, st))
			ret = err_set(ERR_INVALID, "collect trace: --size: member '%s' has no type",
				      m);
	}
	free(copy);
	return ret;
}

/* The member's width and sign: an integer (or enum, or pointer) only. */
static int member_width(Dwarf_Die *type, const char *member, struct usdt_arg *a)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	int tag = dw->dwarf_tag(type), bytes = dw->dwarf_bytesize(type);

	if (tag == DW_TAG_pointer_type)
		bytes = 8;
	if ((tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type &&
	     tag != DW_TAG_pointer_type) ||
	    (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
		return err_set(ERR_INVALID,
			       "collect trace: --size: member '%s' is not an integer of 1, 2, 4 "
			       "or 8 bytes",
			       member);
	if (tag == DW_TAG_base_type && dw->dwarf_attr_integrate(type, DW_AT_encoding, &at))
		dw->dwarf_formudata(&at, &enc);
	a->bytes = bytes;
	a->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return 0;
}

static int locate(Dwarf *dbg, const char *path, const char *func, const char *arg,
		  const char *member, struct usdt_arg *a)
{
	Dwarf_Die fn, param, type, last;
	int index = 0;

	if (!find_function(dbg, func, &fn))
		return err_set(ERR_INVALID, "collect trace: --size: no function '%s' in %s's DWARF",
			       func, path);
	if (!find_child(&fn, DW_TAG_formal_parameter, arg, &param, &index))
		return err_set(ERR_INVALID, "collect trace: --size: %s has no parameter '%s'", func,
			       arg);
	if (index >= 6)
		return err_set(ERR_INVALID,
			       "collect trace: --size: '%s' is past %s's sixth parameter", arg,
			       func);
	if (!type_of(&param, &type) || dw->dwarf_tag(&type) != DW_TAG_pointer_type ||
	    !type_of(&type, &type))
		return err_set(ERR_INVALID,
			       "collect trace: --size: %s's '%s' is not a pointer to "
			       "a structure",
			       func, arg);
	*a = (struct usdt_arg){.kind = USDT_ARG_MEM, .reg = arg_regs[index]};
	if (walk_members(&type, member, a, &last) < 0)
		return ERR_INVALID;
	return member_width(&type, member, a);
}

int trace_dwarf_member(const char *path, const char *func, const char *arg, const char *member,
		       struct usdt_arg *a)
{
	int fd, ret;
	Dwarf *dbg;

	if (!dw_load())
		return err_set(ERR_NOTFOUND, "collect trace: --size with a member needs libdw "
					     "(libdw.so.1)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(ERR_IO, "cannot open %s: %s", path, strerror(errno));
	dbg = dw->dwarf_begin(fd, DWARF_C_READ);
	if (!dbg)
		ret = err_set(
			ERR_INVALID,
			"collect trace: --size: %s has no debug information (build it with -g)",
			path);
	else
		ret = locate(dbg, path, func, arg, member, a);
	if (dbg)
		dw->dwarf_end(dbg);
	close(fd);
	return ret;
}
