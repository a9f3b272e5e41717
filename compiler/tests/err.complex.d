/*
 * DTrace's DIF has 8 registers (%r0 reads 0): an expression that keeps
 * more than 7 values live at once is D_NOREG (-x iregs: see
 * tests/host/test_compiler.py::test_iregs).
 */
BEGIN
{
	trace(arg1 + (arg2 + (arg3 + (arg4 + (arg5 + (arg6 + (arg7 + arg8)))))));
}
