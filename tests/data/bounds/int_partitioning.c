/* clang-format off */
#include <stdlib.h>
typedef struct list_t { struct list_t *next; } TList;
int nondet(void); /* any value: the analysis cannot see into it */
#define NONDET nondet()
/* The seed's example, laid out as its profile numbers the lines.
 * First loop: max(0, k - 1) runs, plus its header's first arrival (a top-
 * level loop counts it, as Loopus does); its last run sets list_next_NULL
 * to (k - 2) + 2, so list_next_NULL = 1 + max(0, k - 1) after it. Second
 * loop: x_next_NULL = list_next_NULL runs, plus one. Inner loop: y_next_x
 * grows by one per outer run only, so all its runs together make at most
 * 1 + max(0, k - 1) iterations (amortised). Third loop: as the second.
 * @bound partitioning 34 O(n^1): 1 + max(0, (k + -1))
 * @bound partitioning 49 O(n^1): 2 + max(0, (k + -1))
 * @bound partitioning 55 O(n^1): 1 + max(0, (k + -1))
 * @bound partitioning 64 O(n^1): 2 + max(0, (k + -1))
 * @total partitioning O(n^1): 6 + 4 × max(0, (k + -1))
 */
int partitioning(unsigned int k) {
    TList *list, *temp;

    unsigned int list_next_NULL;
    unsigned int list_next_p;
    unsigned int p_next_NULL;
    unsigned int x_next_NULL;
    unsigned int y_next_x;
    list = malloc(sizeof(TList));
    list->next = NULL;

    // Create nondeterminstic list
    TList *p = list;
    list_next_NULL = 1;
    list_next_p = 0;
    while(k > 1) {
        temp = malloc(sizeof(TList));
        temp->next = NULL;
        p->next = temp;
        p = temp;
        list_next_NULL = list_next_p + 2;
        list_next_p += 1;
        --k;
    }

    // Traverse the list
    TList* x = list;
    TList* y = x;
    x_next_NULL = list_next_NULL;
    y_next_x = 0;
    while(x_next_NULL > 0 && x != NULL) {
        x = x->next;
        x_next_NULL -= 1;
        y_next_x += 1;
        // The end will always jump out
        if(NONDET) {
            while(y_next_x > 0 && y != x) {
                y = y->next;
                y_next_x -= 1;
            }
        }
    }

    p = list;
    p_next_NULL = list_next_NULL;
    while(p_next_NULL > 0 && p != NULL) {
        temp = p;
        p = p->next;
        free(temp);
        p_next_NULL -= 1;
    }

    return 0;
}
