/* flags: -q */
/* cmd: dd if=/dev/zero of=/dev/null bs=1 count=2 */
/* cpu: 0 */
/*
 * func(), sym(), mod() of a kernel address, from the kernel's own symbols
 * (/proc/kallsyms): read_zero's caller is vfs_read (through the file's
 * f_op->read), whatever the ISA and wherever in vfs_read the call is.
 * dtrace and dd (its child) run on one CPU: the records come out before
 * END's, in the order they fired.
 * dd reads /dev/zero twice: two firings, one key each, as DTrace keys a
 * func() by its function (dt_aggregate_symaddr), not by the address.
 */
fbt::read_zero:entry
/pid == $target/
{
	func(caller);
	mod(caller);
	printf("\n");
	@f[func(caller)] = count();
	@s[sym(caller), mod(caller)] = count();
}

END
{
	printa(@f);
	printa(@s);
	printa("%a %@d\n", @f);
}
