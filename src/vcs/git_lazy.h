/*
 * libgit2, loaded when first used.
 *
 * Linking libgit2 makes the dynamic loader map and relocate it and the
 * twenty libraries it needs (TLS, Kerberos, SSH) before main() runs: about
 * two milliseconds of every veles command, and of every `veles collect`
 * run, which reads no git object at all. So veles is not linked with it:
 * the first call of a git_* function dlopens the library (its soname is
 * found at configure time) and fills this table. Code that calls libgit2
 * includes this header instead of <git2.h>; the macros below turn each
 * git_foo(...) into a call through the table, so call sites read as usual.
 *
 * A function used anywhere must be in GIT_LAZY_FUNCS, or the executable
 * does not link (there is no libgit2 to resolve it).
 */
#ifndef VCS_GIT_LAZY_H
#define VCS_GIT_LAZY_H

#include <git2.h>
#include <git2/sys/commit.h>
#include <stdbool.h>

/* clang-format off */
#define GIT_LAZY_FUNCS(X) \
	X(git_blob_create_from_buffer) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_branch_create) \
	X(git_branch_delete) \
	X(git_branch_lookup) \
	X(git_buf_dispose) \
	X(git_commit_author) \
	X(git_commit_create) \
	X(git_commit_create_from_ids) \
	X(git_commit_free) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_message) \
	X(git_commit_nth_gen_ancestor) \
	X(git_commit_parent_id) \
	X(git_commit_parentcount) \
	X(git_commit_summary) \
	X(git_commit_time) \
	X(git_commit_tree) \
	X(git_config_free) \
	X(git_config_get_string) \
	X(git_diff_free) \
	X(git_diff_get_delta) \
	X(git_diff_num_deltas) \
	X(git_diff_tree_to_tree) \
	X(git_error_last) \
	X(git_fetch_options_init) \
	X(git_graph_descendant_of) \
	X(git_index_add) \
	X(git_index_add_bypath) \
	X(git_index_conflict_iterator_free) \
	X(git_index_conflict_iterator_new) \
	X(git_index_conflict_next) \
	X(git_index_conflict_remove) \
	X(git_index_free) \
	X(git_index_get_bypath) \
	X(git_index_write) \
	X(git_index_write_tree) \
	X(git_index_write_tree_to) \
	X(git_libgit2_init) \
	X(git_libgit2_opts) \
	X(git_libgit2_shutdown) \
	X(git_merge_base) \
	X(git_merge_options_init) \
	X(git_merge_trees) \
	X(git_object_free) \
	X(git_object_id) \
	X(git_object_lookup) \
	X(git_object_lookup_prefix) \
	X(git_object_peel) \
	X(git_odb_exists) \
	X(git_odb_free) \
	X(git_odb_hash) \
	X(git_odb_object_data) \
	X(git_odb_object_free) \
	X(git_odb_object_size) \
	X(git_odb_object_type) \
	X(git_odb_open) \
	X(git_odb_read) \
	X(git_odb_refresh) \
	X(git_odb_write) \
	X(git_oid_cmp) \
	X(git_oid_cpy) \
	X(git_oid_equal) \
	X(git_oid_fromstr) \
	X(git_oid_fromstrn) \
	X(git_oid_is_zero) \
	X(git_oid_tostr) \
	X(git_push_options_init) \
	X(git_reference_create_matching) \
	X(git_reference_delete) \
	X(git_reference_free) \
	X(git_reference_iterator_free) \
	X(git_reference_iterator_glob_new) \
	X(git_reference_lookup) \
	X(git_reference_name) \
	X(git_reference_name_to_id) \
	X(git_reference_next) \
	X(git_reference_symbolic_create) \
	X(git_reference_symbolic_target) \
	X(git_reference_target) \
	X(git_reference_type) \
	X(git_remote_connect) \
	X(git_remote_create) \
	X(git_remote_create_anonymous) \
	X(git_remote_disconnect) \
	X(git_remote_fetch) \
	X(git_remote_free) \
	X(git_remote_lookup) \
	X(git_remote_ls) \
	X(git_remote_upload) \
	X(git_repository_commondir) \
	X(git_repository_config_snapshot) \
	X(git_repository_free) \
	X(git_repository_index) \
	X(git_repository_init) \
	X(git_repository_is_bare) \
	X(git_repository_item_path) \
	X(git_repository_odb) \
	X(git_repository_open) \
	X(git_repository_open_ext) \
	X(git_repository_path) \
	X(git_repository_set_head_detached) \
	X(git_repository_workdir) \
	X(git_revparse_single) \
	X(git_revwalk_free) \
	X(git_revwalk_new) \
	X(git_revwalk_next) \
	X(git_revwalk_push) \
	X(git_revwalk_simplify_first_parent) \
	X(git_signature_default) \
	X(git_signature_free) \
	X(git_signature_new) \
	X(git_signature_now) \
	X(git_status_byindex) \
	X(git_status_list_entrycount) \
	X(git_status_list_free) \
	X(git_status_list_new) \
	X(git_status_options_init) \
	X(git_strarray_dispose) \
	X(git_tag_create) \
	X(git_tree_entry_byindex) \
	X(git_tree_entry_byname) \
	X(git_tree_entry_bypath) \
	X(git_tree_entry_free) \
	X(git_tree_entry_id) \
	X(git_tree_entry_name) \
	X(git_tree_entry_type) \
	X(git_tree_entrycount) \
	X(git_tree_free) \
	X(git_tree_lookup) \
	X(git_treebuilder_entrycount) \
	X(git_treebuilder_filter) \
	X(git_treebuilder_free) \
	X(git_treebuilder_get) \
	X(git_treebuilder_insert) \
	X(git_treebuilder_new) \
	X(git_treebuilder_remove) \
	X(git_treebuilder_write) \
	X(git_worktree_add) \
	X(git_worktree_add_options_init) \
	X(git_worktree_free) \
	X(git_worktree_list) \
	X(git_worktree_lookup) \
	X(git_worktree_path) \
	X(git_worktree_prune) \
	X(git_worktree_prune_options_init)
