// C++: 20 new and 20 delete of Node from make_node(int), one new[] of 10
// ints that leaks (40 bytes).
#include <cstdio>

struct Node {
	int value;
	Node *next;
};

static Node *make_node(int v)
{
	return new Node{v, nullptr};
}

int main()
{
	Node *nodes[20];
	for (int i = 0; i < 20; i++)
		nodes[i] = make_node(i);
	for (int i = 0; i < 20; i++)
		delete nodes[i];
	int *leak = new int[10];
	leak[0] = 1;
	return leak[0] - 1;
}
