/*
 * Directives start in column 1, as in DTrace's cpp: an indented # line is
 * text (its macros expanded), so the D compiler sees it as a control line.
 */
#define V 3
	#define V 5
  #pragma D option quiet
/* a comment */ #undef V
 /* two
  lines */ #if 0
#if 0
  #endif
skipped
#endif
kept V "  #if" '#'
/*
  #else
*/
#define LONG 1 + \
  #2
LONG
// #if 0
 # 1 "looks like a marker"
