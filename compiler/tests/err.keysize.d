/* args: -x errtags */
/* a key copied by its bytes holds at most 4096 of them */
struct big { int a[2000]; } b;
BEGIN { @[b] = count(); }
