/* flags: -q */
/* json(): selectors, values as written, NULL for what is not there. */
BEGIN
{
	j = "{\"a\": [1, {\"b\": \"x\\\"y\"}, true], \"n\": -1.5e3}";
	printf("%s|%s|%s|%s\n", json(j, "a[0]"), json(j, "a[1].b"),
	    json(j, "a.2"), json(j, "n"));
	printf("%s\n", json(j, "a[1]"));
	printf("%d %d %d\n", json(j, "a[3]") == NULL, json(j, "zz") == NULL,
	    json("[1,", "1") == NULL);
	exit(0);
}
