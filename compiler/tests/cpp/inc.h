/* A header: its lines get their own markers. */
#define FROM_HEADER	41
#define PRED(e)		/execname == e/
