/* args: -x errtags */
/* struct keys of one array are of one type (illumos union/err.D_PROTO_ARG.DupUnionAssoc.d) */
union record { int position; char content; } r;
union pirate { int position; char content; } p;
BEGIN { a[r] = 1; a[p] = 2; }
