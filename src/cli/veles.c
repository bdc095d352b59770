#include <stdio.h>
#include "util/common.h"
int main(void)
{
	puts("veles " VELES_VERSION);
	return 0;
}
