/*
 * printf() as DTrace formats it (libdtrace's dt_printf.c), one line per
 * group of conversions, every value checked by reasoning from DTrace's
 * rules.  The harness runs it with TZ=UTC (%Y %T) and
 * XDT_KALLSYMS=compiler/tests/kallsyms.fake (%a).
 */
#pragma D option quiet

float f;
double d;
long double ld;
short sh;
unsigned short ush;
long lg;
unsigned long ulg;
long long ll;
int64_t i64;
uint64_t u64;

BEGIN
{
	sh = -2; ush = 65535; lg = -3; ulg = 3; ll = -4; i64 = -5; u64 = 6;

	/* size prefixes: the argument's type must be the one named */
	printf("h [%hd|%hi|%hu|%ho|%hx|%hX]\n", sh, sh, ush, ush, sh, ush);
	printf("l [%ld|%li|%lu|%lo|%lx|%lX]\n", lg, lg, ulg, ulg, lg, ulg);
	printf("ll [%lld|%lli|%llu|%llo|%llx|%llX|%llx]\n", ll, ll, u64, u64, ll,
	    i64, u64);

	/*
	 * Floats: D has no float arithmetic, so these are the variables'
	 * zero bits as float, double, long double.  %g of 0 is "0".
	 */
	printf("fp [%f|%e|%g|%E|%G|%Lf|%5.2f|%-13e|%Le]\n", f, d, f, d, f, ld, d,
	    f, ld);

	/* %c prints the low byte; %C escapes it as %S does; %wc is C's %lc */
	printf("c [%c|%5c|%-3c|%C|%C|%C|%wc|%lc]\n", 'a', 'b', 'c', '\n', 0x7f,
	    'q', 65, 66);

	/*
	 * %S escapes as DTrace's strchr2esc: C's escapes, \" and \\, octal
	 * for other unprintables, and the NUL that ends a string shorter
	 * than strsize as \0.  A precision of 0 is dropped, as DTrace does:
	 * %.0s prints the whole string.
	 */
	printf("s [%s|%10s|%-10s|%.2s|%.0s|%S]\n", "abc", "abc", "abc", "abc",
	    "abc", "a\tb\"\\\001\377 z");

	/* '*' width and precision, width first; a negative width is '-' */
	printf("dyn [%*d|%-*d|%.*d|%*.*d|%-*.*d]\n", 5, 1, 5, 2, 3, 3, 6, 4, 5,
	    7, 3, 6);
	printf("dyn [%*s|%.*s|%*d]\n", -6, "ab", 1, "xyz", 0, 9);

	/*
	 * %p is %x of the value's size (no 0x unless #); %? is a pointer's
	 * width, 16.  Flags: a later 0 cancels '-' (%-05d is %05d), as in
	 * DTrace's parser.  ' groups digits only in a locale that does.
	 */
	printf("p [%p|%p|%#p|%10p|%-10p|%?p|%-?p|]\n", 0, (void *)0x1234, 255,
	    16, 16, 16, 16);
	printf("flags [%#x|%#o|%+d|% d|%'d|%05d|%-05d|%-5d|%+.3d]\n", 255, 8, 5, 5,
	    1234567, 42, 42, 42, 7);

	/* integers as wide as their type: %d signed iff the type is */
	printf("int [%d|%i|%u|%x|%o|%c]\n", (char)-1, (char)-1, (char)-1,
	    (char)-1, (char)-1, (char)65);
	printf("int [%d|%i|%u|%x]\n", (unsigned short)-1, (unsigned short)-1,
	    (short)-1, (short)-1);
	printf("int [%d|%i|%u|%x|%X|%o]\n", -1, -1, -1, -1, -1, 8);
	printf("int [%d|%u|%x]\n", 0x8000000000000000, -1LL, -1LL);

	/* %a: kernel address as module`symbol+offset, or 0x hex if none */
	printf("a [%a|%a|%30a|%-16a|]\n", 0, (void *)0xffffffff81100210,
	    0xffffffff81100080, 0x10);

	/* %Y: DTrace's rearranged ctime(); %T: RFC 822 (DTrace's %G year) */
	printf("Y [%Y|%25Y]\n", 1136073600000000000, 1136073600000000000);
	printf("T [%T]\n", (int64_t)1136073600000000000);

	/* %k of a stack(): BEGIN has no kernel frames, so a newline */
	printf("k [%k]\n", stack(2));

	printf("pct 100%% [%s]%%\n", "x");
	printf("no conversions\n");
	exit(0);
}
