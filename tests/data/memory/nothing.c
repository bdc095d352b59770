/* Allocates nothing at all. */
int main(void)
{
	return 0;
}
