/* The rule functions of mutate_text.c, for the table in mutate.c. */
#ifndef FUZZ_MUTATE_PRIV_H
#define FUZZ_MUTATE_PRIV_H

#include "fuzz/mutate.h"

bool fz_repeat_line(struct fz_mut *m, struct fz_input *in);
bool fz_double_line(struct fz_mut *m, struct fz_input *in);
bool fz_divide_line(struct fz_mut *m, struct fz_input *in);
bool fz_delete_line(struct fz_mut *m, struct fz_input *in);
bool fz_swap_lines(struct fz_mut *m, struct fz_input *in);
bool fz_repeat_word(struct fz_mut *m, struct fz_input *in);
bool fz_vary_word(struct fz_mut *m, struct fz_input *in);
bool fz_delete_word(struct fz_mut *m, struct fz_input *in);
bool fz_bloat_words(struct fz_mut *m, struct fz_input *in);
bool fz_insert_space(struct fz_mut *m, struct fz_input *in);
bool fz_repeat_space(struct fz_mut *m, struct fz_input *in);
bool fz_sort_line(struct fz_mut *m, struct fz_input *in);
bool fz_reverse_line(struct fz_mut *m, struct fz_input *in);
bool fz_change_char(struct fz_mut *m, struct fz_input *in);
bool fz_dict_insert(struct fz_mut *m, struct fz_input *in);
bool fz_dict_overwrite(struct fz_mut *m, struct fz_input *in);
bool fz_dict_repeat(struct fz_mut *m, struct fz_input *in);

#endif