/* clang-format on */

struct git_lazy {
#define GIT_LAZY_FIELD(name) __typeof__(name) *fn_##name;
	GIT_LAZY_FUNCS(GIT_LAZY_FIELD)
#undef GIT_LAZY_FIELD
};

extern struct git_lazy git_lazy_table;
/* Set once the table is full; atomic, as the server's threads and the
 * library's callers may make their first call at the same time. */
extern _Atomic bool git_lazy_loaded;

/*
 * Loads libgit2 and fills the table, one thread at a time; ERR_GENERIC with
 * one line when the library or a function in it is missing. Later calls
 * return at once.
 */
int git_lazy_load(void);
/* The library git_lazy_load() opens (a soname or a path) instead of the
 * one veles was built against (NULL: that one again): a test makes the
 * load fail with it. */
void git_lazy_set_library(const char *soname);

/*
 * No call can reach an empty table, and none aborts: each function is
 * called in one of four ways (the macros below).
 *
 * - A root, which takes no object libgit2 made (git_libgit2_init, opening
 *   or making a repository or an object database, an oid from text, a
 *   signature, an options struct): loads the library if nothing did yet
 *   and returns GIT_ERROR when it cannot, the one-line error from
 *   git_lazy_load() set (err_msg()). vcs_open() loads it first and returns
 *   that error itself.
 * - A function that frees or disposes of an object: nothing happens while
 *   the library is not loaded, as no object can exist then.
 * - git_error_last(): NULL until loaded; git_libgit2_shutdown(): 0.
 * - Every other function takes an object libgit2 made (a repository, a
 *   commit, a tree, an oid it filled, ...), which exists only once a root
 *   call loaded the library: it calls through the table directly.
 */
static inline bool git_lazy_root(void)
{
	return __builtin_expect(git_lazy_loaded, 1) || git_lazy_load() == 0;
}

