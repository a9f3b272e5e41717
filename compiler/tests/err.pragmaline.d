/*
 * #pragma line N "file", illumos' directive form of #line: the line after
 * it is line N of that file in every message (here the syntax error's).
 */
BEGIN { x = 1; }
#pragma line 100 "generated.d"
BEGIN { y = ; }
