/* flags: -x errtags */
/* "Stabel" is no stability level */
int x;
#pragma D attributes Stabel/Stable/Common x
