/* args: 1234 100 cat */
pid$1:libc:malloc:entry
/arg0 > $2 && execname == $$3/
{
	printf("%s %d\n", $$3, $2);
}
