/*
 * A struct key of an aggregation is an aggkey of its bytes ("8 bytes"):
 * its DIF object returns the struct's address, the kernel copies the
 * bytes (an array's struct key is pushed by address, pushtr, sized by the
 * variable table: compiler/tests/vm/tst.structkeys.d runs both).
 */
struct pt { int x; short y; };
BEGIN
{
	@[*(struct pt *)arg0, 2] = count();
}
