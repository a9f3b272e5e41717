/* dt_cpp: an #if without its #endif is the preprocessor's error. */
#pragma D option quiet
#if !defined(FLAG)
#define VALUE 5
#else
#define VALUE 10

BEGIN
{
	trace(VALUE);
}
