/* flags: -x errtags */
/* a built-in variable is not the program's to give attributes */
#pragma D attributes Stable/Stable/Common execname
