BEGIN
{
	printf("%d %s\n", execname, arg0);
}
