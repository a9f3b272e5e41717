/* flags: -q */
/* Strings compare by content, byte by byte, unsigned, like strcmp(3). */
BEGIN
{
	s = "abc";
	t = "abd";
	printf("%d %d %d %d\n", s == "abc", s != "abc", s < t, t < s);
	printf("%d %d\n", "ab" < "abc", "abc" > "ab");
	printf("%d %d\n", "" < "a", "" == "");
	u = s;
	printf("%d\n", u == s);
	/* a variable of the same content is equal, not the same address */
	a["k"] = "abc";
	printf("%d %d\n", a["k"] == s, a["k"] == "abd");
	printf("%d\n", "\xff" > "a");
	exit(0);
}
