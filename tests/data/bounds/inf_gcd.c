/*
 * Euclid by subtraction: with a = 0 and b > 0 it never ends.
 * @bound inf_gcd 8 O(∞): ∞
 * @total inf_gcd O(∞): ∞
 */
int inf_gcd(int a, int b)
{
	while (a != b) {
		if (a > b)
			a -= b;
		else
			b -= a;
	}
	return a;
}
