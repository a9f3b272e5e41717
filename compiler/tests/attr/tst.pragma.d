/*
 * #pragma D attributes: a variable's (before it is declared too), an
 * inline's, a part of a USDT provider this program defines and of one of
 * xdt's own providers (for this program); the report shows them.
 */
#pragma D attributes Evolving/Evolving/Common later

int early;
#pragma D attributes Unstable/Stable/Common early

inline int lim = 10;
#pragma D attributes Stable/Evolving/ISA lim

provider demo {
	probe start(int);
};
#pragma D attributes Evolving/Evolving/Common provider demo provider
#pragma D attributes Private/Private/Unknown provider demo function
#pragma D attributes Evolving/Evolving/Common provider demo name
#pragma D attributes Evolving/Evolving/Common provider demo args

#pragma D attributes Stable/Stable/Common provider syscall function
#pragma D attributes Stable/Stable/Common provider syscall args

int later;

demo123:::start
{
	later = early;
}

syscall::read:entry
{
	trace(args[0] + lim);
}
