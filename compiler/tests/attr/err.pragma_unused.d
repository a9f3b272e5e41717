/* #pragma D attributes naming what the program never declares */
#pragma D attributes Stable/Stable/Common nothing

BEGIN
{
	exit(0);
}
