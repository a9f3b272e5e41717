BEGIN
/execname == 1/
{
}
