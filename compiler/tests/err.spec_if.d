/*
 * The speculation rules hold per piece of a clause (DTrace's sugar): in
 * the if's body, speculate() after printf() is still refused.
 */
BEGIN
{
	s = speculation();
	if (s) {
		printf("x");
		speculate(s);
	}
}
