/* flags: -q */
/*
 * The string library, DTrace's semantics and corner cases (substr's
 * negative positions, index/rindex clamping, cleanpath's kept "/."),
 * and NULL as a value of string variables.
 */
BEGIN
{
	printf("%s|%s|%s|%s\n", substr("hello world", -5, 3),
	    substr("hello", 1), substr("hello", 1, -1), substr("hello", 9));
	printf("%d %d %d %d %d\n", index("banana", "an"), rindex("banana", "an"),
	    index("banana", "an", 2), rindex("banana", "an", 2),
	    index("banana", "x"));
	printf("%d %d %d\n", index("", ""), index("abc", "", 7),
	    rindex("abc", "", -1));
	printf("%s %s|%s %s|%s %s\n", basename("/usr/lib/"), dirname("/usr/lib/"),
	    basename("f"), dirname("f"), basename("///"), dirname(""));
	printf("%s %s %s\n", cleanpath("/a/./b//../c/."), cleanpath("/a/.."),
	    cleanpath("/x/..y/z"));
	printf("%s|%s|%s\n", strchr("hello", 'l'), strrchr("hello", 'l'),
	    strstr("foobarbaz", "bar"));
	printf("%d %d\n", strchr("hello", 'z') == NULL, strstr("ab", "c") == NULL);
	printf("%s|%s|%s\n", toupper("abcXyz"), tolower("ABC def"),
	    strjoin("con", "cat"));
	printf("%s %s %s %s %s\n", lltostr(-42), lltostr(255, 16), lltostr(8, 8),
	    lltostr(5, 2), lltostr(0, 16));
	printf("%d %d %d %d\n", strtoll("  -0x1f", 16), strtoll("777", 8),
	    strtoll("12abc"), strtoll("+z", 36));
	printf("%d %d\n", strlen("hello"), strlen(""));
	s = strstr("abc", "x");
	t = strstr("abc", "b");
	printf("%d %d %s\n", s == NULL, t == NULL, t);
	exit(0);
}