#ifndef GIT_LAZY_NO_CALL_MACROS
/* clang-format off */
#define git_blob_create_from_buffer (git_lazy_table.fn_git_blob_create_from_buffer)
#define git_blob_rawcontent (git_lazy_table.fn_git_blob_rawcontent)
#define git_blob_rawsize (git_lazy_table.fn_git_blob_rawsize)
#define git_branch_create (git_lazy_table.fn_git_branch_create)
#define git_branch_delete (git_lazy_table.fn_git_branch_delete)
#define git_branch_lookup (git_lazy_table.fn_git_branch_lookup)
#define git_buf_dispose(x) (git_lazy_loaded ? git_lazy_table.fn_git_buf_dispose(x) : (void)0)
#define git_commit_author (git_lazy_table.fn_git_commit_author)
#define git_commit_create (git_lazy_table.fn_git_commit_create)
#define git_commit_create_from_ids (git_lazy_table.fn_git_commit_create_from_ids)
#define git_commit_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_commit_free(x) : (void)0)
#define git_commit_id (git_lazy_table.fn_git_commit_id)
#define git_commit_lookup (git_lazy_table.fn_git_commit_lookup)
#define git_commit_message (git_lazy_table.fn_git_commit_message)
#define git_commit_nth_gen_ancestor (git_lazy_table.fn_git_commit_nth_gen_ancestor)
#define git_commit_parent_id (git_lazy_table.fn_git_commit_parent_id)
#define git_commit_parentcount (git_lazy_table.fn_git_commit_parentcount)
#define git_commit_summary (git_lazy_table.fn_git_commit_summary)
#define git_commit_time (git_lazy_table.fn_git_commit_time)
#define git_commit_tree (git_lazy_table.fn_git_commit_tree)
#define git_config_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_config_free(x) : (void)0)
#define git_config_get_string (git_lazy_table.fn_git_config_get_string)
#define git_diff_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_diff_free(x) : (void)0)
#define git_diff_get_delta (git_lazy_table.fn_git_diff_get_delta)
#define git_diff_num_deltas (git_lazy_table.fn_git_diff_num_deltas)
#define git_diff_tree_to_tree (git_lazy_table.fn_git_diff_tree_to_tree)
#define git_error_last() (git_lazy_loaded ? git_lazy_table.fn_git_error_last() : NULL)
#define git_fetch_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_fetch_options_init(__VA_ARGS__) : GIT_ERROR)
#define git_graph_descendant_of (git_lazy_table.fn_git_graph_descendant_of)
#define git_index_add (git_lazy_table.fn_git_index_add)
#define git_index_add_bypath (git_lazy_table.fn_git_index_add_bypath)
#define git_index_conflict_iterator_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_index_conflict_iterator_free(x) : (void)0)
#define git_index_conflict_iterator_new (git_lazy_table.fn_git_index_conflict_iterator_new)
#define git_index_conflict_next (git_lazy_table.fn_git_index_conflict_next)
#define git_index_conflict_remove (git_lazy_table.fn_git_index_conflict_remove)
#define git_index_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_index_free(x) : (void)0)
#define git_index_get_bypath (git_lazy_table.fn_git_index_get_bypath)
#define git_index_write (git_lazy_table.fn_git_index_write)
#define git_index_write_tree (git_lazy_table.fn_git_index_write_tree)
#define git_index_write_tree_to (git_lazy_table.fn_git_index_write_tree_to)
#define git_libgit2_init(...) (git_lazy_root() ? git_lazy_table.fn_git_libgit2_init(__VA_ARGS__) : GIT_ERROR)
#define git_libgit2_opts(...) (git_lazy_root() ? git_lazy_table.fn_git_libgit2_opts(__VA_ARGS__) : GIT_ERROR)
#define git_libgit2_shutdown() (git_lazy_loaded ? git_lazy_table.fn_git_libgit2_shutdown() : 0)
#define git_merge_base (git_lazy_table.fn_git_merge_base)
#define git_merge_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_merge_options_init(__VA_ARGS__) : GIT_ERROR)
#define git_merge_trees (git_lazy_table.fn_git_merge_trees)
#define git_object_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_object_free(x) : (void)0)
#define git_object_id (git_lazy_table.fn_git_object_id)
#define git_object_lookup (git_lazy_table.fn_git_object_lookup)
#define git_object_lookup_prefix (git_lazy_table.fn_git_object_lookup_prefix)
#define git_object_peel (git_lazy_table.fn_git_object_peel)
#define git_odb_exists (git_lazy_table.fn_git_odb_exists)
#define git_odb_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_odb_free(x) : (void)0)
#define git_odb_hash (git_lazy_table.fn_git_odb_hash)
#define git_odb_object_data (git_lazy_table.fn_git_odb_object_data)
#define git_odb_object_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_odb_object_free(x) : (void)0)
#define git_odb_object_size (git_lazy_table.fn_git_odb_object_size)
#define git_odb_object_type (git_lazy_table.fn_git_odb_object_type)
#define git_odb_open(...) (git_lazy_root() ? git_lazy_table.fn_git_odb_open(__VA_ARGS__) : GIT_ERROR)
#define git_odb_read (git_lazy_table.fn_git_odb_read)
#define git_odb_refresh (git_lazy_table.fn_git_odb_refresh)
#define git_odb_write (git_lazy_table.fn_git_odb_write)
#define git_oid_cmp (git_lazy_table.fn_git_oid_cmp)
#define git_oid_cpy (git_lazy_table.fn_git_oid_cpy)
#define git_oid_equal (git_lazy_table.fn_git_oid_equal)
#define git_oid_fromstr(...) (git_lazy_root() ? git_lazy_table.fn_git_oid_fromstr(__VA_ARGS__) : GIT_ERROR)
#define git_oid_fromstrn(...) (git_lazy_root() ? git_lazy_table.fn_git_oid_fromstrn(__VA_ARGS__) : GIT_ERROR)
#define git_oid_is_zero (git_lazy_table.fn_git_oid_is_zero)
#define git_oid_tostr (git_lazy_table.fn_git_oid_tostr)
#define git_push_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_push_options_init(__VA_ARGS__) : GIT_ERROR)
#define git_reference_create_matching (git_lazy_table.fn_git_reference_create_matching)
#define git_reference_delete (git_lazy_table.fn_git_reference_delete)
#define git_reference_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_reference_free(x) : (void)0)
#define git_reference_iterator_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_reference_iterator_free(x) : (void)0)
#define git_reference_iterator_glob_new (git_lazy_table.fn_git_reference_iterator_glob_new)
#define git_reference_lookup (git_lazy_table.fn_git_reference_lookup)
#define git_reference_name (git_lazy_table.fn_git_reference_name)
#define git_reference_name_to_id (git_lazy_table.fn_git_reference_name_to_id)
#define git_reference_next (git_lazy_table.fn_git_reference_next)
#define git_reference_symbolic_create (git_lazy_table.fn_git_reference_symbolic_create)
#define git_reference_symbolic_target (git_lazy_table.fn_git_reference_symbolic_target)
#define git_reference_target (git_lazy_table.fn_git_reference_target)
#define git_reference_type (git_lazy_table.fn_git_reference_type)
#define git_remote_connect (git_lazy_table.fn_git_remote_connect)
#define git_remote_create (git_lazy_table.fn_git_remote_create)
#define git_remote_create_anonymous (git_lazy_table.fn_git_remote_create_anonymous)
#define git_remote_disconnect (git_lazy_table.fn_git_remote_disconnect)
#define git_remote_fetch (git_lazy_table.fn_git_remote_fetch)
#define git_remote_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_remote_free(x) : (void)0)
#define git_remote_lookup (git_lazy_table.fn_git_remote_lookup)
#define git_remote_ls (git_lazy_table.fn_git_remote_ls)
#define git_remote_upload (git_lazy_table.fn_git_remote_upload)
#define git_repository_commondir (git_lazy_table.fn_git_repository_commondir)
#define git_repository_config_snapshot (git_lazy_table.fn_git_repository_config_snapshot)
#define git_repository_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_repository_free(x) : (void)0)
#define git_repository_index (git_lazy_table.fn_git_repository_index)
#define git_repository_init(...) (git_lazy_root() ? git_lazy_table.fn_git_repository_init(__VA_ARGS__) : GIT_ERROR)
#define git_repository_is_bare (git_lazy_table.fn_git_repository_is_bare)
#define git_repository_item_path (git_lazy_table.fn_git_repository_item_path)
#define git_repository_odb (git_lazy_table.fn_git_repository_odb)
#define git_repository_open(...) (git_lazy_root() ? git_lazy_table.fn_git_repository_open(__VA_ARGS__) : GIT_ERROR)
#define git_repository_open_ext(...) (git_lazy_root() ? git_lazy_table.fn_git_repository_open_ext(__VA_ARGS__) : GIT_ERROR)
#define git_repository_path (git_lazy_table.fn_git_repository_path)
#define git_repository_set_head_detached (git_lazy_table.fn_git_repository_set_head_detached)
#define git_repository_workdir (git_lazy_table.fn_git_repository_workdir)
#define git_revparse_single (git_lazy_table.fn_git_revparse_single)
#define git_revwalk_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_revwalk_free(x) : (void)0)
#define git_revwalk_new (git_lazy_table.fn_git_revwalk_new)
#define git_revwalk_next (git_lazy_table.fn_git_revwalk_next)
#define git_revwalk_push (git_lazy_table.fn_git_revwalk_push)
#define git_revwalk_simplify_first_parent (git_lazy_table.fn_git_revwalk_simplify_first_parent)
#define git_signature_default (git_lazy_table.fn_git_signature_default)
#define git_signature_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_signature_free(x) : (void)0)
#define git_signature_new(...) (git_lazy_root() ? git_lazy_table.fn_git_signature_new(__VA_ARGS__) : GIT_ERROR)
#define git_signature_now(...) (git_lazy_root() ? git_lazy_table.fn_git_signature_now(__VA_ARGS__) : GIT_ERROR)
#define git_status_byindex (git_lazy_table.fn_git_status_byindex)
#define git_status_list_entrycount (git_lazy_table.fn_git_status_list_entrycount)
#define git_status_list_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_status_list_free(x) : (void)0)
#define git_status_list_new (git_lazy_table.fn_git_status_list_new)
#define git_status_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_status_options_init(__VA_ARGS__) : GIT_ERROR)
#define git_strarray_dispose(x) (git_lazy_loaded ? git_lazy_table.fn_git_strarray_dispose(x) : (void)0)
#define git_tag_create (git_lazy_table.fn_git_tag_create)
#define git_tree_entry_byindex (git_lazy_table.fn_git_tree_entry_byindex)
#define git_tree_entry_byname (git_lazy_table.fn_git_tree_entry_byname)
#define git_tree_entry_bypath (git_lazy_table.fn_git_tree_entry_bypath)
#define git_tree_entry_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_tree_entry_free(x) : (void)0)
#define git_tree_entry_id (git_lazy_table.fn_git_tree_entry_id)
#define git_tree_entry_name (git_lazy_table.fn_git_tree_entry_name)
#define git_tree_entry_type (git_lazy_table.fn_git_tree_entry_type)
#define git_tree_entrycount (git_lazy_table.fn_git_tree_entrycount)
#define git_tree_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_tree_free(x) : (void)0)
#define git_tree_lookup (git_lazy_table.fn_git_tree_lookup)
#define git_treebuilder_entrycount (git_lazy_table.fn_git_treebuilder_entrycount)
#define git_treebuilder_filter (git_lazy_table.fn_git_treebuilder_filter)
#define git_treebuilder_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_treebuilder_free(x) : (void)0)
#define git_treebuilder_get (git_lazy_table.fn_git_treebuilder_get)
#define git_treebuilder_insert (git_lazy_table.fn_git_treebuilder_insert)
#define git_treebuilder_new (git_lazy_table.fn_git_treebuilder_new)
#define git_treebuilder_remove (git_lazy_table.fn_git_treebuilder_remove)
#define git_treebuilder_write (git_lazy_table.fn_git_treebuilder_write)
#define git_worktree_add (git_lazy_table.fn_git_worktree_add)
#define git_worktree_add_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_worktree_add_options_init(__VA_ARGS__) : GIT_ERROR)
#define git_worktree_free(x) (git_lazy_loaded ? git_lazy_table.fn_git_worktree_free(x) : (void)0)
#define git_worktree_list (git_lazy_table.fn_git_worktree_list)
#define git_worktree_lookup (git_lazy_table.fn_git_worktree_lookup)
#define git_worktree_path (git_lazy_table.fn_git_worktree_path)
#define git_worktree_prune (git_lazy_table.fn_git_worktree_prune)
#define git_worktree_prune_options_init(...) (git_lazy_root() ? git_lazy_table.fn_git_worktree_prune_options_init(__VA_ARGS__) : GIT_ERROR)
/* clang-format on */
#endif

#endif
