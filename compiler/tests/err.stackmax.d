BEGIN
{
	stack(65);
}
