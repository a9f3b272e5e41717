/* flags: -q -x specsize=40 */
/* stderr: ^dtrace: 5 speculative drops$ */
/*
 * A speculation's buffer holds specsize bytes per CPU: with 40, five
 * 8-byte records (a header each) fit, the other five are speculative
 * drops and their clauses stop at speculate() (the counter after it does
 * not move).  A commit of speculation 0 does nothing; commit(3) with
 * nspec=1 is an illegal operation that fires ERROR.
 */
BEGIN { s = speculation(); n = 0; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { speculate(s); printf("a"); n++; }
BEGIN { commit(0); }
BEGIN { commit(s); }
BEGIN { printf("\n%d ran after speculate\n", n); }
BEGIN { commit(3); }
ERROR { printf("ERROR %d\n", arg4); exit(0); }
