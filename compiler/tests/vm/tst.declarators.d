/* flags: -q */
/*
 * Every declarator form dt_grammar.y allows: parenthesized declarators
 * (a pointer to an array, to a function, arrays of them, in variables,
 * struct members, typedefs and prototypes), and abstract declarators in
 * casts and sizeof.  sizeof and print() show each type's size and its
 * name as DTrace prints it (libctf's ctf_type_name: "int (*)[4]").
 */
int (*p)[4];
int (*fp)(int);
int *ap[3];
int (*afp[2])(int, char *);
int aa[2][3];
int (*paa)[2][3];
int f(int (*cb)(int), char);
int (g)(int);
int (z);
struct s { int (*op)(int); int *v[2]; int (*pa)[5]; char c; } st;
typedef int (*handler_t)(int);
handler_t h;
BEGIN {
	printf("%d %d %d %d %d %d\n", sizeof (p), sizeof (*p), sizeof (ap), sizeof (afp), sizeof (aa), sizeof (aa[1]));
	printf("%d %d %d\n", sizeof (int (*)[4]), sizeof (int *[4]), sizeof (int [2][3]));
	printf("%d %d %d %d\n", sizeof (st), offsetof(struct s, v), offsetof(struct s, pa), offsetof(struct s, c));
	printf("%d %d %d %d\n", sizeof (*paa), sizeof ((*paa)[1]), sizeof (h), sizeof (z));
	x = (int (*)[4])0; y = (int (*)(int))0;
	print(x); print(y); print(p); print(ap); print(afp); print(aa); print(paa); print(h); print(st.pa);
	exit(0);
}
