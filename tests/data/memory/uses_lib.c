/* Calls lib_make() in liballoc.so: the stacks go through the library. */
void **lib_make(void);

int main(void)
{
	return lib_make() == 0;
}
