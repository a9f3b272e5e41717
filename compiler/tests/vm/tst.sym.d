/* flags: -q */
/*
 * sym(), func(), mod(): a kernel address named from the kernel's symbols
 * (compiler/tests/kallsyms.fake) as DTrace's dt_print_sym()/dt_print_mod()
 * name it: module`function without an offset, module`0x... between a
 * module's functions, the module alone for mod(), 0x... for an address
 * nothing names; each in DTrace's "  %-50s".  As aggregation keys every
 * address of one function (one module) is one key, DTrace's
 * dt_aggregate_symaddr()/_modaddr(); printa's %a names a key's address.
 */
BEGIN
{
	sym(0xffffffff81100210);	/* vfs_read+0x10 */
	printf("|\n");
	func(0xffffffff81100210);
	printf("|\n");
	mod(0xffffffff81100210);
	printf("|\n");
	func(0xffffffffc0001110);	/* in ext4 */
	mod(0xffffffffc0001110);
	printf("|\n");
	sym(0xffffffff81100300);	/* past vfs_read's end, in the kernel */
	mod(0xffffffff81100300);
	printf("|\n");
	sym(0x1234);			/* nothing */
	mod(0x1234);
	printf("|\n");

	@f[func(0xffffffff81100210)] = count();
	@f[sym(0xffffffff81100200)] = count();
	@f[func(0xffffffff81100201)] = count();
	@f[func(0xffffffffc0003110)] = count();
	@f[func(0x1234)] = count();
	@m[mod(0xffffffffc0003110)] = count();
	@m[mod(0xffffffffc0003000)] = count();
	@m[mod(0xffffffff81100500)] = count();
	@m[mod(0xffffffff81000000)] = count();
	@m[mod(0xffffffff81100080)] = count();
	@two[mod(0xffffffff81100210), func(0xffffffff81100210)] = sum(1);
	@two[mod(0xffffffff81100080), func(0xffffffff81100090)] = sum(10);
	@two[mod(0xffffffff81100480), func(0xffffffff81100211)] = sum(100);
}

END
{
	printa(@f);
	printa(@m);
	printa(@two);
	printa("%a %@d\n", @f);
	printa("%-24a|%@d\n", @m);
}
