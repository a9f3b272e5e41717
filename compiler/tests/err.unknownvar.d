BEGIN
{
	trace(nosuchvar + 1);
}
